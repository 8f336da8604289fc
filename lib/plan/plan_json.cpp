#include "lib/plan/plan_json.hpp"

namespace ssim::plan {

using nlohmann::json;

namespace {
json resources_json(const Resources& r) {
  json j = {{"ntasks", r.ntasks}, {"mpi", to_string(r.mpi)}, {"exclusive", r.exclusive}};
  if (r.nodes) j["nodes"] = r.nodes;
  if (r.tasks_per_node) j["tasks_per_node"] = r.tasks_per_node;
  if (r.cpus_per_task) j["cpus_per_task"] = r.cpus_per_task;
  if (r.gpus_per_task) j["gpus_per_task"] = r.gpus_per_task;
  if (!r.time.empty()) j["time"] = r.time;
  if (!r.agent) j["agent"] = false;
  if (!r.rank_env) j["rank_env"] = false;
  if (r.torchrun) j["torchrun"] = r.torchrun;
  if (!r.hosts.empty()) j["hosts"] = r.hosts;
  if (!r.launcher_args.empty()) {
    json a = json::object();
    for (const auto& [k, v] : r.launcher_args) a[k] = v;
    j["launcher_args"] = a;
  }
  return j;
}
}  // namespace

json plan_to_json(const Plan& plan, const std::function<std::vector<std::string>(const Step&)>& command) {
  json steps = json::array();
  for (const auto& s : plan.steps) {
    json env = json::object();
    for (const auto& [k, v] : launch_env(s, kExperimentIdPlaceholder, 1)) env[k] = v;
    json j = {{"name", s.name},
              {"type", to_string(s.kind)},
              {"run_dir", s.run_dir},
              {"argv", command(s)},
              {"env", env},
              {"after", s.after},
              {"after_any", s.after_any},
              {"resources", resources_json(s.program->res)}};
    if (!s.ensemble.empty()) j["ensemble"] = s.ensemble;
    steps.push_back(std::move(j));
  }
  json out = {{"experiment", plan.name},
              {"file", plan.file},
              {"path", plan.path},
              {"launcher", plan.launcher},
              {"steps", steps}};
  if (plan.database) {
    const auto& d = *plan.database;
    out["orchestrator"] = {
        {"port", d.port},         {"shards", d.shards},   {"binary", d.binary},   {"interface", d.interface},
        {"password", d.password}, {"persist", d.persist}, {"run_dir", d.run_dir}, {"inference", d.inference.enabled}};
  }
  return out;
}

}  // namespace ssim::plan
