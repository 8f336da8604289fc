#include "lib/launch/launcher.hpp"

#include <signal.h>
#include <unistd.h>

#include "lib/launch/container_command.hpp"
#include "lib/util/layout.hpp"
#include "lib/util/processes.hpp"

namespace ssim::launch {

int Launcher::sweep(const std::string& experiment_id) {
  if (experiment_id.empty()) return 0;
  int killed = 0;
  // Two rounds: a dying parent may have forked a moment ago.
  for (int round = 0; round < 2; ++round)
    for (int pid : processes_with_env("SSIM_EXPERIMENT_ID", experiment_id))
      if (::kill(pid, SIGKILL) == 0) ++killed;
  return killed;
}

void Launcher::take_wake() { drain_wake_fd(wake_fd()); }

void drain_wake_fd(int fd) {
  char buf[256];
  while (fd >= 0 && ::read(fd, buf, sizeof buf) > 0) {
  }
}

std::vector<std::string> task_program(const plan::Step& step, const std::string& supervisor) {
  std::vector<std::string> argv;
  if (const auto& db = step.program->colocated_db) {
    argv = {supervisor, "--colocated-db", "--binary", db->binary};
    if (db->port) argv.insert(argv.end(), {"--port", std::to_string(db->port)});
    if (!db->port && step.program->container) argv.push_back("--tcp");  // the container sees no node folder
    for (const auto& [k, v] : db->config) argv.insert(argv.end(), {"--config", k, v});
    if (db->inference.enabled) argv.push_back("--inference");
    if (db->inference.threads > 0)
      argv.insert(argv.end(), {"--inference-threads", std::to_string(db->inference.threads)});
    argv.push_back("--");
  }
  std::vector<std::string> program = {step.program->exe};
  program.insert(program.end(), step.program->args.begin(), step.program->args.end());
  if (step.program->container) {  // the innermost wrapper: what is outside runs on the host
    static const std::string package = python_package_dir();
    program = container_command(*step.program->container, mounts_for(step, package), program);
  }
  if (step.program->smartredis) {  // on the host, inside the colocated database's wrapper (its SSDB)
    program.insert(program.begin(), {door_beside(supervisor), "--"});
  }
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::vector<std::string> step_argv(const Launcher& launcher, const plan::Step& step, const Grant* grant) {
  if (step.program->batch && launcher.batch()) return launcher.command(step);
  return with_setup(step.program->setup, grant ? launcher.command_on(step, *grant) : launcher.command(step));
}

}  // namespace ssim::launch
