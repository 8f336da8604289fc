#include "lib/session/status_json.hpp"

#include <algorithm>

#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/inference_files.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/processes.hpp"
#include "lib/state/entity_error.hpp"

namespace ssim::session {

namespace {

// One entity's object. `tails`: the failed entities whose last error was read so far
// (bounded for huge failed sweeps).
nlohmann::json entity_json(const state::EntityRecord& e, int& tails) {
  nlohmann::json j = nlohmann::json::object();
  j["name"] = e.name;
  j["type"] = to_string(e.type);
  j["ensemble"] = e.ensemble;
  j["job_id"] = e.job_id;
  j["pid"] = e.pid ? nlohmann::json(e.pid) : nlohmann::json();
  j["native_id"] = e.extra().native_id;
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
  j["params"] = e.extra().params;
  j["earlier_attempts"] = e.extra().earlier_attempts;
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
  return j;
}

// The document without its entities.
nlohmann::json document_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner) {
  nlohmann::json out = {{"experiment", m.experiment}, {"path", m.path}, {"id", m.id}, {"launcher", m.launcher},
                        {"finished", m.finished > 0}, {"file", m.file}};
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

}  // namespace

nlohmann::json status_json(const state::Manifest& m, const std::optional<state::LockHolder>& runner) {
  nlohmann::json entities = nlohmann::json::array();
  int tails = 0;
  for (const auto& e : m.entities) entities.push_back(entity_json(e, tails));
  nlohmann::json out = document_json(m, runner);
  out["entities"] = std::move(entities);  // not a copy: 100,000 entities are hundreds of MB
  return out;
}

void write_status_json(std::ostream& out, const state::Manifest& m, const std::optional<state::LockHolder>& runner,
                       int indent, const std::function<bool(const state::EntityRecord&)>& keep,
                       const nlohmann::json& extra) {
  // Text that is not UTF-8 (a program's words in a reason) is replaced, never a throw.
  const auto text_of = [indent](const nlohmann::json& j) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  // The same text as status_json(...).dump(indent), an entity at a time: "entities" is
  // the first of the document's keys (they are sorted), the rest is the document's own.
  const bool pretty = indent >= 0;
  const std::string nl = pretty ? "\n" : "", in1(pretty ? indent : 0, ' '), in2(pretty ? 2 * indent : 0, ' ');
  out << "{" << nl << in1 << "\"entities\":" << (pretty ? " " : "") << "[";
  int tails = 0;
  bool any = false;
  for (const auto& e : m.entities) {
    if (keep && !keep(e)) continue;
    std::string text = text_of(entity_json(e, tails));
    if (pretty)
      for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1))
        text.insert(at + 1, in2), at += in2.size();  // nested two levels down
    out << (any ? "," : "") << nl << in2 << text;
    any = true;
  }
  if (any) out << nl << in1;
  nlohmann::json document = document_json(m, runner);
  for (const auto& [key, value] : extra.items()) document[key] = value;
  const std::string rest = text_of(document);  // "{...}": its keys after "entities"
  out << "]," << rest.substr(1);
}

}  // namespace ssim::session
