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

// The line of the last Python traceback that names the exception (the first line after
// the traceback's indented frames), or `all.size()` when there is none.
size_t python_exception_line(const std::vector<std::string>& all) {
  size_t t = all.size();
  for (size_t i = all.size(); i-- > 0;)
    if (starts(all[i], "Traceback (most recent call last):")) {
      t = i;
      break;
    }
  if (t == all.size()) return t;
  for (size_t i = t + 1; i < all.size(); ++i)
    if (!all[i].empty() && all[i][0] != ' ' && all[i][0] != '\t') return i;
  return all.size();
}

}  // namespace

std::string program_lines(const std::string& text, int lines) {
  const std::vector<std::string> all = split(text, '\n');
  // From the end, where the launcher's banners are: the first frame line seen closes a
  // banner, the next opens it. A tail that starts inside a banner is then harmless.
  std::vector<std::string> kept;
  size_t first_kept = all.size();  // index in `all` of the earliest line kept
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
    first_kept = static_cast<size_t>(all.rend() - it) - 1;
  }
  // A Python exception whose message runs over several lines (pybind11's "incompatible
  // constructor arguments ... Invoked with: ..."): its own line, "TypeError: ...", says
  // what happened, not the message's last line.
  // (The message is what follows it, up to the end: a few lines, not a program's later output.)
  if (const size_t e = python_exception_line(all); e <= first_kept && first_kept < all.size() && first_kept - e <= 20) {
    kept.clear();
    for (size_t i = e; i < all.size() && static_cast<int>(kept.size()) < lines; ++i)
      kept.insert(kept.begin(), sanitized_utf8(all[i], false));
  }
  std::string out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) out += (out.empty() ? "" : "\n") + *it;
  return out;
}

std::string last_program_lines(const std::string& path, int lines) {
  return program_lines(last_lines(path, 400, 64 * 1024), lines);
}

}  // namespace ssim
