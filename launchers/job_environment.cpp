#include "launchers/job_environment.hpp"

#include <cstring>

namespace ssim::launchers {

namespace {
bool is(const char* value, const char* expected) { return value && std::strcmp(value, expected) == 0; }
bool set(const char* value) { return value && *value; }
}  // namespace

bool job_ends_with_its_session(const JobGetenv& getenv) { return set(getenv("PBS_JOBID")) || set(getenv("LSB_JOBID")); }

bool in_batch_script(const JobGetenv& getenv) {
  return is(getenv("PBS_ENVIRONMENT"), "PBS_BATCH") ||
         (set(getenv("LSB_JOBID")) && !is(getenv("LSB_INTERACTIVE"), "Y"));
}

}  // namespace ssim::launchers
