#pragma once
// A program another user could replace before it runs: the file writable by others, in a
// folder others can write (without the sticky bit that stops them renaming over it), or
// owned by another user than you and root. Said as a warning before anything starts, as
// ssh does with a key others can read; the run goes on (a shared group folder may be
// meant).
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::plan {

// Why `path` (a program as found) could be replaced by another user, or "".
std::string replaceable_by_others(const std::string& path);

// "FILE:LINE:COL: FIELD.exe: warning: ..." for each entity whose program, found where it
// runs (the local launcher, no setup lines, no container), others could replace; once per
// program. The file that will run is named.
std::vector<std::string> program_warnings(const spec::ExperimentSpec& spec, const Plan& plan);

}  // namespace ssim::plan
