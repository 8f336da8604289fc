#include "lib/util/proc_stat.hpp"

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

}  // namespace ssim
