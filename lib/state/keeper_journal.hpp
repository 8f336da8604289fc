#pragma once
// <experiment>/.ssim/keepers/HOST.PID.TICKS.ndjson: how the jobs a keeper process kept
// stand, one journal per keeper (a pooled keeper keeps one job after another), so that a
// member costs the file system no file of ssim's (docs/layout.md). A job's record is
// one line, a slot of fixed length:
//   {"launch":N,"run_dir":"...", <the status file's fields>}   then spaces, then '\n'
// written once when the program starts, with room left after it, and written over in
// place when it ends: the end needs no new block of a full disk. `launch` is the byte
// offset of the job's line in the experiment's launch log (lib/state/launch_log.hpp):
// of the records of one run directory, the one of its latest launch is its status.
#include <optional>
#include <string>
#include <string_view>

#include "lib/state/status_file.hpp"

namespace ssim::state {

// The folder of an experiment's keeper journals, beside its launch log.
std::string keepers_dir_beside(const std::string& launch_log);
std::string keeper_journal_name(const std::string& host, int pid, const std::string& ticks);
// The experiment's `cancels` flag beside its keepers folder: made when ssim first asks a
// job of the experiment to stop, before that job's marker (lib/state/job_records.hpp).
std::string cancels_flag_beside(const std::string& keepers_dir);

// Room a first record leaves for what the end adds (end, exit code, signal, an error).
inline constexpr size_t kJournalEndRoom = 192;

// The record as a slot of `slot` bytes (0: its own length and kJournalEndRoom). An error
// too long for the slot is cut to fit; "" when even that cannot fit.
std::string encode_journal_record(long launch, const std::string& run_dir, const StatusFile& st, size_t slot = 0);

// What a reader indexes, from the start of a line: the launch and the run directory as
// written (status_json_string). False for a line that is not a record.
bool read_journal_head(std::string_view line, long& launch, std::string_view& run_dir_json);

// The JSON string at the start of `text` (`"..."`, escapes kept), or empty when there is
// none whole.
std::string_view json_string_at(std::string_view text);

// A keeper's journal, opened (created) at its first record and kept open. `shared`: its
// readers are on other hosts of a network file system, which sees a client's writes once
// they are flushed: each record is (fdatasync), as a file's close would.
class KeeperJournal {
 public:
  KeeperJournal(std::string dir, std::string name, bool shared = false);
  ~KeeperJournal();
  KeeperJournal(const KeeperJournal&) = delete;
  KeeperJournal& operator=(const KeeperJournal&) = delete;
  // Appends a record; its offset, or -1 when it could not be written whole.
  long append(const std::string& record);
  // Writes `record` over the slot at `offset` (the same length); false when it failed.
  bool rewrite(long offset, const std::string& record);

 private:
  bool open_journal();
  bool write_at(long offset, const std::string& text, size_t& done);
  std::string dir_, path_;
  bool shared_ = false;
  int fd_ = -1;
  long end_ = 0;  // where the next record goes
};

}  // namespace ssim::state
