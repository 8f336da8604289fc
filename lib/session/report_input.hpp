#pragma once
// What `ssim report` and the dashboard's /report hand to lib/report: the refreshed
// manifest, the experiment file and the failed entities' last stderr lines.
#include "lib/session/current_state.hpp"
#include "lib/report/report.hpp"

namespace ssim::session {

report::ReportInput report_input(const CurrentState& s);

// The report of experiment `path` as it stands (ssim report -, the dashboard's /report).
std::string experiment_report(const std::string& path);

// Writes it to `file` ("": <path>/report.html) by the user-file rules (a device or FIFO
// written through, a link refused); returns the file and its size in bytes.
struct WrittenReport {
  std::string file;
  size_t bytes = 0;
};
WrittenReport write_report(const std::string& path, const std::string& file);

}  // namespace ssim::session
