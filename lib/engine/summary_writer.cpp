#include "lib/engine/summary_writer.hpp"

#include <unistd.h>

#include <exception>

#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/proc_stat.hpp"

namespace ssim::engine {

SummaryWriter::SummaryWriter(std::string experiment_path) : path_(state::summary_path(experiment_path)) {
  file_.pid = ::getpid();
  file_.host = host_name();
  file_.ticks = start_ticks(file_.pid);
}

void SummaryWriter::offer(const state::StatusSummary& s, std::chrono::steady_clock::time_point now) {
  if (!every_.due(now)) return;
  file_.summary = s;
  file_.written = now_seconds();  // the wall clock: a reader compares it with its own
  try {
    write_file_atomically(path_, state::encode_summary_file(file_));
  } catch (const std::exception&) {
  }
}

}  // namespace ssim::engine
