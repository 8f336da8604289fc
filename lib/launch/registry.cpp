#include "lib/launch/registry.hpp"

#include <stdexcept>

#include "lib/util/errors.hpp"
#include "lib/util/layout.hpp"

namespace ssim::launch {

namespace {
std::vector<LauncherInfo>& registry() {
  static std::vector<LauncherInfo> launchers;
  return launchers;
}
}  // namespace

void add_launcher(LauncherInfo info) {
  for (auto& l : registry())
    if (l.name == info.name) return void(l = std::move(info));
  registry().push_back(std::move(info));
}

const std::vector<LauncherInfo>& launcher_registry() {
  // A program that forgot launchers::register_launchers() would refuse every experiment
  // with a misleading "no launcher named local": said plainly instead.
  if (registry().empty()) throw std::logic_error("no launchers registered: call launchers::register_launchers() first");
  return registry();
}

std::vector<std::string> launcher_names() {
  std::vector<std::string> names = {"auto"};
  for (const auto& l : launcher_registry()) names.push_back(l.name);
  return names;
}

std::unique_ptr<Launcher> make_launcher(const std::string& name) {
  for (const auto& l : launcher_registry())
    if (l.name == name) return l.make();
  throw EnvironmentError("no launcher named " + name + " in this version of ssim");
}

std::string resolve_launcher(const std::string& requested, const std::function<const char*(const char*)>& getenv) {
  if (requested != "auto") return requested;
  for (const auto& l : launcher_registry())
    if (!l.job_variable.empty()) {
      const char* v = getenv(l.job_variable.c_str());
      if (v && *v) return l.name;
    }
  return "local";
}

std::string submit_launcher(const std::function<bool(const std::string&)>& on_path) {
  std::vector<std::string> found;
  for (const auto& l : launcher_registry())
    if (!l.submit_program.empty() && on_path(l.submit_program)) found.push_back(l.name + " (" + l.submit_program + ")");
  if (found.size() > 1) {
    std::string list;
    for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
    throw UsageError("launcher auto: several schedulers can take jobs here: " + list +
                     "; say which with experiment.launcher or --launcher");
  }
  return found.empty() ? "" : found[0].substr(0, found[0].find(' '));
}

bool program_on_path(const std::string& program) { return !find_on_path(program).empty(); }

}  // namespace ssim::launch
