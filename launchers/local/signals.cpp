#include "launchers/local/signals.hpp"

#include <signal.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "lib/util/file_tail.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/job_process.hpp"
#include "lib/util/processes.hpp"

namespace ssim::launchers {

namespace {

// With its leader gone, a group stands for the job when one of its members belongs to it.
bool group_belongs_to_job(int pgid, const std::string& run_dir, std::span<const int> trusted) {
  DIR* dir = ::opendir("/proc");
  if (!dir) return false;
  bool found = false;
  while (dirent* d = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(d->d_name, &end, 10);
    if (*end != '\0' || pid <= 1) continue;
    const auto f = process_facts(static_cast<int>(pid));
    if (!f || f->group != pgid) continue;
    if ((found = belongs_to_job(f->pid, f->start_ticks, run_dir, trusted))) break;
  }
  ::closedir(dir);
  return found;
}

}  // namespace

bool signal_group(int pgid, const std::string& ticks, int sig, const std::string& run_dir,
                  std::span<const int> trusted) {
  if (pgid <= 1) return false;
  if (process_exists(pgid)) {
    if (!belongs_to_job(pgid, ticks, run_dir, trusted)) return false;  // ended, or never the job's
  } else if (!group_alive(pgid) || !group_belongs_to_job(pgid, run_dir, trusted)) {
    return false;
  }
  const bool sent = ::kill(-pgid, sig) == 0;
  if (sig == SIGTERM) ::kill(-pgid, SIGCONT);
  return sent;
}

void signal_detached(const std::string& run_dir, int sig, std::span<const int> trusted) {
  const auto text = read_run_file(run_dir + "/.ssim-detached");
  if (!text) return;
  std::istringstream in(*text);
  int pid = 0;
  std::string ticks;
  while (in >> pid >> ticks) {
    if (!belongs_to_job(pid, ticks, run_dir, trusted)) continue;  // ended, or not the job's
    ::kill(pid, sig);
    if (::getpgid(pid) == pid) ::kill(-pid, sig);  // a detached process usually leads its own group
    if (sig == SIGTERM) ::kill(pid, SIGCONT);
  }
}

int signal_job_processes(const std::string& run_dir, int sig) {
  int sent = 0;
  for (int pid : processes_with_env("SSIM_RUN_DIR", run_dir)) {  // what the kernel says was started for it
    if (::kill(pid, sig) == 0) ++sent;
    if (sig == SIGTERM) ::kill(pid, SIGCONT);
  }
  return sent;
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
