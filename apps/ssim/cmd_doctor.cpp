// ssim doctor [--json]: what ssim uses on this machine, where it is, its version, which
// launcher `auto` would pick here and why; a fix for each missing part, and exit 1
// when one is missing.
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/ssim/verbs.hpp"
#include "launchers/batch/output_lines.hpp"
#include "lib/launch/command_runner.hpp"
#include "lib/plan/container.hpp"
#include "launchers/registry.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/self_exe.hpp"
#include "ssim_version.hpp"

namespace ssim::app {

namespace {

using launchers::first_line;

struct Part {
  std::string name;
  bool found = false;
  std::string path;
  std::string version;
  std::string fix;        // when not found
  bool optional = false;  // needed only by some experiments: absent is no failure
};

Part program(launch::CommandRunner& runner, const std::string& name, const std::vector<std::string>& version_args,
             const std::string& fix) {
  Part part{name, false, find_on_path(name), "", fix};
  part.found = !part.path.empty();
  if (!part.found) return part;
  std::vector<std::string> argv = {part.path};
  argv.insert(argv.end(), version_args.begin(), version_args.end());
  const auto r = runner.run(argv, std::chrono::seconds(10));
  part.version = first_line(r.out.empty() ? r.err : r.out);
  return part;
}

// The interpreter an entity with `exe: python3` gets (docs/python.md), as it gets it: with
// ssim's module first on PYTHONPATH. It must import ssim and numpy.
Part python_module(launch::CommandRunner& runner) {
  std::string python = entity_python();
  const std::string how = python.empty()               ? "python3 on the PATH"
                          : std::getenv("SSIM_PYTHON") ? "SSIM_PYTHON"
                                                       : "built for";
  if (python.empty()) python = find_on_path("python3");
  Part part{"python3 of entities", false, python, "", ""};
  if (python.empty()) {
    part.fix = "install python3, or set SSIM_PYTHON (or experiment.python) to an interpreter";
    return part;
  }
  const std::string dir = python_package_dir();
  std::string path = dir;
  if (const char* p = std::getenv("PYTHONPATH"); p && *p) path = dir.empty() ? p : dir + ":" + p;
  const auto r =
      runner.run({"/usr/bin/env", "PYTHONPATH=" + path, python, "-c", "import ssim, numpy; print(ssim.__file__)"},
                 std::chrono::seconds(30));
  part.found = r.exit_code == 0;
  part.version = how + (part.found ? ", imports ssim from " + first_line(r.out) : "");
  // docs/experiment-file.md "setup": a module or venv picks the Python of entities with setup lines.
  if (how == "built for")
    part.version += "; entities with setup: lines run the python their setup puts first on the PATH";
  std::string why = r.err;  // its last line: "ModuleNotFoundError: No module named 'numpy'"
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  why = why.substr(why.find_last_of('\n') == std::string::npos ? 0 : why.find_last_of('\n') + 1);
  if (!part.found)
    part.fix = python + " cannot import ssim or numpy (" + why +
               "): entities with exe: python3 would fail. Set experiment.python or SSIM_PYTHON to one that can, "
               "or pip install <ssim source>/python into it (numpy too)";
  return part;
}

std::string auto_reason(std::string& picked) {
  picked = launch::resolve_launcher("auto", [](const char* n) { return std::getenv(n); });
  for (const auto& l : launch::launcher_registry())
    if (l.name == picked && !l.job_variable.empty())
      return "inside a " + picked + " job (" + l.job_variable + "=" + std::getenv(l.job_variable.c_str()) + ")";
  std::string vars;
  for (const auto& l : launch::launcher_registry())
    if (!l.job_variable.empty()) vars += (vars.empty() ? "" : ", ") + l.job_variable;
  return "not inside a scheduler job (none of " + vars + " is set)";
}

}  // namespace

Action add_doctor(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("doctor", "Check what ssim needs on this machine, and say how to fix what is missing");
  cmd->add_flag("--json", *json, "machine-readable output on stdout");
  return [json] {
    auto runner = launch::make_process_runner();
    std::vector<Part> parts;
    const std::string supervisor = find_supervisor();
    std::string looked;
    for (const auto& c : supervisor_candidates()) looked += (looked.empty() ? "" : ", ") + c;
    parts.push_back({"ssim-supervise", !supervisor.empty(), supervisor.empty() ? looked : supervisor, "",
                     "reinstall ssim (it goes to libexec/ssim/ beside bin/ssim) or set SSIM_SUPERVISE"});
    parts.push_back(program(*runner, "redis-server", {"--version"}, "apt-get install redis-server"));
    parts.push_back(
        program(*runner, "mpirun", {"--version"}, "apt-get install openmpi-bin (needed for run.mpi: mpirun)"));
    parts.push_back(python_module(*runner));
    if (!supervisor.empty()) {  // the door sits beside the supervisor, where ssim starts it from
      const std::string door = door_beside(supervisor);
      const bool there = ::access(door.c_str(), X_OK) == 0;
      parts.push_back({"ssim-door", there, door, "", "reinstall ssim (needed for smartredis: true)", true});
    }
    const std::string service = find_inference_service();
    parts.push_back({"ssim-infer", !service.empty(), service.empty() ? "not beside ssim" : service, "",
                     inference_service_fix() + " (needed for inference: true)", true});
    // Container runtimes (docs/containers.md), in the order `runtime: auto` tries them.
    // ch-run will not even say its version without $USER (ssim gives it to entities too).
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && !std::getenv("USER")) ::setenv("USER", pw->pw_name, 0);
    for (plan::ContainerRuntime r : plan::auto_runtime_order()) {
      const std::string name = plan::to_string(r);
      const std::string fix = r == plan::ContainerRuntime::Charliecloud ? "apt-get install charliecloud-runtime"
                              : r == plan::ContainerRuntime::Podman     ? "apt-get install podman"
                              : r == plan::ContainerRuntime::Docker     ? "apt-get install docker.io"
                                                                        : "install " + name + " or module load " + name;
      Part part = program(*runner, plan::runtime_program(r), {"--version"},
                          fix + " (needed for container: {runtime: " + name + "})");
      part.name = "container " + name;
      part.optional = true;
      parts.push_back(std::move(part));
    }
    std::string picked;
    const std::string why = auto_reason(picked);
    nlohmann::json schedulers = nlohmann::json::object();
    for (const auto& l : launch::launcher_registry())
      if (!l.submit_program.empty()) schedulers[l.name] = find_on_path(l.submit_program);

    bool missing = false;
    for (const auto& p : parts) missing = missing || (!p.found && !p.optional);
    if (*json) {
      nlohmann::json out = {{"ssim", {{"version", SSIM_VERSION}, {"path", self_exe()}}},
                            {"launcher_auto", {{"picks", picked}, {"why", why}}},
                            {"schedulers", schedulers},
                            {"ok", !missing}};
      for (const auto& p : parts)
        out["parts"].push_back({{"name", p.name},
                                {"found", p.found},
                                {"path", p.path},
                                {"version", p.version},
                                {"fix", p.found ? "" : p.fix},
                                {"optional", p.optional}});
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << "ssim " << SSIM_VERSION << "  " << self_exe() << "\n";
      for (const auto& p : parts) {
        std::cout << (p.found      ? "  ok       "
                      : p.optional ? "  absent   "
                                   : "  MISSING  ")
                  << p.name << "  " << p.path << (p.version.empty() ? "" : "  (" + p.version + ")") << "\n";
        if (!p.found) std::cout << "           fix: " << p.fix << "\n";
      }
      std::cout << "launcher auto: " << picked << " (" << why << ")\n";
      for (const auto& [name, path] : schedulers.items())
        std::cout << "  " << name << ": "
                  << (path.get<std::string>().empty() ? "no submit command on the PATH" : path.get<std::string>())
                  << "\n";
    }
    return missing ? 1 : 0;
  };
}

}  // namespace ssim::app
