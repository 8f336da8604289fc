#pragma once
// What a plan leaves open to other users, said by `ssim validate` before anything runs
// (docs/safety.md "The database and its doors").
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace ssim::plan {

// One "ssim: warning: ..." line per door left open: today a database started without a
// password (`password: none`), naming where it listens.
std::vector<std::string> exposure_warnings(const Plan& plan);

}  // namespace ssim::plan
