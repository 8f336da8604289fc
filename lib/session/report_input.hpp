#pragma once
// What `ssim report` and the dashboard's /report hand to lib/report: the refreshed
// manifest, the experiment file and the failed entities' last stderr lines.
#include "lib/session/current_state.hpp"
#include "lib/report/report.hpp"

namespace ssim::session {

report::ReportInput report_input(const CurrentState& s);

}  // namespace ssim::session
