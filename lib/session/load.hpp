#pragma once
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "lib/spec/spec.hpp"

namespace ssim::session {

struct Loaded {
  spec::ExperimentSpec spec;
  plan::Plan plan;
};

// spec + plan for FILE, with the launcher resolved (--launcher overrides the file).
// Throws spec::SpecError for bad input. Reads nothing of the machine but the
// environment: every verb that names an experiment by its file uses it.
Loaded load(const std::string& file, const std::string& launcher_override = "");

// For validate and run: load(), then what this machine decides. With launcher auto
// outside a job and entities with batch:, the scheduler installed here (several: a
// UsageError naming them); a password file others can read is warned about.
Loaded load_to_run(const std::string& file, const std::string& launcher_override = "");

// orchestrator.port: auto becomes a free base port here (for the run that starts it).
void choose_auto_port(Loaded& l);

// Before anything is written (local launcher, a database ssim starts, not --resume, whose
// database may be running on them already): its ports are free here, or exit 3 naming
// who holds them (another experiment's database: which, and how to stop it).
void check_ports(const plan::Plan& plan);

// What every load() of this process parses with (the cap on ensemble members that
// --max-members of validate and run sets, passed on to the job of `ssim run --batch`).
spec::ParseOptions& parse_options();
// The extra arguments that repeat a non-default --max-members, or none.
std::vector<std::string> max_members_args();

}  // namespace ssim::session
