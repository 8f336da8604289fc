#include "apps/ssim/status_table.hpp"

#include "lib/orchestrator/database.hpp"
#include "lib/util/program_errors.hpp"

#include <algorithm>
#include <cstdio>

#include "apps/ssim/status_format.hpp"
#include "lib/util/processes.hpp"
#include "lib/util/clock.hpp"

namespace ssim::app {

void print_status_table(std::ostream& out, const std::vector<const state::EntityRecord*>& rows,
                        const std::string& format) {
  std::string text = format;
  if (text.empty()) {  // the default: PARAMS only when some entity has parameters
    const bool params = std::any_of(rows.begin(), rows.end(), [](auto* e) { return !e->params.empty(); });
    text = std::string("name,type,job,status,exit,elapsed,nodes,") + (params ? "params," : "") + "note";
  }
  for (const auto& line : format_status(parse_status_format(text), rows, now_seconds())) out << line << "\n";
}

void print_status_table(std::ostream& out, const state::Manifest& m) {
  std::vector<const state::EntityRecord*> rows;
  for (const auto& e : m.entities) rows.push_back(&e);
  print_status_table(out, rows);
}

nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner) {
  nlohmann::json entities = nlohmann::json::array();
  int tails = 0;  // files read for last_error, bounded for huge failed sweeps
  for (const auto& e : m.entities) {  // field by field: much faster than initializer lists
    nlohmann::json j = nlohmann::json::object();
    j["name"] = e.name;
    j["type"] = e.type;
    j["ensemble"] = e.ensemble;
    j["job_id"] = e.job_id;
    j["pid"] = e.pid ? nlohmann::json(e.pid) : nlohmann::json();
    j["native_id"] = e.native_id;
    j["status"] = to_string(e.status);
    j["exit_code"] = e.exit_code ? nlohmann::json(*e.exit_code) : nlohmann::json();
    j["signal"] = e.signal ? nlohmann::json(signal_name(*e.signal)) : nlohmann::json();
    j["reason"] = e.reason;
    j["submitted"] = e.submitted;
    j["start"] = e.start;
    j["end"] = e.end;
    j["elapsed"] = std::max(0.0, state::seconds_run(e, now_seconds()));
    j["attempt"] = e.attempt;
    j["nodes"] = e.nodes;
    j["params"] = e.params;
    j["earlier_attempts"] = e.earlier_attempts;
    j["run_dir"] = e.run_dir;
    if (e.type == "database")
      if (const auto a = orchestrator::read_address(e.run_dir); a && a->port)
        j["address"] = a->host + ":" + std::to_string(a->port);  // port: auto chose it
    if (e.status == state::Status::Failed && e.type != "database" && tails++ < 200)
      j["last_error"] = last_program_lines(e.run_dir + "/" + e.name + ".err", 1);  // its own, not mpirun's banner
    entities.push_back(std::move(j));
  }
  nlohmann::json out = {{"experiment", m.experiment}, {"path", m.path},         {"id", m.id},
                        {"launcher", m.launcher},     {"finished", m.finished > 0}, {"entities", entities}};
  out["runner"] = runner ? nlohmann::json{{"pid", runner->pid}, {"host", runner->host}, {"role", runner->role}}
                         : nlohmann::json();
  return out;
}

}  // namespace ssim::app
