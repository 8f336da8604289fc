#include "lib/generate/generate.hpp"
#include "lib/util/experiment_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "lib/generate/configure_file.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/paths.hpp"

namespace ssim::generate {

namespace fs = std::filesystem;

namespace {

// The top-level entries under <path> that ssim owns for this plan.
std::vector<fs::path> owned_entries(const plan::Plan& plan) {
  std::vector<fs::path> out = {fs::path(ssim_dir(plan.path))};
  if (plan.database) out.push_back(plan.database->run_dir);
  std::set<std::string> seen;
  for (const auto& s : plan.steps) {
    const std::string top = s.ensemble.empty() ? s.name : s.ensemble;
    if (seen.insert(top).second) out.push_back(fs::path(plan.path) / top);
  }
  return out;
}

bool is_empty_or_missing(const fs::path& p) {
  std::error_code ec;
  return !fs::exists(p, ec) || (fs::is_directory(p, ec) && fs::is_empty(p, ec));
}

// The experiment recorded at `root`, when its manifest can be read.
std::optional<state::Manifest> previous_experiment(const fs::path& root) {
  std::error_code ec;
  if (!fs::exists(state::manifest_path(root.string()), ec)) return std::nullopt;
  try {
    return state::load_manifest(root.string());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The run directories an earlier run created under `root`, from its manifest (rebased
// onto `root` if the experiment was moved; never anything outside it, whatever the
// manifest says). With `with_parents`, also the folders that hold them (an ensemble's).
std::set<fs::path> generated_by(const state::Manifest& m, const fs::path& root, bool with_parents) {
  std::set<fs::path> out;
  for (const auto& e : m.entities) {
    if (e.run_dir.empty()) continue;
    const fs::path rel = fs::path(e.run_dir).lexically_normal().lexically_relative(fs::path(m.path).lexically_normal());
    const fs::path dir = (root / rel).lexically_normal();
    if (rel.empty() || !is_below(dir, root)) continue;
    out.insert(dir);
    if (with_parents)
      for (fs::path p = dir.parent_path(); is_below(p, root); p = p.parent_path()) out.insert(p);
  }
  return out;
}

void fail(const std::string& what, const fs::path& p, const std::error_code& ec) {
  throw GenerateError("cannot " + what + " " + p.string() + ": " + ec.message());
}

// Made with one mkdir where its parent is there (a member's folder: create_directories
// looks first, a lookup of a path that is not there for each of a million members, which
// a parallel file system's metadata server answers too); its parents made only when missing.
void make_dir(const fs::path& p) {
  if (::mkdir(p.c_str(), 0777) == 0) return;
  std::error_code ec;
  if (errno == EEXIST && fs::is_directory(p, ec)) return;  // a resumed run's, or one ssim made before
  fs::create_directories(p, ec);
  if (ec) fail("create", p, ec);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw GenerateError("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void place_files(const plan::Step& s, const std::string& experiment, GenerateResult& result) {
  const fs::path dir = s.run_dir;
  for (const auto& src : s.program->copy) {
    std::error_code ec;
    const fs::path name =
        fs::path(src).filename().empty() ? fs::path(src).parent_path().filename() : fs::path(src).filename();
    // Links inside a copied folder are copied as links (as cp -r does), never followed:
    // a link to a parent folder would otherwise be copied into itself without end.
    const fs::path from = fs::is_symlink(src, ec) ? fs::canonical(src, ec) : fs::path(src);
    if (ec) fail("copy", src, ec);
    fs::copy(from, dir / name,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks | fs::copy_options::overwrite_existing, ec);
    if (ec) fail("copy", src, ec);
  }
  for (const auto& src : s.program->symlink) {
    fs::path target = fs::path(src);
    if (target.filename().empty()) target = target.parent_path();
    std::error_code ec;
    fs::create_symlink(target, dir / target.filename(), ec);
    if (ec) fail("link", target, ec);
  }
  for (const auto& src : s.program->configure) {
    const Configured c = configure_text(read_file(src), plan::tag_values(s, experiment));
    const fs::path out = dir / fs::path(src).filename();
    std::ofstream o(out, std::ios::binary);
    o << c.text;
    if (!o) throw GenerateError("cannot write " + out.string());
    o.close();
    std::error_code ec;
    fs::permissions(out, fs::status(src).permissions(), ec);
    for (const auto& tag : c.unknown_tags)
      result.warnings.push_back(s.name + ": " + fs::path(src).filename().string() + ": tag ;" + tag +
                                "; has no value and was left as written");
  }
}

}  // namespace

void check_target(const plan::Plan& plan, Existing mode) {
  const fs::path root = plan.path;
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_directory(root, ec))
    throw GenerateError("experiment path " + root.string() + " exists and is not a directory");
  if (mode == Existing::Resume || is_empty_or_missing(root)) return;
  const std::optional<state::Manifest> previous = previous_experiment(root);
  if (mode == Existing::Refuse) {
    if (previous || fs::exists(fs::path(ssim_dir(root.string())), ec))
      throw GenerateError("experiment directory " + root.string() +
                          " already exists (use --overwrite to replace it or --resume to continue it)");
    throw GenerateError(root.string() + " is not empty and is not an ssim experiment; choose another experiment.path");
  }
  if (!previous)
    throw GenerateError("refusing to overwrite " + root.string() + ": it is not empty and is not an ssim experiment");
  if (previous->experiment != plan.name)
    throw GenerateError("refusing to overwrite " + root.string() + ": it holds experiment " + previous->experiment +
                        ", not " + plan.name);
  // What the new plan would create must be absent or the earlier run's own.
  const auto earlier = generated_by(*previous, root, true);
  for (const auto& p : owned_entries(plan))
    if (fs::exists(fs::symlink_status(p, ec)) && !earlier.count(p.lexically_normal()) &&
        p != fs::path(ssim_dir(root.string())))
      throw GenerateError("refusing to overwrite " + p.string() + ": ssim did not create it");
}

void remove_previous(const plan::Plan& plan) {
  const fs::path root = plan.path;
  const auto previous = previous_experiment(root);
  if (!previous) return;
  std::error_code ec;
  for (const auto& p : generated_by(*previous, root, false)) {
    fs::remove_all(p, ec);
    if (ec) fail("remove", p, ec);
    // An ensemble's folder goes once its members are gone, if nothing else is in it.
    for (fs::path parent = p.parent_path(); parent != root && is_below(parent, root); parent = parent.parent_path())
      if (!fs::remove(parent, ec)) break;
  }
  // .ssim itself stays: the run lock in it is held by this process.
  for (const auto& entry : fs::directory_iterator(fs::path(ssim_dir(root.string())), ec))
    if (entry.path().filename() != "lock") fs::remove_all(entry.path(), ec);
}

GenerateResult generate(const plan::Plan& plan, Existing mode) {
  GenerateResult result;
  if (mode == Existing::Overwrite) remove_previous(plan);
  make_dir(fs::path(ssim_dir(plan.path)));
  if (plan.database) make_dir(plan.database->run_dir);
  for (const auto& s : plan.steps) {
    std::error_code ec;
    if (mode == Existing::Resume && fs::is_directory(s.run_dir, ec)) continue;
    make_dir(s.run_dir);
    place_files(s, plan.name, result);
  }
  return result;
}

}  // namespace ssim::generate
