#include "lib/plan/path_checks.hpp"

#include <cstdlib>
#include <filesystem>

#include "lib/spec/yaml_reader.hpp"
#include "lib/util/paths.hpp"

namespace ssim::plan {

namespace fs = std::filesystem;

namespace {

// The path with symbolic links resolved as far as it exists (so that a link to $HOME
// is seen as $HOME), falling back to the lexical form.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : r;
}

}  // namespace

void check_experiment_path(const spec::ExperimentSpec& spec, const std::string& path) {
  const fs::path p = resolved(path);
  auto refuse = [&](const std::string& why) {
    throw spec::SpecError(
        spec.file, spec.path_loc, "experiment.path",
        "the experiment directory " + why + "; give experiment.path a directory of its own (ssim creates it)");
  };
  if (p == p.root_path()) refuse("is the root directory");
  if (const char* home = std::getenv("HOME"); home && *home && p == resolved(home)) refuse("is your home directory");
  if (is_within(resolved(spec.base_dir), p))
    refuse(p == resolved(spec.base_dir) ? "is the experiment file's own directory"
                                        : "holds the experiment file's directory");
}

void check_file_sources(const spec::ExperimentSpec& spec, const std::string& path) {
  const fs::path experiment = resolved(path);
  for (const auto& e : spec.entities) {
    auto check = [&](const std::vector<spec::Text>& list, const char* key) {
      for (size_t i = 0; i < list.size(); ++i) {
        const fs::path source = resolved(fs::path(spec.base_dir) / list[i].value);
        const std::string field = spec::index_field(spec::join_field(e.field, std::string("files.") + key), i);
        if (source == source.root_path())
          throw spec::SpecError(spec.file, list[i].loc, field, "refusing to place the root directory");
        if (std::string(key) != "symlink" && is_within(experiment, source))
          throw spec::SpecError(
              spec.file, list[i].loc, field,
              spec::printable(list[i].value, 200) + " holds the experiment directory; it would be copied into itself");
      }
    };
    check(e.files.copy, "copy");
    check(e.files.symlink, "symlink");
    check(e.files.configure, "configure");
  }
}

}  // namespace ssim::plan
