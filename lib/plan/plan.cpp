#include "lib/plan/plan.hpp"

#include <cstdlib>

#include "lib/util/layout.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include "lib/plan/expand.hpp"
#include "lib/plan/path_checks.hpp"
#include "lib/plan/resources.hpp"
#include "lib/spec/yaml_reader.hpp"
#include "lib/util/split.hpp"

namespace ssim::plan {

namespace fs = std::filesystem;

const std::vector<std::pair<std::string, MpiKind>>& mpi_kind_names() {
  static const std::vector<std::pair<std::string, MpiKind>> names = {
      {"auto", MpiKind::Auto},       {"none", MpiKind::None},   {"srun", MpiKind::Srun},  {"mpirun", MpiKind::Mpirun},
      {"mpiexec", MpiKind::Mpiexec}, {"aprun", MpiKind::Aprun}, {"jsrun", MpiKind::Jsrun}};
  return names;
}

std::string to_string(MpiKind kind) {
  for (const auto& [name, k] : mpi_kind_names())
    if (k == kind) return name;
  return "auto";
}

std::string to_string(StepKind kind) { return kind == StepKind::Model ? "model" : "member"; }

std::shared_ptr<const StepProgram> Step::empty_program() {
  static const auto empty = std::make_shared<const StepProgram>();
  return empty;
}

StepProgram& Step::edit() {
  if (program.use_count() != 1) program = std::make_shared<StepProgram>(*program);
  return const_cast<StepProgram&>(*program);  // this step's alone: made here, or copied above
}

Env step_env(const Step& s) {
  Env env;
  const SharedEnv* shared = s.shared_env.get();
  env.reserve((shared ? shared->from_file.size() : 0) + 15 + s.parameters.size());
  // A lone rank's wiring (several ranks get theirs from the rank wrapper): first, so
  // that the file's env: wins; over what ssim's own environment had. MASTER_PORT: a port
  // free when it starts, for the workers a program may spawn itself (mp.spawn, Lightning).
  if (s.program->res.rank_env && s.program->res.ntasks <= 1)
    for (const auto& [k, v] : {std::pair<const char*, const char*>{"RANK", "0"},
                               {"WORLD_SIZE", "1"},
                               {"LOCAL_RANK", "0"},
                               {"LOCAL_WORLD_SIZE", "1"},
                               {"MASTER_ADDR", "127.0.0.1"},
                               {"MASTER_PORT", kFreePortPlaceholder}})
      env.emplace_back(k, v);
  if (shared) {
    env.insert(env.end(), shared->from_file.begin(), shared->from_file.end());
    if (shared->database) env.emplace_back("SSDB", kSsdbPlaceholder);
    if (shared->password) env.emplace_back("SSDB_PASSWORD", kPasswordPlaceholder);
    if (shared->key_out) env.emplace_back("SSKEYOUT", s.name);
  }
  if (!s.program->incoming.empty()) env.emplace_back("SSKEYIN", join(s.program->incoming, ","));
  if (shared) env.emplace_back("SSIM_EXPERIMENT", shared->experiment);
  env.emplace_back("SSIM_ENTITY", s.name);
  env.emplace_back("SSIM_RUN_DIR", s.run_dir);
  if (s.index >= 0) {
    env.emplace_back("SSIM_REPLICA", std::to_string(s.replica));
    env.emplace_back("SSIM_MEMBER_INDEX", std::to_string(s.index));
  }
  for (const auto& [name, value] : s.parameters)
    env.emplace_back("SSIM_PARAM_" + name, value);  // names are identifiers
  return env;
}

Env launch_env(const Step& s, const std::string& experiment_id, int attempt) {
  Env env = step_env(s);
  static const std::string package = python_package_dir();
  if (!package.empty()) {
    std::string current;
    if (const char* p = std::getenv("PYTHONPATH")) current = p;
    const std::string value = [&] {
      for (const auto& [k, v] : env)
        if (k == "PYTHONPATH") return package + (v.empty() ? "" : ":" + v);
      return current.empty() ? package : package + ":" + current;
    }();
    bool replaced = false;  // the file's own entry becomes the one entry
    for (auto& [k, v] : env)
      if (k == "PYTHONPATH") v = value, replaced = true;
    if (!replaced) env.emplace_back("PYTHONPATH", value);
  }
  if (s.program->container)
    for (auto& kv : container_env(*s.program->container)) env.push_back(std::move(kv));
  env.emplace_back("SSIM_EXPERIMENT_ID", experiment_id);
  // Which attempt this is (1 on the first): a program may read it.
  env.emplace_back("SSIM_ATTEMPT", std::to_string(attempt));
  return env;
}

std::map<std::string, std::string> tag_values(const Step& s, const std::string& experiment) {
  std::map<std::string, std::string> values(s.parameters.begin(), s.parameters.end());
  values["entity"] = s.name;
  values["ensemble"] = s.ensemble;
  values["replica"] = std::to_string(s.replica);
  values["member_index"] = s.index >= 0 ? std::to_string(s.index) : "0";
  values["experiment"] = experiment;
  values["run_dir"] = s.run_dir;
  return values;
}

namespace {

struct Builder {
  const spec::ExperimentSpec& spec;
  Plan& plan;
  std::string python_;          // what a bare python3 or python becomes
  bool python_chosen_ = false;  // ...even after setup lines (experiment.python, SSIM_PYTHON)
  std::map<std::string, std::vector<std::string>> members;  // entity name -> step names

