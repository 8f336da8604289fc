#pragma once
// What `ssim status --summary` shows of an experiment: its entities counted by status per
// group (the models together, each ensemble, the database), the longest to run and the
// failed ones. Made from a manifest by whoever holds one (`summarise`); the run that holds
// the experiment also writes it to `.ssim/summary.json` at its counting pace, so that a
// reader in another shell prints six lines without reading a million records.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::state {

struct StatusSummary {
  struct Group {
    std::string name;  // "(models)", "(database)" or the ensemble's
    int total = 0;
    std::map<Status, int> counts;
  };
  // An entity that ran: `end` 0 while it still runs (its time grows with the clock).
  struct Ran {
    std::string name;
    double start = 0, end = 0;
    double seconds(double now) const;
  };
  struct Failure {
    std::string name;
    std::optional<int> exit_code;
  };
  static constexpr size_t kSlowest = 5, kFailuresNamed = 20;
  static constexpr const char* kModelsGroup = "(models)";
  static constexpr const char* kDatabaseGroup = "(database)";

  std::string experiment, path;  // the experiment's name and folder
  std::vector<Group> groups;     // in the manifest's order
  // Enough to find the kSlowest at any later time: as many of those that ended, by their
  // time, and of those that run, by their start.
  std::vector<Ran> ran;
  int failed = 0;
  std::vector<Failure> failures;  // the first kFailuresNamed, in the manifest's order

  // The kSlowest at `now`, slowest first (the database not counted).
  std::vector<const Ran*> slowest(double now) const;
};

StatusSummary summarise(const Manifest& m);

// Who wrote a summary file, and when: a reader takes it only from the run that holds the
// experiment now (lib/state/lock.hpp), and only while it is fresh.
struct SummaryFile {
  StatusSummary summary;
  int pid = 0;
  std::string host, ticks;
  double written = 0;
};

std::string summary_path(const std::string& experiment_path);
std::string encode_summary_file(const SummaryFile& f);
// nullopt when absent or not a summary (a reader then reads the whole experiment).
std::optional<SummaryFile> decode_summary_file(const std::string& text);

}  // namespace ssim::state
