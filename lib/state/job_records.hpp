#pragma once
// How a job stands, by what its keeper recorded (lib/state/keeper_journal.hpp) or, for
// jobs no keeper journals (a batch job's wrapper, a start refused, an outcome ssim
// recovered), its status file (lib/state/status_file.hpp). The one reader of both, for
// every process that asks: `ssim run` and its launchers, `ssim status`/`stop` in another
// shell, a node agent ending its jobs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/state/status_file.hpp"

namespace ssim::state {

// One experiment's keeper journals and launch log, read incrementally: each byte once,
// each record's place kept (not its text), its slot read again when asked for.
class JobRecords {
 public:
  explicit JobRecords(std::string ssim_dir);
  ~JobRecords();
  JobRecords(const JobRecords&) = delete;
  JobRecords& operator=(const JobRecords&) = delete;
  // A launch this process wrote to the launch log (its offset there): the run directory's
  // status is that launch's record from now on, pending until its keeper writes one.
  void note_launch(const std::string& run_dir, long launch);
  // The record of the run directory's latest launch; nullopt when its keeper wrote none
  // (yet). Reads what the journals gained when the record is not known yet, at most once
  // per kRefreshPause unless `fresh`.
  std::optional<StatusFile> find(const std::string& run_dir, bool fresh = false);
  // Reads what the journals gained since the last time (`fresh`: and looks for the
  // cancels flag whatever its pace).
  void refresh(bool fresh = false);
  // Whether any job of the experiment was asked to stop: its folder's `cancels` marker,
  // made before the first job's own (launchers/job_files.hpp). Until then no job's
  // marker is looked for: a lookup per member spared, which on a parallel file system is
  // a round trip to its metadata server. Looked for at refreshes (every 250 ms at most)
  // until found.
  bool cancels_asked() const { return cancels_asked_; }
  void note_cancel();

 private:
  struct Journal {
    std::string path;
    int fd = -1;
    long read = 0;  // bytes indexed; a line not whole yet is read again
    // Written on another host: opened again at each refresh, since a network file system
    // shows another client's writes to an open, not to a descriptor kept from before.
    bool remote = false;
  };
  // What is known of one run directory: its latest launch, and where the record of the
  // latest launch a journal holds lies (launch -1: none read yet). One entry per run
  // directory, a million of them in a large ensemble: kept small.
  struct Place {
    long expected = -1;
    long launch = -1;
    long offset = 0;
    uint32_t journal = 0;
    uint32_t length = 0;
  };
  void list_journals();
  void forget_all();
  void read_journal(uint32_t index);
  void scan_launches();
  void look_for_cancels();
  std::optional<StatusFile> read_place(const Place& p, const std::string& run_dir_json);
  std::string dir_;
  std::vector<Journal> journals_;
  std::unordered_map<std::string, uint32_t> journal_of_name_;
  std::unordered_map<uint64_t, Place> places_;  // by hash of the run directory as written
  int launch_fd_ = -1;
  long launches_read_ = 0;  // bytes of the launch log scanned
  double refreshed_at_ = 0;
  bool cancels_asked_ = false;
  double cancels_looked_at_ = -1e9;
  double listed_change_ = -1;  // the keepers folder's time of change when last listed
  // The keepers folder read so far (another: the experiment was made anew).
  struct KeepersFolder {
    uint64_t inode = 0;
    int64_t born_sec = 0;
    uint32_t born_nsec = 0;
    bool operator==(const KeepersFolder&) const = default;
  };
  std::optional<KeepersFolder> keepers_folder_;
};

// The records of the experiment `run_dir` lies in (found by walking up to an `.ssim`
// folder with a launch log; kept for the process's life); nullptr when there is none.
JobRecords* job_records_of(const std::string& run_dir);
// Reads what every experiment's journals gained (a launcher's poll, before it asks).
void refresh_job_records();

// How the job in `run_dir` stands: its keeper's record of its latest launch once that says
// it ended, else its status file when there is one (written by ssim, recovering an outcome
// or refusing a start, or by a batch job's wrapper, which no keeper journals; a rerun
// removes it first), else its keeper's record of it running. A text met halfway through a
// rewrite is read again; nullopt when there is none. `fresh`: read the journals whatever
// their pace.
std::optional<StatusFile> read_job_record(const std::string& run_dir, bool fresh = false);

// Whether a job of the experiment `run_dir` lies in may have been asked to stop (true
// where there is no experiment to ask); and the note that one is, before its marker.
bool cancels_asked_in(const std::string& run_dir);
void note_cancel_in(const std::string& run_dir);

}  // namespace ssim::state
