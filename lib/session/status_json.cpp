#include "lib/session/status_json.hpp"

#include <algorithm>

#include "lib/orchestrator/database.hpp"
#include "lib/orchestrator/inference_files.hpp"
#include "lib/state/metrics.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/processes.hpp"
#include "lib/state/entity_error.hpp"
#include "lib/state/json_text.hpp"

namespace ssim::session {

namespace {

// The goal's object (status_json's "goal"): what it asks and whether it was reached.
nlohmann::json goal_json(const state::EntityRecord& e) {
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
  return g;
}

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
  if (e.goal) j["goal"] = goal_json(e);
  if (e.status == state::Status::Failed && e.type != state::EntityKind::Database && tails++ < 200)
    j["last_error"] = state::entity_last_error(e.run_dir, e.name, 1);  // its own, not mpirun's banner
  return j;
}

// entity_json(e) written straight as text, its keys in the object's (sorted) order.
void write_entity(state::JsonText& j, const state::EntityRecord& e, int& tails, double now) {
  j.open_object();
  if (e.type == state::EntityKind::Database)
    if (const auto a = orchestrator::read_address(e.run_dir); a && a->port)
      j.key("address"), j.string(a->host + ":" + std::to_string(a->port));
  j.key("attempt"), j.integer(e.attempt);
  j.key("earlier_attempts"), j.value(e.extra().earlier_attempts);
  j.key("elapsed"), j.number(std::max(0.0, state::seconds_run(e, now)));
  j.key("end"), j.number(e.end);
  j.key("ensemble"), j.string(e.ensemble);
  j.key("exit_code");
  e.exit_code ? j.integer(*e.exit_code) : j.null();
  if (e.goal) j.key("goal"), j.value(goal_json(e));
  j.key("held"), j.boolean(e.held);
  j.key("job_id"), j.string(e.job_id);
  if (e.status == state::Status::Failed && e.type != state::EntityKind::Database && tails++ < 200)
    j.key("last_error"), j.string(state::entity_last_error(e.run_dir, e.name, 1));
  j.key("name"), j.string(e.name);
  j.key("native_id"), j.string(e.extra().native_id);
  j.key("nodes"), j.string(e.nodes);
  j.key("params");
  if (e.extra().params.empty()) {
    j.open_object();
    j.close_object();
  } else {
    j.value(e.extra().params);
  }
  j.key("pid");
  e.pid ? j.integer(e.pid) : j.null();
  j.key("reason"), j.string(e.reason);
  j.key("run_dir"), j.string(e.run_dir);
  j.key("signal");
  e.signal ? j.string(signal_name(*e.signal)) : j.null();
  j.key("start"), j.number(e.start);
  j.key("status"), j.string(to_string(e.status));
  j.key("submitted"), j.number(e.submitted);
  j.key("type"), j.string(to_string(e.type));
  j.close_object();
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
  const double now = now_seconds();
  std::string text;
  for (const auto& e : m.entities) {
    if (keep && !keep(e)) continue;
    text += any ? "," : "";
    text += nl + in2;
    state::JsonText j(text, indent, 2);
    write_entity(j, e, tails, now);
    any = true;
    if (text.size() >= (1 << 20)) out << text, text.clear();  // written a megabyte at a time
  }
  out << text;
  if (any) out << nl << in1;
  nlohmann::json document = document_json(m, runner);
  for (const auto& [key, value] : extra.items()) document[key] = value;
  const std::string rest = text_of(document);  // "{...}": its keys after "entities"
  out << "]," << rest.substr(1);
}

}  // namespace ssim::session
