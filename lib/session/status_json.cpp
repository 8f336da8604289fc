#include "lib/session/status_json.hpp"

#include <algorithm>

#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/inference_files.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/processes.hpp"
#include "lib/state/entity_error.hpp"

namespace ssim::session {

nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner) {
  nlohmann::json entities = nlohmann::json::array();
  int tails = 0;                      // files read for last_error, bounded for huge failed sweeps
  for (const auto& e : m.entities) {  // field by field: much faster than initializer lists
    nlohmann::json j = nlohmann::json::object();
    j["name"] = e.name;
    j["type"] = to_string(e.type);
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
    j["held"] = e.held;
    j["nodes"] = e.nodes;
    j["params"] = e.params;
    j["earlier_attempts"] = e.earlier_attempts;
    j["run_dir"] = e.run_dir;
    if (e.type == state::EntityKind::Database)
      if (const auto a = orchestrator::read_address(e.run_dir); a && a->port)
        j["address"] = a->host + ":" + std::to_string(a->port);  // port: auto chose it
    if (e.goal) {
      const auto reached = state::goal_outcome(e, state::read_metrics(e));
      nlohmann::json g = {{"metric", e.goal->metric},
                          {e.goal->at_least ? "at_least" : "at_most", e.goal->target},
                          {"stop_on_goal", e.goal->stop},
                          {"reached", reached.has_value()}};
      if (reached) {
        g["value"] = reached->value;
        g["step"] = reached->step ? nlohmann::json(*reached->step) : nlohmann::json();
        g["seconds"] = reached->seconds >= 0 ? nlohmann::json(reached->seconds) : nlohmann::json();
      }
      j["goal"] = std::move(g);
    }
    if (e.status == state::Status::Failed && e.type != state::EntityKind::Database && tails++ < 200)
      j["last_error"] = state::entity_last_error(e.run_dir, e.name, 1);  // its own, not mpirun's banner
    entities.push_back(std::move(j));
  }
  nlohmann::json out = {{"experiment", m.experiment}, {"path", m.path},       {"id", m.id},    {"launcher", m.launcher},
                        {"finished", m.finished > 0}, {"entities", entities}, {"file", m.file}};
  nlohmann::json services = nlohmann::json::array();
  for (const auto& e : m.entities)
    if (e.type == state::EntityKind::Database)
      if (auto s = orchestrator::inference_status(e.name, e.run_dir, e.status == state::Status::Running))
        services.push_back(std::move(*s));
  if (!services.empty()) out["inference"] = std::move(services);
  out["runner"] =
      runner ? nlohmann::json{{"pid", runner->pid}, {"host", runner->host}, {"role", runner->role}} : nlohmann::json();
  return out;
}

}  // namespace ssim::session
