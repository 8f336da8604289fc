#include "apps/ssim/status_table.hpp"

#include <algorithm>
#include <cstdio>

#include "launchers/local/proc.hpp"
#include "lib/util/clock.hpp"

namespace ssim::app {

namespace {

double elapsed(const state::EntityRecord& e) {
  if (e.start <= 0) return 0;
  const double end = e.end > 0 ? e.end : (state::is_terminal(e.status) ? e.start : now_seconds());
  return std::max(0.0, end - e.start);
}

std::string format_elapsed(double s) {
  char buf[32];
  if (s <= 0) return "-";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, (int(s) % 3600) / 60);
  return buf;
}

std::string exit_text(const state::EntityRecord& e) {
  if (e.signal) return launchers::signal_name(*e.signal);
  if (e.exit_code) return std::to_string(*e.exit_code);
  return "-";
}

}  // namespace

void print_status_table(std::ostream& out, const state::Manifest& m) {
  const std::vector<std::string> head = {"NAME", "TYPE", "JOB", "STATUS", "EXIT", "ELAPSED"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : m.entities)
    rows.push_back({e.name, e.type, !e.native_id.empty() ? e.native_id : e.pid ? std::to_string(e.pid) : e.job_id.empty() ? "-" : e.job_id, to_string(e.status), exit_text(e),
                    format_elapsed(elapsed(e)), e.status == state::Status::Completed ? "" : e.reason});
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells, const std::string& note) {
    std::string s;
    for (size_t c = 0; c < head.size(); ++c) s += cells[c] + std::string(width[c] - cells[c].size() + 2, ' ');
    s += note;
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  };
  line(head, "NOTE");
  for (const auto& r : rows) line({r.begin(), r.begin() + 6}, r[6]);
}

nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner) {
  nlohmann::json entities = nlohmann::json::array();
  for (const auto& e : m.entities) {
    nlohmann::json j = {{"name", e.name},
                        {"type", e.type},
                        {"ensemble", e.ensemble},
                        {"job_id", e.job_id},
                        {"pid", e.pid ? nlohmann::json(e.pid) : nlohmann::json()},
                        {"native_id", e.native_id},
                        {"status", to_string(e.status)},
                        {"exit_code", e.exit_code ? nlohmann::json(*e.exit_code) : nlohmann::json()},
                        {"signal", e.signal ? nlohmann::json(launchers::signal_name(*e.signal)) : nlohmann::json()},
                        {"reason", e.reason},
                        {"start", e.start},
                        {"end", e.end},
                        {"elapsed", elapsed(e)},
                        {"attempt", e.attempt},
                        {"earlier_attempts", e.earlier_attempts},
                        {"run_dir", e.run_dir}};
    entities.push_back(std::move(j));
  }
  nlohmann::json out = {{"experiment", m.experiment}, {"path", m.path},         {"id", m.id},
                        {"launcher", m.launcher},     {"finished", m.finished > 0}, {"entities", entities}};
  out["runner"] = runner ? nlohmann::json{{"pid", runner->pid}, {"host", runner->host}, {"role", runner->role}}
                         : nlohmann::json();
  return out;
}

}  // namespace ssim::app
