#include "lib/launch/container_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "lib/launch/container_command.hpp"
#include "lib/spec/error.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/split.hpp"

namespace ssim::launch {

namespace fs = std::filesystem;
using plan::ContainerRuntime;

bool exists_in(const std::string& image, const std::string& path) {
  struct stat st {};
  return ::lstat((fs::path(image) / fs::path(path).relative_path()).c_str(), &st) == 0;  // a link counts
}

bool is_directory_image(const plan::Container& c) {
  std::error_code ec;
  return c.image_is_path && fs::is_directory(c.image, ec);
}

namespace {

// The PATH a program is looked for on inside: the one the runtime passes in (the host's,
// or the entity's own env PATH) and the one images are built with.
const char* kImagePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// is_directory_image, asked once per container: an ensemble's members share theirs.
class DirectoryImages {
 public:
  bool operator()(const plan::Container& c) {
    const auto [it, added] = known_.try_emplace(&c, false);
    if (added) it->second = is_directory_image(c);
    return it->second;
  }

 private:
  std::map<const plan::Container*, bool> known_;
};

const spec::Entity* entity_of(const spec::ExperimentSpec& spec, const plan::Step& s) {
  for (const auto& e : spec.entities)
    if (e.name == s.name || e.name == s.ensemble) return &e;
  return nullptr;
}

[[noreturn]] void fail(const spec::ExperimentSpec& spec, const plan::Container& c, const spec::Loc& loc,
                       const std::string& field, const std::string& why) {
  throw spec::SpecError(spec.file, loc, c.field + (field.empty() ? "" : "." + field), why);
}

void check_runtime(const spec::ExperimentSpec& spec, const plan::Container& c, bool has_setup) {
  if (c.runtime_missing)
    fail(spec, c, c.loc, "runtime",
         "no container runtime here (looked for apptainer, singularity, ch-run, podman, docker on the PATH); "
         "install one, or name it and load it in setup:");
  const std::string program = plan::runtime_program(c.runtime);
  if (!has_setup && find_on_path(program).empty())
    fail(spec, c, c.loc, "runtime",
         "no " + program + " on the PATH (" + plan::to_string(c.runtime) +
             "'s); install it, or load it with a setup: line (module load " + plan::to_string(c.runtime) + ")");
}

void check_image(const spec::ExperimentSpec& spec, const plan::Container& c) {
  if (!c.image_is_path) return;  // a name or URI: only the runtime can tell
  std::error_code ec;
  if (!fs::exists(c.image, ec))
    fail(spec, c, c.image_loc, "image", "\"" + spec::printable(c.image) + "\" does not exist");
  if (c.runtime == ContainerRuntime::Charliecloud && !fs::is_directory(c.image, ec) &&
      fs::path(c.image).extension() != ".sqfs")
    fail(spec, c, c.image_loc, "image",
         "\"" + spec::printable(c.image) +
             "\" is neither a directory image nor a SquashFS (.sqfs) file, "
             "which ch-run runs (ch-convert makes one from a .tar.gz or an OCI image)");
}

// "" when `s`'s program is in the image (or will be bound in), else why not.
std::string program_missing(const plan::Step& s, const plan::Container& c) {
  if (s.program->exe.find('/') != std::string::npos) {
    std::error_code ec;
    if (exists_in(c.image, s.program->exe) || fs::exists(s.program->exe, ec)) return "";  // a host file is bound in
    return "\"" + spec::printable(s.program->exe) + "\" is not in the image " + spec::printable(c.image);
  }
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  if (s.shared_env)
    for (const auto& [k, v] : s.shared_env->from_file)
      if (k == "PATH") path = v;
  for (const std::string& list : {path, std::string(kImagePath)})
    for (const auto& dir : split(list, ':'))
      if (!dir.empty() && dir[0] == '/' && exists_in(c.image, dir + "/" + s.program->exe)) return "";
  return "no program \"" + spec::printable(s.program->exe) + "\" in the image " + spec::printable(c.image) + " (its " +
         kImagePath + " and the PATH passed in)";
}

bool under_tmp(const std::string& target) { return target == "/tmp" || target.rfind("/tmp/", 0) == 0; }

// ch-run binds /tmp itself (unless --private-tmp): what is under it needs no place.
bool needs_mount_point(const std::string& target) { return !under_tmp(target); }

// What ch-run binds as the container's /tmp: the host's $TMPDIR, or /tmp without one.
std::string ch_run_tmp() {
  const char* tmpdir = std::getenv("TMPDIR");
  if (!tmpdir || !*tmpdir) return "/tmp";
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(tmpdir, ec);
  return ec ? tmpdir : real.string();
}

// A folder under /tmp that ch-run is to bind cannot be made under its own /tmp when that
// is another folder of the host ($TMPDIR elsewhere): ch-run fails at the start with
// "can't mkdir ... under existing bind-mount". Said before anything starts.
void check_tmp_binds(const spec::ExperimentSpec& spec, const plan::Container& c, const std::vector<plan::Bind>& binds) {
  if (c.runtime != ContainerRuntime::Charliecloud) return;
  const std::string tmp = ch_run_tmp();
  std::error_code ec;
  if (tmp == "/tmp" || fs::weakly_canonical("/tmp", ec).string() == tmp) return;
  for (const auto& b : binds)
    if (under_tmp(b.target) && b.target != "/tmp")
      fail(spec, c, c.loc, "",
           "ch-run makes $TMPDIR (" + spec::printable(tmp) + ") the container's /tmp, so " + spec::printable(b.target) +
               " cannot be bound inside it: put experiment.path outside /tmp, or run " +
               "ssim with TMPDIR unset or /tmp");
}

// Each shard's run directory (lib/orchestrator's shards_of): the orchestrator's, or one
// per shard beneath it.
std::vector<std::string> orchestrator_run_dirs(const plan::Plan& plan) {
  const plan::Database& db = *plan.database;
  if (db.shards == 1) return {db.run_dir};
  std::vector<std::string> dirs;
  for (int i = 0; i < db.shards; ++i) dirs.push_back(db.run_dir + "/orchestrator_" + std::to_string(i));
  return dirs;
}

}  // namespace

std::vector<MountPoint> mount_points(const plan::Plan& plan) {
  std::vector<MountPoint> out;
  std::set<std::string> seen;
  const std::string package = python_package_dir();
  DirectoryImages directory_image;
  auto add = [&](const plan::Container& c, const std::vector<plan::Bind>& binds) {
    if (c.runtime != ContainerRuntime::Charliecloud || !directory_image(c)) return;
    for (const auto& b : binds) {
      const std::string path = (fs::path(c.image) / fs::path(b.target).relative_path()).string();
      if (needs_mount_point(b.target) && !exists_in(c.image, b.target) && seen.insert(path).second)
        out.push_back({&c, b.target, path});
    }
  };
  if (plan.database && plan.database->container)
    for (const auto& shard : orchestrator_run_dirs(plan)) add(*plan.database->container, {{shard, shard, false}});
  for (const auto& s : plan.steps)
    if (s.program->container && s.program->container->runtime == ContainerRuntime::Charliecloud &&
        directory_image(*s.program->container))
      add(*s.program->container, mounts_for(s, package).binds);
  return out;
}

void check_containers(const spec::ExperimentSpec& spec, const plan::Plan& plan) {
  if (plan.database && plan.database->container) {  // the server is the image's
    const plan::Container& c = *plan.database->container;
    check_runtime(spec, c, !plan.setup.empty());
    check_image(spec, c);
    for (const auto& shard : orchestrator_run_dirs(plan)) check_tmp_binds(spec, c, {{shard, shard, false}});
    plan::Step server;
    server.edit().exe = plan.database->binary;
    if (is_directory_image(c) && plan.setup.empty())
      if (const std::string why = program_missing(server, c); !why.empty())
        fail(spec, c, c.loc, "", why + " (orchestrator.binary)");
  }
  std::set<const plan::Container*> seen;
  std::set<std::string> programs;
  DirectoryImages directory_image;
  for (const auto& s : plan.steps) {
    if (!s.program->container) continue;
    const plan::Container& c = *s.program->container;
    const bool first = seen.insert(&c).second;  // an ensemble's members share theirs
    const bool new_program =
        directory_image(c) && s.program->setup.empty() && programs.insert(s.program->exe + '\n' + c.image).second;
    if (!first && !new_program) continue;
    const spec::Entity* e = entity_of(spec, s);
    if (first) {
      check_runtime(spec, c, !s.program->setup.empty());
      check_image(spec, c);
      check_tmp_binds(spec, c, mounts_for(s, python_package_dir()).binds);
    }
    if (!new_program) continue;
    if (const std::string why = program_missing(s, c); !why.empty())
      throw spec::SpecError(spec.file, e ? e->exe.loc : c.loc, e ? e->field + ".exe" : c.field, why);
  }
  for (const auto& point : mount_points(plan)) {
    // ch-run cannot make it (the image is mounted read-only); ssim run makes it, where it may.
    std::error_code ec;
    fs::path existing = point.path;
    while (!fs::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path())
      existing = existing.parent_path();
    if (::access(existing.c_str(), W_OK) != 0)
      fail(spec, *point.container, point.container->image_loc, "image",
           "the image has no " + point.target + " to bind it on, and ssim may not make one in " +
               spec::printable(existing.string()) + ": make it (mkdir -p " + spec::printable(point.path) +
               ") or put experiment.path under /tmp");
  }
}

void make_mount_points(const spec::ExperimentSpec& spec, const plan::Plan& plan) {
  for (const auto& point : mount_points(plan)) {
    std::error_code ec;
    fs::create_directories(point.path, ec);
    if (ec)
      fail(spec, *point.container, point.container->image_loc, "image",
           "cannot make " + spec::printable(point.path) + " to bind " + point.target + " on: " + ec.message());
  }
}

}  // namespace ssim::launch
