#pragma once
// The one list of launchers: each one's name, how `launcher: auto` recognises a job of
// its scheduler from the environment, the command that submits to it, and how to make
// it. The implementations in launchers/ add themselves (launchers::register_launchers(),
// once, by each program's main), so the layers below them never name one.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/launch/launcher.hpp"

namespace ssim::launch {

struct LauncherInfo {
  std::string name;
  std::string job_variable;    // set inside a job of this scheduler ("" for local)
  std::string submit_program;  // on the PATH where jobs can be submitted ("" for local)
  std::function<std::unique_ptr<Launcher>()> make;
};

// Adds (or, by name, replaces) a launcher.
void add_launcher(LauncherInfo info);

const std::vector<LauncherInfo>& launcher_registry();

// Names, for option checks and messages: auto, then each launcher's.
std::vector<std::string> launcher_names();

// Throws EnvironmentError for a name this build does not have.
std::unique_ptr<Launcher> make_launcher(const std::string& name);

// auto -> the scheduler whose job this process runs inside, local otherwise.
std::string resolve_launcher(const std::string& requested, const std::function<const char*(const char*)>& getenv);

// For launcher auto outside any job, when something is to be submitted (ssim run
// --batch, entities with batch:): the scheduler whose submit command is on the PATH, ""
// when there is none; throws UsageError when there are several (ssim cannot guess).
std::string submit_launcher(const std::function<bool(const std::string&)>& on_path);

// True when `program` is an executable on the PATH.
bool program_on_path(const std::string& program);

}  // namespace ssim::launch
