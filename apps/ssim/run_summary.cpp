#include "apps/ssim/run_summary.hpp"

#include "apps/ssim/status_summary.hpp"
#include "apps/ssim/status_table.hpp"
#include "lib/util/clock.hpp"

#include "lib/state/entity_error.hpp"
#include "lib/session/status_json.hpp"
#include "lib/state/metrics.hpp"

namespace ssim::app {

namespace {

std::string params_text(const state::EntityRecord& e) {  // its own parameters, as written
  std::string out;
  for (const auto& [k, v] : e.extra().params) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

}  // namespace

void print_run_end(std::ostream& out, const state::Manifest& m, const std::string& file, bool terminal) {
  int entities = 0;
  for (const auto& e : m.entities) entities += e.type != state::EntityKind::Database;
  if (entities <= (terminal ? kSummaryAbove : kListAbovePiped)) return print_status_table(out, m);

  print_status_summary(out, state::summarise(m), now_seconds());
  int shown = 0, failed = 0;
  bool interrupted = false;
  for (const auto& e : m.entities) {
    interrupted = interrupted || e.reason.rfind("interrupted by", 0) == 0;
    if (e.status != state::Status::Failed || e.type == state::EntityKind::Database) continue;
    ++failed;
    if (shown++ >= 10) continue;
    std::string line = "  " + e.name + "  " + e.reason;
    if (const auto last = state::entity_last_error(e.run_dir, e.name, 1); !last.empty()) line += " | " + last;
    if (const auto p = params_text(e); !p.empty()) line += "  [" + p + "]";
    out << line << "\n";
  }
  if (failed > 10) out << "  ... and " << failed - 10 << " more\n";
  int lost = 0;
  std::string first_lost;
  for (const auto& e : m.entities)
    if (e.reason.find(state::kMetricPointsLost) != std::string::npos && lost++ == 0) first_lost = e.name;
  if (lost)
    out << state::kMetricPointsLost << " by " << lost << (lost > 1 ? " entities" : " entity") << " (" << first_lost
        << (lost > 1 ? ", ..." : "") << "): ssim status " << m.path << " says which\n";
  if (failed) out << "every failure: ssim status " << m.path << " --filter failed\n";
  out << "the whole run: ssim report " << m.path << " -o " << m.experiment << ".html\n";
  if (interrupted) out << "interrupted: ssim run " << file << " --resume runs what did not complete\n";
}

void print_where_they_stand(std::ostream& out, const state::Manifest& m, bool json, bool terminal) {
  if (json)
    out << session::status_json(m, std::nullopt).dump(2) << "\n";
  else
    print_run_end(out, m, m.file, terminal);
}

}  // namespace ssim::app
