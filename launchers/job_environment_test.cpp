#include "launchers/job_environment.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string>

using namespace ssim::launchers;

namespace {
JobGetenv env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* n) -> const char* {
    const auto it = vars.find(n);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST_CASE("job environment: PBS and LSF end a job by its session, and their batch scripts end the job") {
  CHECK(job_ends_with_its_session(env({{"PBS_JOBID", "12.pbs"}})));
  CHECK(job_ends_with_its_session(env({{"LSB_JOBID", "7"}})));
  CHECK_FALSE(job_ends_with_its_session(env({{"SLURM_JOB_ID", "3"}})));
  CHECK(in_batch_script(env({{"PBS_JOBID", "12.pbs"}, {"PBS_ENVIRONMENT", "PBS_BATCH"}})));
  CHECK_FALSE(in_batch_script(env({{"PBS_JOBID", "12.pbs"}, {"PBS_ENVIRONMENT", "PBS_INTERACTIVE"}})));
  CHECK(in_batch_script(env({{"LSB_JOBID", "7"}})));
  CHECK_FALSE(in_batch_script(env({{"LSB_JOBID", "7"}, {"LSB_INTERACTIVE", "Y"}})));
  CHECK_FALSE(in_batch_script(env({})));
}
