#include "lib/util/proc_stat.hpp"

#include <pwd.h>
#include <unistd.h>

#include "lib/util/atomic_file.hpp"

namespace ssim {

std::vector<std::string> stat_fields(int pid) {
  const auto text = read_file("/proc/" + std::to_string(pid) + "/stat");
  std::vector<std::string> fields;
  if (!text) return fields;
  const size_t close = text->rfind(')');  // the command name may hold blanks and ')'
  if (close == std::string::npos) return fields;
  size_t i = close + 2;
  while (i < text->size()) {
    size_t j = text->find(' ', i);
    if (j == std::string::npos) j = text->size();
    fields.push_back(text->substr(i, j - i));
    i = j + 1;
  }
  return fields;
}

std::string start_ticks(int pid) {
  const auto f = stat_fields(pid);
  return f.size() < 20 ? "" : f[19];
}

std::string host_name() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string own_command_line() {
  const auto raw = read_file("/proc/self/cmdline");
  if (!raw) return "";
  std::string out;
  size_t at = 0;
  while (at < raw->size()) {
    size_t end = raw->find('\0', at);
    if (end == std::string::npos) end = raw->size();
    const std::string arg = raw->substr(at, end - at);
    at = end + 1;
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-./=:,+@%") == std::string::npos;
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? arg : quoted + "'");
  }
  return out;
}

std::string user_name() {
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) return pw->pw_name;
  return std::to_string(::getuid());
}

}  // namespace ssim
