#include "launchers/local/signals.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <thread>

#include "lib/util/processes.hpp"
#include "lib/util/atomic_file.hpp"

namespace ssim::launchers {

bool signal_group(int pgid, const std::string& ticks, int sig) {
  if (pgid <= 1) return false;
  if (process_exists(pgid)) {
    if (!ticks.empty() && start_ticks(pgid) != ticks) return false;  // someone else's now
  } else if (!group_alive(pgid)) {
    return false;
  }
  const bool sent = ::kill(-pgid, sig) == 0;
  if (sig == SIGTERM) ::kill(-pgid, SIGCONT);
  return sent;
}

void signal_detached(const std::string& run_dir, int sig) {
  const auto text = read_file(run_dir + "/.ssim-detached");
  if (!text) return;
  std::istringstream in(*text);
  int pid = 0;
  std::string ticks;
  while (in >> pid >> ticks) {
    if (pid <= 1 || start_ticks(pid) != ticks) continue;  // ended, or not ours any more
    ::kill(pid, sig);
    ::kill(-pid, sig);  // a detached process usually leads its own group
    if (sig == SIGTERM) ::kill(pid, SIGCONT);
  }
}

void end_adopted_children(const std::string& supervisor_exe, std::chrono::milliseconds grace) {
  std::error_code ec;
  const auto supervisor = std::filesystem::canonical(supervisor_exe, ec);
  auto adopted = [&] {
    std::vector<std::pair<int, std::string>> out;
    for (int pid : children_of_self()) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) continue;  // ended (a supervisor, say): reaped
      std::error_code e;
      const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", e);
      if (!e && exe == supervisor) continue;
      out.emplace_back(pid, start_ticks(pid));
    }
    return out;
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> termed;
  while (std::chrono::steady_clock::now() - start < grace + std::chrono::seconds(2)) {
    const auto list = adopted();
    if (list.empty()) return;
    const bool force = std::chrono::steady_clock::now() - start >= grace;
    for (const auto& [pid, ticks] : list) {
      if (!process_alive(pid, ticks)) continue;
      if (force) {
        ::kill(-pid, SIGKILL), ::kill(pid, SIGKILL);
      } else if (std::find(termed.begin(), termed.end(), pid) == termed.end()) {
        ::kill(-pid, SIGTERM), ::kill(pid, SIGTERM), ::kill(pid, SIGCONT);
        termed.push_back(pid);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // waiting for them to exit, bounded above
  }
}

}  // namespace ssim::launchers
