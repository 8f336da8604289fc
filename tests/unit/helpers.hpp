#pragma once
// Small helpers shared by the unit tests.
#include <filesystem>
#include <string>

#include "launchers/batch/batch_job.hpp"
#include "lib/plan/plan.hpp"
#include "launchers/registry.hpp"
#include "lib/spec/parse.hpp"

namespace ssim::test {

// What ssim parses with: the launcher registry's names, the default member cap.
inline spec::ParseOptions parse_options() {
  spec::ParseOptions options;
  options.launchers = launch::launcher_names();
  return options;
}

inline spec::ExperimentSpec parse(const std::string& yaml, const std::string& base = "/nonexistent") {
  return spec::parse_experiment(yaml, "exp.yaml", base, parse_options());
}

inline plan::Plan plan_of(const std::string& yaml, const std::string& cwd = "/work") {
  return plan::build_plan(parse(yaml), plan::PlanContext{cwd, "local", ""});
}

// Message of the SpecError that parsing and planning `yaml` throws, or "" if none.
inline std::string error_of(const std::string& yaml) {
  try {
    plan_of(yaml);
  } catch (const spec::SpecError& e) {
    return e.what();
  }
  return "";
}

// A job of one task and one GPU in /r, for the batch scripts' option tests.
inline launchers::BatchJob one_gpu_job() {
  launchers::BatchJob job;
  job.name = "train";
  job.res.ntasks = 1;
  job.res.gpus_per_task = 1;
  job.run_dir = "/r";
  job.out = "/r/train.out";
  job.err = "/r/train.err";
  job.command = {"python3"};
  return job;
}

// A fresh directory under the system temp dir, removed when the object goes away.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ssim-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace ssim::test
