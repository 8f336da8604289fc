#include "lib/plan/program_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "lib/spec/error.hpp"
#include "lib/spec/suggest.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/split.hpp"

namespace ssim::plan {

namespace fs = std::filesystem;

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// "" when `exe` can start, else why not.
std::string why_not(const std::string& exe, const std::string& path_var) {
  if (exe.find('/') != std::string::npos) {
    std::error_code ec;
    if (!fs::exists(exe, ec)) return "\"" + spec::printable(exe) + "\" does not exist";
    if (!executable_file(exe)) return "\"" + spec::printable(exe) + "\" is not an executable file";
    return "";
  }
  for (const auto& dir : split(path_var, ':'))
    if (executable_file((dir.empty() ? std::string(".") : dir) + "/" + exe)) return "";
  // A typo (pyhton3): the closest program name on the same PATH.
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& dir : split(path_var, ':'))
    for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec))
      names.push_back(entry.path().filename().string());
  const std::string near = spec::closest_match(exe, names);
  return "no program \"" + spec::printable(exe) + "\" on the PATH" +
         (near.empty() ? "" : " (did you mean " + spec::printable(near) + "?)");
}

bool provided_by_files(const Step& s) {
  const std::string name = fs::path(s.program->exe).filename().string();
  for (const auto* list : {&s.program->copy, &s.program->symlink})
    for (const auto& f : *list)
      if (fs::path(f).filename().string() == name) return true;
  return false;
}

}  // namespace

namespace {
void check_inference_service(const spec::ExperimentSpec& spec) {
  std::vector<const spec::Inference*> wanted;
  if (spec.orchestrator) wanted.push_back(&spec.orchestrator->inference);
  for (const auto& e : spec.entities)
    if (e.colocated_db) wanted.push_back(&e.colocated_db->inference);
  for (const auto* inference : wanted)
    if (inference->enabled && find_inference_service().empty())
      throw spec::SpecError(spec.file, inference->loc, inference->field,
                            "this ssim has no inference service; " + inference_service_fix());
}
}  // namespace

void check_programs(const spec::ExperimentSpec& spec, const Plan& plan) {
  check_inference_service(spec);  // wherever it runs: ssim-infer goes with this ssim
  if (!runs_here(plan)) return;   // the compute nodes' PATH and file systems decide
  const char* env_path = std::getenv("PATH");
  std::set<std::string> checked;
  for (const auto& e : spec.entities) {
    for (const auto& s : plan.steps) {
      if (s.name != e.name && s.ensemble != e.name) continue;
      if (!s.program->setup.empty() || s.program->batch || provided_by_files(s) || s.program->container)
        continue;  // a container: its image's
      if (s.program->exe.find('/') != std::string::npos && !s.after.empty()) continue;
      std::string path_var = env_path ? env_path : "/usr/bin:/bin";
      if (s.shared_env)
        for (const auto& [k, v] : s.shared_env->from_file)
          if (k == "PATH") path_var = v;
      if (!checked.insert(s.program->exe + '\n' + path_var).second) continue;  // once per program: members share it
      std::string why = why_not(s.program->exe, path_var);
      if (why.empty()) continue;
      // Said as written where that is clearer than the resolved path.
      const std::string& written = e.exe.value;
      std::string notes;
      if (written.find('/') != std::string::npos && written[0] != '/' && written.find("$(") == std::string::npos) {
        why = why.replace(why.find(s.program->exe), s.program->exe.size(), spec::printable(written));
        notes = "relative to the experiment file's folder";
      }
      if (!s.ensemble.empty())
        notes += (notes.empty() ? "" : "; ") + std::string("every member of ") + e.name + " runs it";
      throw spec::SpecError(spec.file, e.exe.loc, e.field + ".exe", why + (notes.empty() ? "" : " (" + notes + ")"));
    }
  }
}

}  // namespace ssim::plan
