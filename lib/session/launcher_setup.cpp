#include "lib/session/launcher_setup.hpp"

#include "lib/launch/registry.hpp"
#include "lib/launch/devices.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/layout.hpp"

#include <cstdlib>
#include <optional>
#include <set>

namespace ssim::session {

RunLauncher prepare_launcher(const plan::Plan& plan, bool request, int placeholder_nodes) {
  RunLauncher out;
  out.launcher = launch::make_launcher(plan.launcher);
  if (auto* scheduling = out.launcher->scheduling())
    scheduling->set_queries_in_background(true);  // a run's engine: a slow scheduler never holds up launching
  out.launcher->prepare(plan, launch::PrepareOptions{request, placeholder_nodes});
  if (const auto* allocation = out.launcher->allocation()) {
    out.allocation_job = allocation->id();
    out.owned = allocation->owned();
  }
  return out;
}

void release(const RunLauncher& l) {
  if (l.owned && !l.allocation_job.empty()) l.launcher->allocation()->release(l.allocation_job);
}

void check_batch_scripts(const plan::Plan& plan, const launch::Launcher& launcher) {
  const auto* batch = launcher.batch();
  if (!batch) return;
  for (const auto& s : plan.steps)
    if (s.program->batch) (void)batch->batch_script(s);
}

namespace {
[[noreturn]] void missing(const std::string& what, const std::string& program, const std::string& fix) {
  const char* path = std::getenv("PATH");
  throw EnvironmentError(what + " " + program + ", which is not on the PATH (" + (path ? path : "") + "); " + fix);
}

std::string submit_program(const std::string& launcher) {
  for (const auto& l : launch::launcher_registry())
    if (l.name == launcher) return l.submit_program;
  return "";
}
}  // namespace

void check_environment(const plan::Plan& plan, const launch::Launcher& launcher, bool whole_batch) {
  if (find_supervisor().empty()) {
    std::string looked;
    for (const auto& c : supervisor_candidates()) looked += (looked.empty() ? "" : ", ") + c;
    throw EnvironmentError("ssim-supervise (it runs every entity) is missing: looked for " + looked +
                           "; reinstall ssim or set SSIM_SUPERVISE");
  }
  const std::string submit = submit_program(launcher.name());
  bool submits = whole_batch;
  for (const auto& s : plan.steps) submits = submits || (s.program->batch && launcher.batch());
  if (submits && !submit.empty() && find_on_path(submit).empty())
    missing("the " + launcher.name() + " launcher submits jobs with", submit,
            "run ssim where the scheduler's commands are");
  if (whole_batch) return;  // the rest runs inside the job, where setup lines may bring it in
  // setup: lines run in bash (lib/launch/setup_script.hpp), here where the launcher is local.
  bool any_setup = !plan.setup.empty();
  for (const auto& s : plan.steps) any_setup = any_setup || !s.program->setup.empty();
  if (any_setup && launcher.runs_here() && find_on_path("bash").empty())
    missing("setup: lines run in", "bash", "install bash (Debian: apt-get install bash), or drop the setup: lines");
  // Where this ssim starts the database itself, its program must be here (in a container:
  // the image's, checked with the container).
  if (plan.database && !plan.database->external() && launcher.runs_here() && !plan.database->container &&
      find_on_path(plan.database->binary).empty())
    missing("the database needs", plan.database->binary,
            "install redis-server (Debian) or give orchestrator.binary a full path");
  if (!plan.setup.empty()) return;  // setup lines (module load ...) may bring the rest in
  std::set<std::string> found;      // one PATH search per program, not per member
  for (const auto& step : plan.steps) {
    if (step.program->batch && launcher.batch()) continue;  // runs inside its own job
    if (!step.program->setup.empty()) continue;  // its setup lines may bring it (module load openmpi, apptainer)
    const auto argv = launcher.command(step);
    // argv[0] == exe: the entity's own program, whose absence is its own failure; a
    // container's runtime was looked for with the container (launch::check_containers).
    if (argv.empty() || argv[0] == step.program->exe || found.count(argv[0])) continue;
    if (step.program->container && argv[0] == plan::runtime_program(step.program->container->runtime)) continue;
    if (find_on_path(argv[0]).empty())
      missing(step.name + " is started with", argv[0],
              launcher.runs_here() ? "install MPI (Debian: openmpi-bin) or choose run.mpi: none"
                                   : "run ssim inside a " + launcher.name() + " job, where its commands are");
    found.insert(argv[0]);
  }
}

void check_gpus(const plan::Plan& plan, const launch::Launcher& launcher) {
  if (!launcher.runs_here()) return;  // schedulers get gpus_per_task as their own request
  std::optional<launch::GpuList> pool;
  for (const auto& s : plan.steps) {
    const int need = s.program->res.gpus_per_task * s.program->res.ntasks;
    if (need <= 0) continue;
    if (!pool) pool = launch::detect_gpus();
    if (static_cast<size_t>(need) > pool->ids.size())
      throw UsageError(s.name + ": run.gpus_per_task x ntasks asks for " + std::to_string(need) +
                       " GPU(s); this machine offers " + std::to_string(pool->ids.size()) + " (" + pool->source +
                       "); give ssim devices with SSIM_GPUS=0,1,... or CUDA_VISIBLE_DEVICES");
  }
}

}  // namespace ssim::session
