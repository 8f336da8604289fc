#pragma once
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"
#include "lib/session/load.hpp"
#include "lib/session/run.hpp"

namespace ssim::session {

// ssim run --batch: generates the experiment, writes <path>/.ssim/batch.<ext> (whose
// job runs `ssim run FILE --in-batch` inside its allocation), submits it to the
// experiment's scheduler and records the job in the manifest, so `ssim status` shows it
// and, once it runs, the entities inside it. `file`: the experiment file as given.
// `resume`: the earlier experiment (over: its job and what it started) is continued, as
// ssim run --resume does, by a job that runs `ssim run FILE --in-batch --resume`.
struct Submitted {
  std::string job_id;
  std::string path;         // the experiment folder
  int nodes = 1;            // what the job asks for
  std::string script_path;  // the batch script written
};
Submitted submit_experiment(const Loaded& loaded, const std::string& file, bool overwrite, bool resume,
                            const Notes& notes = {});

// The launcher's batch submission; UsageError (exit 2) when it has no scheduler.
launch::BatchSubmission& batch_submission(launch::Launcher& launcher);
// What that job runs.
std::vector<std::string> in_batch_command(const std::string& file, bool resume = false);

// The launcher `ssim run --batch` uses: the file's (or --launcher's); with launcher auto
// outside any job, the first scheduler whose submit command is installed here.
Loaded load_for_batch(const std::string& file, const std::string& launcher_option);

}  // namespace ssim::session
