#include "lib/session/experiment_ref.hpp"

#include <filesystem>

#include "lib/session/load.hpp"
#include "lib/state/history.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

namespace fs = std::filesystem;

namespace {
bool is_experiment(const fs::path& p) {
  std::error_code ec;
  return fs::exists(state::manifest_path(p.string()), ec);
}
}  // namespace

std::string resolve_experiment(const std::string& exp) {
  const fs::path cwd = fs::current_path();
  if (exp.empty()) {
    auto path = state::latest_from_cwd(cwd.string());
    if (!path || !is_experiment(*path))
      throw UsageError("no experiment was run from " + cwd.string() + "; name one (directory or YAML file)");
    return *path;
  }
  const fs::path p = fs::absolute(exp).lexically_normal();
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    if (!is_experiment(p)) throw UsageError(exp + " is not an ssim experiment directory (no .ssim/manifest.json)");
    return p.string();
  }
  if (fs::is_regular_file(p, ec)) {
    if (auto path = state::latest_from_file(p.string()); path && is_experiment(*path)) return *path;
    const auto loaded = load(exp);  // where this file would put its experiment from here
    if (is_experiment(loaded.plan.path)) return loaded.plan.path;
    throw UsageError(exp + " has not been run (no experiment at " + loaded.plan.path + ")");
  }
  throw UsageError("no such experiment: " + exp);
}

std::pair<std::string, std::vector<std::string>> split_experiment_and_names(const std::vector<std::string>& words) {
  std::error_code ec;
  if (!words.empty() && std::filesystem::exists(words[0], ec))
    return {resolve_experiment(words[0]), {words.begin() + 1, words.end()}};
  return {resolve_experiment(""), words};
}

}  // namespace ssim::session
