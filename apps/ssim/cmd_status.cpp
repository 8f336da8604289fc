// ssim status [EXP] [--json] [--watch [SECONDS]] [--filter STATES] [-o FORMAT] [--summary]:
// the state of every entity, refreshed from the launcher and the supervisors' files;
// works with or without a live ssim run.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "lib/session/current_state.hpp"
#include "lib/session/live_summary.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/state/entity_error.hpp"
#include "lib/session/experiment_ref.hpp"
#include "apps/ssim/status_format.hpp"
#include "apps/ssim/status_summary.hpp"
#include "apps/ssim/status_table.hpp"
#include "lib/session/status_json.hpp"
#include "apps/ssim/inference_table.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct StatusOptions {
  std::string exp;
  bool json = false;
  std::string watch;  // SECONDS, or (`--watch EXP`) the experiment
  std::vector<std::string> filter;
  std::string format;
  std::string sort;
  bool summary = false;
};

std::set<state::Status> parse_filter(const std::vector<std::string>& words) {
  std::set<state::Status> out;
  for (const auto& w : words) {
    const state::Status s = state::status_from_string(w);
    if (s == state::Status::Unknown && w != "unknown")
      throw UsageError("--filter: unknown status \"" + w +
                       "\" (new, pending, running, completed, failed, cancelled, unknown)");
    out.insert(s);
  }
  return out;
}

// "(run pid N)", with the host when it is another.
std::string runner_text(const state::LockHolder& runner) {
  return "(" + runner.role + " pid " + std::to_string(runner.pid) +
         (runner.host == host_name() ? "" : " on " + runner.host) + ")";
}

bool is_number(const std::string& s) {
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}
}  // namespace

Action add_status(CLI::App& app) {
  auto o = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand("status", "Show the state of every entity of an experiment");
  cmd->add_option("EXP", o->exp, "experiment directory or YAML file (default: the last run from here)");
  cmd->add_flag("--json", o->json, "one JSON document on stdout (with --watch: one line per refresh)");
  cmd->add_option("--watch", o->watch, "refresh every SECONDS (default 2) until everything ended")
      ->expected(0, 1)
      ->default_str("2");
  cmd->add_option("--filter", o->filter, "only entities in these states (comma list: failed,cancelled)")
      ->delimiter(',');
  std::string fields;
  for (const auto& [name, what] : status_field_help()) fields += "\n  " + name + ": " + what;
  cmd->add_option("-o,--format", o->format,
                  "the columns: \"name,status,elapsed\" or \"{name} {status} {elapsed}\"; a metric's name "
                  "(loss) is its latest value; fields:" +
                      fields);
  cmd->add_option("--sort", o->sort, "order the rows by a field or a metric (loss; -val_acc: descending)");
  cmd->add_flag("--summary", o->summary,
                "counts per ensemble, the slowest and the failed, not every row; with --sort, the best and the worst");
  return [o, cmd] {
    // `--watch EXP` as well as `EXP --watch [SECONDS]`.
    double interval = 2.0;
    if (!o->watch.empty()) {
      if (is_number(o->watch))
        interval = std::atof(o->watch.c_str());
      else if (o->exp.empty())
        o->exp = o->watch;
      else
        throw UsageError("--watch takes SECONDS, not \"" + o->watch + "\"");
      if (interval <= 0) throw UsageError("--watch SECONDS must be more than 0");
    }
    const bool watch = cmd->count("--watch") > 0;
    const auto filter = parse_filter(o->filter);
    if (!o->format.empty()) parse_status_format(o->format, true);  // a bad format fails before anything is read
    if (!o->sort.empty()) parse_status_format(o->sort[0] == '-' ? o->sort.substr(1) : o->sort, true);
    const std::string path = resolve_experiment(o->exp);
    const bool terminal = ::isatty(STDOUT_FILENO);
    bool failed = false;
    for (bool first = true;; first = false) {
      // The counts of a run that holds the experiment, as it wrote them: no record read.
      if (const auto live =
              o->summary && o->sort.empty() && !o->json ? live_summary(path, now_seconds()) : std::nullopt) {
        std::ostringstream table;
        print_status_summary(table, live->summary, now_seconds());
        if (watch && terminal)
          std::cout << "\033[H\033[2J";
        else if (watch && !first)
          std::cout << "\n";
        std::cout << live->summary.experiment << "  " << live->summary.path << "  " << runner_text(live->runner);
        if (live->age >= 2) std::cout << "  counted " << static_cast<int>(live->age) << " s ago";
        std::cout << "\n" << table.str();
        std::cout.flush();
        failed = live->summary.failed > 0;
        if (!watch) break;
        std::this_thread::sleep_for(std::chrono::duration<double>(interval));
        continue;
      }
      CurrentState s = current_state(path);
      const auto counts = state::entity_counts(s.manifest);
      const auto f = counts.find(state::Status::Failed);
      failed = f != counts.end() && f->second > 0;
      std::vector<const state::EntityRecord*> rows;
      for (const auto& e : s.manifest.entities)
        if (filter.empty() || filter.count(e.status)) rows.push_back(&e);
      if (o->json) {
        write_status_json(std::cout, s.manifest, s.runner, watch ? -1 : 2,
                          [&](const state::EntityRecord& e) { return filter.empty() || filter.count(e.status) > 0; });
        std::cout << std::endl;
      } else {
        // A running database shard's note is where it listens (port: auto chose it).
        for (auto& e : s.manifest.entities)
          if (e.type == state::EntityKind::Database && e.status == state::Status::Running && e.reason.empty())
            if (const auto a = orchestrator::read_address(e.run_dir); a && a->port)
              e.reason = "at " + a->host + ":" + std::to_string(a->port);
        // A failure's note ends with what the program itself said last (not mpirun's banner).
        int tails = 0;
        for (auto& e : s.manifest.entities)
          if (e.status == state::Status::Failed && e.type != state::EntityKind::Database && tails++ < 200)
            if (const auto last = state::entity_last_error(e.run_dir, e.name, 1); !last.empty())
              e.reason += " | " + last;
        // Clear the screen only on a terminal; piped output gets one block per refresh.
        // The table first: a metric column no entity reported is an error before anything is printed.
        std::ostringstream table;
        if (o->summary) {
          print_status_summary(table, state::summarise(s.manifest), now_seconds());
          if (!o->sort.empty()) print_best_and_worst(table, s.manifest, o->sort);
        } else if (!o->format.empty() || !o->sort.empty())
          print_status_table_with_metrics(table, rows, o->format, o->sort);
        else
          print_status_table(table, rows);
        if (!o->summary) print_inference_table(table, s.manifest);
        if (watch && terminal)
          std::cout << "\033[H\033[2J";
        else if (watch && !first)
          std::cout << "\n";
        std::cout << s.manifest.experiment << "  " << s.manifest.path << "  "
                  << (s.runner                  ? runner_text(*s.runner)
                      : s.manifest.finished > 0 ? "(finished)"
                                                : "(no ssim process tracking it)")
                  << "\n";
        std::cout << table.str();
        std::cout.flush();
      }
      if (!watch || s.all_ended) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(interval));  // the refresh period
    }
    return failed ? 1 : 0;  // a gate for scripts: `ssim status EXP && next-step`
  };
}

}  // namespace ssim::app
