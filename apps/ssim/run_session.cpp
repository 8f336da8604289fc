#include "apps/ssim/run_session.hpp"

#include <unistd.h>

#include <iostream>

#include "apps/ssim/progress_display.hpp"
#include "apps/ssim/run_summary.hpp"
#include "lib/session/run.hpp"
#include "lib/session/status_json.hpp"

namespace ssim::app {

int run_experiment(const session::Loaded& l, const RunRequest& req) {
  const bool terminal = ::isatty(2) && !req.json;
  auto progress = make_progress(terminal, req.events);
  const auto result =
      session::run(l, {req.detach, req.resume, req.overwrite, req.in_batch, req.only, req.open},
                   {progress.get(), [](const std::string& line) { std::cerr << "ssim: " << line << "\n"; }});
  if (result.detached) return 0;
  if (req.events) {
    // stdout holds the event lines only
  } else if (req.json) {
    std::cout << session::status_json(result.manifest, std::nullopt).dump(2) << "\n";
  } else {
    print_run_end(std::cout, result.manifest, req.file, ::isatty(STDOUT_FILENO));
  }
  return result.code;
}

}  // namespace ssim::app
