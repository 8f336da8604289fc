#pragma once
// What the batch job ssim runs inside says about itself, from its environment: the
// questions the command line and the supervisor ask, answered here, where the knowledge
// of each scheduler's variables lives (apps/ reads none of them).
#include <functional>

namespace ssim::launchers {

using JobGetenv = std::function<const char*(const char*)>;

// Inside a PBS or LSF job: their execution daemons end a job by signalling its session,
// so what ssim starts must stay in it (a process group of its own, not a new session),
// or it would outlive the job.
bool job_ends_with_its_session(const JobGetenv& getenv);

// A non-interactive batch job script (PBS_ENVIRONMENT=PBS_BATCH, an LSF job not started
// with bsub -I): the job ends when the script does, and everything it started with it.
bool in_batch_script(const JobGetenv& getenv);

}  // namespace ssim::launchers
