#pragma once
// The report's sections; each appends its HTML to `out`. Internal to lib/report.
#include <string>
#include <vector>

#include "lib/report/report.hpp"

namespace ssim::report {

// Entities grouped as the report shows them: the database, the models, each ensemble.
struct Group {
  std::string title;
  std::vector<const state::EntityRecord*> entities;
  bool ensemble = false;
};
std::vector<Group> groups_of(const state::Manifest& m);

// Seconds from start to end (or to `now` while it runs); negative when it never started.
double runtime_of(const state::EntityRecord& e, double now);
// The colour of a status (CSS).
const char* colour_of(state::Status s);

void timeline_section(const ReportInput& in, const std::vector<Group>& groups, std::string& out);
void ensemble_section(const ReportInput& in, const Group& group, std::string& out);
void database_section(const ReportInput& in, std::string& out);
void inference_section(const ReportInput& in, std::string& out);
void metrics_section(const ReportInput& in, const std::vector<Group>& groups, std::string& out);

}  // namespace ssim::report
