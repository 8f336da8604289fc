#pragma once
// Runs an experiment: checks it against this machine (exit 2 or 3 before anything is
// written), claims and generates its folder, starts its database and entities and
// tracks them to the end (or, with detach, until everything that can start has started,
// leaving a monitor to track the rest).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/engine/progress.hpp"
#include "lib/session/load.hpp"
#include "lib/state/manifest.hpp"

namespace ssim::session {

struct RunSettings {
  bool detach = false;
  bool resume = false;     // rerun what did not complete, in place
  bool overwrite = false;  // replace an existing experiment folder
  bool in_batch = false;   // inside the job of `ssim run --batch`
  // Only these entities (or ensembles) start, none when empty; the others are held until
  // `ssim start`. Not set: all of them.
  std::optional<std::vector<std::string>> only;
  // The run stays open once its entities have ended, its database up, for `ssim start`
  // of held entities, ended ones and ones added to the file, until `ssim stop`.
  bool open = false;
};

// One line a person should read (a warning starts with "warning: ").
using Notes = std::function<void(const std::string&)>;

// What a run tells whoever started it.
struct RunOutput {
  engine::Progress* progress = nullptr;  // events and counts as they happen (required)
  Notes notes;                           // may be empty
};

struct RunResult {
  int code = 0;              // the exit code of docs/cli.md
  state::Manifest manifest;  // where every entity ended
  bool detached = false;     // the --detach parent: a monitor tracks the run
};

RunResult run(const Loaded& loaded, const RunSettings& settings, const RunOutput& output);

}  // namespace ssim::session