  std::string abs_path(const std::string& p) const { return (fs::path(spec.base_dir) / p).lexically_normal().string(); }

  std::vector<std::string> step_names(const std::vector<spec::Text>& entities) const {
    std::vector<std::string> out;
    for (const auto& t : entities) {
      const auto it = members.find(t.value);
      if (it == members.end()) {  // one member of an ensemble, by its own name (validated)
        out.push_back(t.value);
        continue;
      }
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }

  // after_each: member i of `e` waits for member i of each named ensemble, which must
  // expand the same way (as many members, the same values of the parameters both have).
  void match_members(const spec::Entity& e, const std::string& file) {
    for (size_t k = 0; k < e.after_each.size(); ++k) {
      const std::string& other = e.after_each[k].value;
      const std::string field = spec::index_field(e.field + ".after_each", k);
      std::vector<Step*> mine, theirs;
      for (auto& s : plan.steps) {
        if (s.ensemble == e.name) mine.push_back(&s);
        if (s.ensemble == other) theirs.push_back(&s);
      }
      if (mine.size() != theirs.size())
        throw spec::SpecError(file, e.after_each[k].loc, field,
                              e.name + " has " + std::to_string(mine.size()) + " members and " + other + " has " +
                                  std::to_string(theirs.size()) + ": after_each matches them one to one");
      for (size_t i = 0; i < mine.size(); ++i) {
        for (const auto& [name, value] : mine[i]->parameters)
          for (const auto& [oname, ovalue] : theirs[i]->parameters)
            if (name == oname && value != ovalue)
              throw spec::SpecError(
                  file, e.after_each[k].loc, field,
                  mine[i]->name + " has " + name + "=" + value + " but " + theirs[i]->name + " has " + name + "=" +
                      ovalue + ": after_each needs both ensembles to expand the same parameters in the same order");
        mine[i]->after.push_back(theirs[i]->name);
      }
    }
  }

  // The entity being added's, shared by its steps.
  std::shared_ptr<const spec::Goal> goal;
  std::shared_ptr<const spec::BatchSettings> batch;
  std::shared_ptr<const spec::ColocatedDb> colocated_db;
  std::shared_ptr<const Container> container;
  std::vector<ContainerRuntime> runtimes_;     // installed here, for runtime: auto
  std::shared_ptr<const SharedEnv> last_env_;  // the last step's, for the next to share
  std::shared_ptr<const StepProgram> last_program_;

  void add_entity(const spec::Entity& e) {
    const bool is_member = e.kind == spec::EntityKind::Ensemble;
    int index = 0;
    goal = e.goal ? std::make_shared<const spec::Goal>(*e.goal) : nullptr;  // one for all the members
    batch = e.batch ? std::make_shared<const spec::BatchSettings>(*e.batch) : nullptr;
    colocated_db = e.colocated_db ? std::make_shared<const spec::ColocatedDb>(*e.colocated_db) : nullptr;
    const auto& wanted = e.container ? e.container : spec.container;  // its own, else the experiment's
    container = nullptr;
    if (wanted && !wanted->none) {
      Container c = resolve_container(*wanted, spec.base_dir, runtimes_);
      c.host_binds = host_binds_of(e, spec.base_dir);
      container = std::make_shared<const Container>(std::move(c));
    }
    for (const auto& combination : combinations(e)) {
      for (int r = 0; r < e.replicas; ++r, ++index) {
        Step s;
        s.replica = r;
        s.kind = is_member ? StepKind::Member : StepKind::Model;
        s.name = is_member ? e.name + "_" + std::to_string(index) : e.name;
        s.ensemble = is_member ? e.name : "";
        s.index = is_member ? index : -1;
        s.run_dir =
            is_member ? (fs::path(plan.path) / e.name / s.name).string() : (fs::path(plan.path) / e.name).string();
        fill_step(e, combination, s);
        members[e.name].push_back(s.name);
        plan.steps.push_back(std::move(s));
      }
    }
  }

  void fill_step(const spec::Entity& e, const Combination& combination, Step& s) {
    for (const auto& [name, text] : combination) s.parameters.emplace_back(name, text.value);
    const std::map<std::string, std::string> values = tag_values(s, plan.name);
    Lookup lookup = [&](const std::string& n) -> std::optional<std::string> {
      auto it = values.find(n);
      if (it == values.end()) return std::nullopt;
      return it->second;
    };
    const std::string& file = spec.file;
    StepProgram p;
    p.exe = substitute_at(file, e.field + ".exe", e.exe, lookup);
    // A bare name is found where the step runs, after its setup lines: a module's or a
    // venv's python, unless a Python was chosen explicitly.
    const bool has_setup = !plan.setup.empty() || !e.setup.empty();
    // In a container, the image's own Python (its PATH) runs it.
    if ((p.exe == "python3" || p.exe == "python") && !python_.empty() && (!has_setup || python_chosen_) && !container)
      p.exe = python_;
    if (p.exe.find('/') != std::string::npos && fs::path(p.exe).is_relative()) p.exe = abs_path(p.exe);
    for (size_t i = 0; i < e.args.size(); ++i)
      p.args.push_back(substitute_at(file, spec::index_field(e.field + ".args", i), e.args[i], lookup));
    p.res = resolve_resources(file, e.field + ".run", e.run, lookup);
    if (runs_here(plan) && (p.res.mpi == MpiKind::Srun || p.res.mpi == MpiKind::Aprun || p.res.mpi == MpiKind::Jsrun)) {
      fail_mpi_needs_scheduler(e);
    }

    SharedEnv env;
    for (const auto& [k, v] : spec.env)
      env.from_file.emplace_back(k, substitute_at(file, "experiment.env." + k, v, lookup));
    for (const auto& [k, v] : e.env)
      env.from_file.emplace_back(k, substitute_at(file, e.field + ".env." + k, v, lookup));
    env.experiment = plan.name;
    env.database = plan.database.has_value();
    env.password = plan.database && plan.database->password;
    env.key_out = e.key_prefixing;
    // Members whose env: does not use their parameters share the one before's.
    if (!last_env_ || !(*last_env_ == env)) last_env_ = std::make_shared<const SharedEnv>(std::move(env));
    s.shared_env = last_env_;
    for (const auto& n : step_names_of(e.incoming)) p.incoming.push_back(n);

    p.batch = batch;
    p.retries = e.retries;
    p.gang = e.gang;
    p.goal = goal;
    p.colocated_db = colocated_db;
    p.container = container;
    p.smartredis = e.smartredis.value_or(spec.smartredis);
    if (e.colocated_db) p.res.node_cpus = e.colocated_db->cpus;
    p.setup = plan.setup;
    p.setup.insert(p.setup.end(), e.setup.begin(), e.setup.end());
    for (const auto& t : e.files.copy) p.copy.push_back(abs_path(t.value));
    for (const auto& t : e.files.symlink) p.symlink.push_back(abs_path(t.value));
    for (const auto& t : e.files.configure) p.configure.push_back(abs_path(t.value));
    // Members whose program does not use their parameters share the one before's.
    if (!last_program_ || !(*last_program_ == p)) last_program_ = std::make_shared<StepProgram>(std::move(p));
    s.program = last_program_;
  }

  // incoming may name an entity defined later in the file, so names are computed from
  // the spec rather than from the members built so far.
  std::vector<std::string> step_names_of(const std::vector<spec::Text>& names) const {
    std::vector<std::string> out;
    for (const auto& t : names) {
      for (const auto& other : spec.entities) {
        if (other.name != t.value) continue;
        if (other.kind == spec::EntityKind::Model) {
          out.push_back(other.name);
        } else {
          const size_t n = combinations(other).size() * static_cast<size_t>(other.replicas);
          for (size_t i = 0; i < n; ++i) out.push_back(other.name + "_" + std::to_string(i));
        }
      }
    }
    return out;
  }

  [[noreturn]] void fail_mpi_needs_scheduler(const spec::Entity& e) const {
    spec::Loc loc = e.run.loc;
    for (const auto& [k, v] : e.run.fields)
      if (k == "mpi") loc = v.loc;
    throw spec::SpecError(spec.file, loc, e.field + ".run.mpi",
                          "this MPI launcher needs a scheduler; with the local launcher use "
                          "auto, none, mpirun or mpiexec");
  }
};

}  // namespace

Plan build_plan(const spec::ExperimentSpec& spec, const PlanContext& context) {
  Plan plan;
  plan.name = spec.name;
  plan.file = (fs::path(spec.base_dir) / fs::path(spec.file).filename()).string();
  const fs::path path = spec.path ? fs::path(*spec.path) : fs::path(spec.name);
  plan.path = (fs::path(context.cwd) / path).lexically_normal().string();
  while (plan.path.size() > 1 && plan.path.back() == '/') plan.path.pop_back();
  check_experiment_path(spec, plan.path);
  plan.launcher = context.launcher;
  plan.setup = spec.setup;
  plan.max_running = spec.max_running;
  plan.oversubscribe = spec.oversubscribe;
  plan.allocation = spec.allocation;
  plan.batch = spec.batch;
  if (spec.orchestrator) {
    const auto& o = *spec.orchestrator;
    Database db;
    db.port = o.port;
    db.shards = o.shards;
    db.interface = o.interface;
    db.binary = o.binary;
    db.config = o.config;
    db.password = o.password == spec::PasswordMode::Auto;
    db.persist = o.persist;
    db.snapshot = o.snapshot;
    db.inference = o.inference;
    db.address = o.address;
    if (!o.password_file.empty()) {
      db.password_file = (fs::path(spec.base_dir) / o.password_file).lexically_normal().string();
      std::ifstream in(db.password_file);
      if (!in)
        throw spec::SpecError(
            spec.file, o.password_file_loc, "orchestrator.password_file",
            "cannot read " + spec::printable(o.password_file) + " (relative to the experiment file's folder)");
    }
    db.password = db.external() ? !db.password_file.empty() : db.password;
    db.run_dir = (fs::path(plan.path) / "orchestrator").string();
    db.batch = o.batch;
    db.res = resolve_resources(spec.file, "orchestrator.run", o.run,
                               [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
    db.res.mpi = MpiKind::None;
    if (o.container)
      db.container =
          std::make_shared<const Container>(resolve_container(*o.container, spec.base_dir, context.container_runtimes));
    plan.database = db;
  }
  std::string python = spec.python.empty() ? context.python : spec.python;
  if (python.find('/') != std::string::npos && fs::path(python).is_relative())
    python = (fs::path(spec.base_dir) / python).lexically_normal().string();
  Builder b{spec, plan, python, !spec.python.empty() || context.python_chosen, {}};
  b.runtimes_ = context.container_runtimes;
  size_t steps = 0;  // reserved: 100,000 steps grown by doubling would hold twice the memory at a time
  for (const auto& e : spec.entities) steps += spec::member_count(e);
  if (steps < (size_t{1} << 24)) plan.steps.reserve(steps);
  for (const auto& e : spec.entities) b.add_entity(e);
  check_file_sources(spec, plan.path);
  for (size_t i = 0; i < spec.entities.size(); ++i) {
    const auto& e = spec.entities[i];
    const auto after = b.step_names(e.after);
    const auto after_any = b.step_names(e.after_any);
    for (auto& s : plan.steps)
      if (s.name == e.name || s.ensemble == e.name) {
        s.after = after;
        s.after_any = after_any;
      }
    b.match_members(e, spec.file);
  }
  return plan;
}

}  // namespace ssim::plan
