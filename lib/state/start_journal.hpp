#pragma once
// The starts the manifest does not hold yet. The engine saves the whole manifest at
// most every 100 ms (a 1,000-entity manifest costs milliseconds to write, and a packed
// ensemble starts an entity per freed core), but a job id must be on disk the moment
// its job exists, or a `kill -9` of ssim run would leave a job nobody can stop. So
// each start is appended to .ssim/starts (one small write per batch of starts), every
// reader of the manifest applies it, and a full save empties it. Each start is written
// twice: before the launch with job id "?" (a launch ssim did not live to record is
// still known, and its run directory says what became of it), and after with its id.
// A retry's line carries how the attempt before it ended: a reader that sees attempt 2
// before a save must not see it without its earlier attempt.
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::state {

struct StartRecord {
  std::string name;
  std::string job_id;
  int attempt = 0;
  double start = 0;
  std::string earlier;  // how the attempt before ended, as one line of JSON; empty for a first
};

std::string start_journal_path(const std::string& experiment_path);
// Appends; throws std::runtime_error when the file cannot be written.
void append_starts(const std::string& experiment_path, const std::vector<StartRecord>& starts);

// The same for a whole run, with the file kept open (O_APPEND: a clear_starts in between
// leaves the next lines at the start of the emptied file). An open and a close per
// append were, twice per start, on the path from one member's end to the next one's start.
class StartJournal {
 public:
  explicit StartJournal(const std::string& experiment_path) : path_(start_journal_path(experiment_path)) {}
  ~StartJournal();
  StartJournal(const StartJournal&) = delete;
  StartJournal& operator=(const StartJournal&) = delete;
  void append(const std::vector<StartRecord>& starts);

 private:
  std::string path_;
  int fd_ = -1;
};
// Gives each entity the job of a later (or the same) attempt than the manifest has.
void apply_starts(Manifest& m);
// The same from journal text read earlier: a reader reads the journal before the
// manifest, so a save-and-clear by the engine in between loses no start (the manifest
// it then reads holds them).
void apply_starts(Manifest& m, const std::string& journal_text);
void clear_starts(const std::string& experiment_path);

}  // namespace ssim::state
