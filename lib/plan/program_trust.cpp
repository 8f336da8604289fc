#include "lib/plan/program_trust.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "lib/util/layout.hpp"

namespace ssim::plan {

namespace fs = std::filesystem;

namespace {

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Why `dir` lets others replace what is in it, or "".
std::string open_folder(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return "";
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return "its folder " + dir + " can be written by every user (mode " + octal(st.st_mode) + ")";
  return "";
}

}  // namespace

std::string replaceable_by_others(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  if (st.st_mode & S_IWOTH) return "every user can write it (mode " + octal(st.st_mode) + ")";
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return "it belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  std::error_code ec;
  for (const std::string& p : {path, fs::canonical(path, ec).string()}) {  // the link's folder and the file's
    if (p.empty()) continue;
    if (const std::string why = open_folder(fs::path(p).parent_path().string()); !why.empty()) return why;
  }
  return "";
}

std::vector<std::string> program_warnings(const spec::ExperimentSpec& spec, const Plan& plan) {
  std::vector<std::string> out;
  if (!runs_here(plan)) return out;
  const char* env_path = std::getenv("PATH");
  std::set<std::string> seen;
  for (const auto& e : spec.entities) {
    for (const auto& s : plan.steps) {
      if (s.name != e.name && s.ensemble != e.name) continue;
      if (!s.program->setup.empty() || s.program->batch || s.program->container) continue;
      std::string path_var = env_path ? env_path : "/usr/bin:/bin";
      if (s.shared_env)
        for (const auto& [k, v] : s.shared_env->from_file)
          if (k == "PATH") path_var = v;
      const std::string file = find_on_path(s.program->exe, path_var);
      if (file.empty() || !seen.insert(file).second) break;  // once per program: members share it
      if (const std::string why = replaceable_by_others(file); !why.empty())
        out.push_back(spec.file + ":" + std::to_string(e.exe.loc.line) + ":" + std::to_string(e.exe.loc.col) + ": " +
                      e.field + ".exe: warning: " + file + " will run, and another user could replace it: " + why);
      break;
    }
  }
  return out;
}

}  // namespace ssim::plan
