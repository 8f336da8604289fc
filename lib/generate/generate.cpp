#include "lib/generate/generate.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lib/generate/configure_file.hpp"

namespace ssim::generate {

namespace fs = std::filesystem;

namespace {

// The top-level entries under <path> that ssim owns for this plan.
std::vector<fs::path> owned_entries(const plan::Plan& plan) {
  std::vector<fs::path> out = {fs::path(plan.path) / ".ssim"};
  if (plan.database) out.push_back(plan.database->run_dir);
  std::set<std::string> seen;
  for (const auto& s : plan.steps) {
    const std::string top = s.ensemble.empty() ? s.name : s.ensemble;
    if (seen.insert(top).second) out.push_back(fs::path(plan.path) / top);
  }
  return out;
}

void fail(const std::string& what, const fs::path& p, const std::error_code& ec) {
  throw GenerateError("cannot " + what + " " + p.string() + ": " + ec.message());
}

void make_dir(const fs::path& p) {
  std::error_code ec;
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

void place_files(const plan::Step& s, GenerateResult& result) {
  const fs::path dir = s.run_dir;
  for (const auto& src : s.copy) {
    std::error_code ec;
    const fs::path name = fs::path(src).filename().empty() ? fs::path(src).parent_path().filename()
                                                           : fs::path(src).filename();
    fs::copy(src, dir / name,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec) fail("copy", src, ec);
  }
  for (const auto& src : s.symlink) {
    fs::path target = fs::path(src);
    if (target.filename().empty()) target = target.parent_path();
    std::error_code ec;
    fs::create_symlink(target, dir / target.filename(), ec);
    if (ec) fail("link", target, ec);
  }
  for (const auto& src : s.configure) {
    const Configured c = configure_text(read_file(src), s.params);
    const fs::path out = dir / fs::path(src).filename();
    std::ofstream o(out, std::ios::binary);
    o << c.text;
    if (!o) throw GenerateError("cannot write " + out.string());
    o.close();
    std::error_code ec;
    fs::permissions(out, fs::status(src).permissions(), ec);
    for (const auto& tag : c.unknown_tags)
      result.warnings.push_back(s.name + ": " + fs::path(src).filename().string() + ": tag ;" +
                                tag + "; has no value and was left as written");
  }
}

}  // namespace

void check_target(const plan::Plan& plan, Existing mode) {
  const fs::path root = plan.path;
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_directory(root, ec))
    throw GenerateError("experiment path " + root.string() + " exists and is not a directory");
  if (mode != Existing::Refuse) return;
  if (fs::exists(root / ".ssim", ec))
    throw GenerateError("experiment directory " + root.string() +
                        " already exists (use --overwrite to replace it or --resume to continue it)");
  for (const auto& p : owned_entries(plan))
    if (fs::exists(p, ec))
      throw GenerateError(p.string() + " already exists (use --overwrite to replace it)");
}

GenerateResult generate(const plan::Plan& plan, Existing mode) {
  check_target(plan, mode);
  GenerateResult result;
  if (mode == Existing::Overwrite) {
    for (const auto& p : owned_entries(plan)) {
      std::error_code ec;
      fs::remove_all(p, ec);
      if (ec) fail("remove", p, ec);
    }
  }
  make_dir(fs::path(plan.path) / ".ssim");
  if (plan.database) make_dir(plan.database->run_dir);
  for (const auto& s : plan.steps) {
    std::error_code ec;
    if (mode == Existing::Resume && fs::is_directory(s.run_dir, ec)) continue;
    make_dir(s.run_dir);
    place_files(s, result);
  }
  return result;
}

}  // namespace ssim::generate
