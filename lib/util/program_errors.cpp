#include "lib/util/program_errors.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "lib/util/file_tail.hpp"
#include "lib/util/split.hpp"
#include "lib/util/utf8.hpp"

namespace ssim {

namespace {

// A frame line: Open MPI's 74 dashes, MPICH's 83 equals signs (shorter rules are more
// likely the program's own).
bool frame(const std::string& line) {
  if (line.size() < 70) return false;
  return std::all_of(line.begin(), line.end(), [](char c) { return c == '-'; }) ||
         std::all_of(line.begin(), line.end(), [](char c) { return c == '='; });
}

bool starts(const std::string& line, const char* prefix) { return line.rfind(prefix, 0) == 0; }

// One launcher line outside a frame.
bool launcher_line(const std::string& line) {
  for (const char* p :
       {"srun: error:", "srun: Job step aborted", "srun: launch/", "srun: got SIGCONT", "srun: forcing job termination",
        "slurmstepd: error:", "[mpiexec@", "mpirun noticed that", "mpirun: Forwarding signal", "Application ",
        "aprun: ", "jsrun ", "jsrun: ", "Error: Remote JSM", "[proxy:"})
    if (starts(line, p)) return true;
  return false;
}

}  // namespace

std::string program_lines(const std::string& text, int lines) {
  const std::vector<std::string> all = split(text, '\n');
  // From the end, where the launcher's banners are: the first frame line seen closes a
  // banner, the next opens it. A tail that starts inside a banner is then harmless.
  std::vector<std::string> kept;
  bool inside = false;
  for (auto it = all.rbegin(); it != all.rend() && static_cast<int>(kept.size()) < lines; ++it) {
    if (frame(*it)) {
      inside = !inside;
      continue;
    }
    if (inside || launcher_line(*it)) continue;
    // Trailing blanks and the program's own rules ("-----", "====="): the line that says
    // what happened is above them.
    if (kept.empty() && !std::any_of(it->begin(), it->end(), [](unsigned char c) { return std::isalnum(c); })) continue;
    kept.push_back(sanitized_utf8(*it, false));  // no terminal control, no invalid UTF-8
  }
  std::string out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) out += (out.empty() ? "" : "\n") + *it;
  return out;
}

std::string last_program_lines(const std::string& path, int lines) {
  return program_lines(last_lines(path, 400, 64 * 1024), lines);
}

}  // namespace ssim
