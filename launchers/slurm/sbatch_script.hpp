#pragma once
// Batch scripts for sbatch: directives from the batch settings and options, the setup
// lines, then the command. Everything ssim puts in the script is quoted; `setup:` lines
// are shell by design and go in as written.
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::launchers::slurm {

struct BatchJob {
  std::string name;
  spec::BatchSettings settings;
  std::vector<std::pair<std::string, std::string>> resources;  // --ntasks etc. of the step
  std::vector<std::string> setup;  // experiment setup, then the batch's own
  std::string run_dir;             // where it runs; output goes to out / err
  std::string out, err;
  plan::Env env;                   // exported before the setup lines
  std::vector<std::string> command;
};

// Throws std::invalid_argument for a value that cannot go into a directive (newline).
std::string sbatch_script(const BatchJob& job);

}  // namespace ssim::launchers::slurm
