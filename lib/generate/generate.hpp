#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::generate {

// The experiment directory cannot be created as asked (exists, not writable...).
struct GenerateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Existing { Refuse, Overwrite, Resume };

struct GenerateResult {
  std::vector<std::string> warnings;  // e.g. unknown ;tags; in configured files
};

// Checks, before anything is written, that the plan's directories may be created:
// Refuse wants <path> missing or empty; Overwrite wants it missing, empty, or an ssim
// experiment of the same name whose manifest lists every run directory the new plan
// would replace; Resume takes what is there.
void check_target(const plan::Plan& plan, Existing mode);

// Call check_target first (app::claim_experiment does, under the run lock).
// Creates <path>/.ssim, the database and entity run directories, and copies, links and
// configures the listed files. With Overwrite, first removes only what the earlier
// run generated (the run directories its manifest lists, and .ssim's contents but the
// lock), never anything else. With Resume, keeps existing run directories and only
// fills in what is missing.
GenerateResult generate(const plan::Plan& plan, Existing mode);

}  // namespace ssim::generate
