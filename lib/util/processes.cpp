#include "lib/util/processes.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "lib/util/atomic_file.hpp"
#include "lib/util/job_process.hpp"
#include "lib/util/proc_stat.hpp"

namespace ssim {

bool process_alive(int pid, const std::string& start_ticks) {
  if (pid <= 0) return false;
  const auto f = stat_fields(pid);
  if (f.size() < 20) return false;
  if (f[0] == "Z" || f[0] == "X") return false;
  return start_ticks.empty() || f[19] == start_ticks;
}

bool process_exists(int pid) { return pid > 0 && ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0; }

std::vector<int> children_of_self() {
  std::vector<int> out;
  const std::string tasks = "/proc/" + std::to_string(::getpid()) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (!dir) return out;
  while (dirent* d = ::readdir(dir)) {
    if (d->d_name[0] == '.') continue;
    const auto list = read_file(tasks + "/" + d->d_name + "/children");
    if (!list) continue;
    const char* p = list->c_str();
    char* end = nullptr;
    for (long v = std::strtol(p, &end, 10); end != p; p = end, v = std::strtol(p, &end, 10))
      out.push_back(static_cast<int>(v));
  }
  ::closedir(dir);
  return out;
}

bool group_alive(int pgid) {
  if (pgid <= 1) return false;
  return ::kill(-pgid, 0) == 0 || errno == EPERM;
}

std::vector<int> processes_with_env(const std::string& name, const std::string& value) {
  std::vector<int> out;
  const std::string needle = name + "=" + value;
  DIR* dir = ::opendir("/proc");
  if (!dir) return out;
  const int self = ::getpid();
  while (dirent* d = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(d->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    if (environ_holds(static_cast<int>(pid), needle) && process_alive(static_cast<int>(pid), ""))
      out.push_back(static_cast<int>(pid));
  }
  ::closedir(dir);
  return out;
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace ssim
