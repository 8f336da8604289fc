#pragma once
#include "apps/ssim/load.hpp"
#include "apps/ssim/run_session.hpp"

namespace ssim::app {

// ssim run --batch: generates the experiment, writes <path>/.ssim/batch.sbatch (whose
// job runs `ssim run FILE --in-batch` inside its allocation), submits it with sbatch and
// records the job in the manifest, so `ssim status` shows it and, once it runs, the
// entities inside it. Returns the exit code.
int submit_experiment(const Loaded& loaded, const RunRequest& request);

// The script `ssim run --batch` submits (for --dry-run too).
std::string experiment_batch_script(const plan::Plan& plan, const std::string& file);

}  // namespace ssim::app
