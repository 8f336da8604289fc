#include "lib/state/job_records.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>

#include "lib/state/keeper_journal.hpp"
#include "lib/util/experiment_dir.hpp"
#include "lib/util/file_tail.hpp"

namespace ssim::state {

namespace {
// Asked again sooner, a record not found yet waits for the next refresh (a launcher's
// poll refreshes first): a sweep asking after a thousand pending jobs reads once.
constexpr double kRefreshPause = 0.02;
// How often the experiment's `cancels` flag is looked for while absent: a stop this
// process asks for is known at once (note_cancel); another process's (ssim stop with no
// run to ask) within this.
constexpr double kCancelsPause = 0.25;
constexpr size_t kReadChunk = 1 << 20;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

uint64_t key_of(std::string_view run_dir_json) { return std::hash<std::string_view>{}(run_dir_json); }

// Whether a journal ("HOST.PID.TICKS.ndjson", keeper_journal_name) was written elsewhere.
bool written_elsewhere(const std::string& name) {
  static const std::string here = [] {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    return std::string(host);
  }();
  const std::string stem = name.substr(0, name.size() - 7);  // HOST.PID.TICKS
  const size_t ticks = stem.rfind('.');
  const size_t pid = ticks == std::string::npos || ticks == 0 ? std::string::npos : stem.rfind('.', ticks - 1);
  return pid == std::string::npos || stem.compare(0, pid, here) != 0 || pid != here.size();
}

// The whole lines of what `fd` holds from `from`, each told to `line` with its offset;
// returns where the next read starts (after the last whole line).
template <typename Line>
long read_lines(int fd, long from, Line line) {
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size <= from) return from;
  std::string chunk;
  long at = from;
  while (at < st.st_size) {
    const size_t want = static_cast<size_t>(std::min<long>(kReadChunk, st.st_size - at));
    chunk.resize(want);
    const ssize_t n = ::pread(fd, chunk.data(), want, at);
    if (n <= 0) break;
    chunk.resize(static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = chunk.find('\n', start)) != std::string::npos; start = nl + 1)
      line(std::string_view(chunk).substr(start, nl - start + 1), at + static_cast<long>(start));
    if (start == 0) {
      if (static_cast<size_t>(n) == kReadChunk) {  // a line longer than a chunk: no record, skipped
        at += n;
        continue;
      }
      break;  // a line not whole yet: read again next time
    }
    at += static_cast<long>(start);
  }
  return at;
}
}  // namespace

JobRecords::JobRecords(std::string ssim_dir) : dir_(std::move(ssim_dir)) { look_for_cancels(); }

void JobRecords::look_for_cancels() {
  if (cancels_asked_) return;
  cancels_looked_at_ = steady_seconds();
  struct stat st {};
  cancels_asked_ = ::stat(cancels_flag_beside(dir_ + "/keepers").c_str(), &st) == 0;
}

void JobRecords::note_cancel() {
  if (cancels_asked_) return;
  const int fd = ::open(cancels_flag_beside(dir_ + "/keepers").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) ::close(fd);
  cancels_asked_ = true;  // made, or unwritable: its jobs' markers are looked for anyway
}

JobRecords::~JobRecords() {
  for (auto& j : journals_)
    if (j.fd >= 0) ::close(j.fd);
  if (launch_fd_ >= 0) ::close(launch_fd_);
}

// An experiment removed and made again under the same path (`ssim run --overwrite`): what
// was read of the old one (its launches, its journals, open still) says nothing of the new.
void JobRecords::forget_all() {
  for (auto& j : journals_)
    if (j.fd >= 0) ::close(j.fd);
  journals_.clear();
  journal_of_name_.clear();
  places_.clear();
  if (launch_fd_ >= 0) ::close(launch_fd_);
  launch_fd_ = -1;
  launches_read_ = 0;
  listed_change_ = -1;
  cancels_asked_ = false;
  look_for_cancels();
}

void JobRecords::note_launch(const std::string& run_dir, long launch) {
  long& known = places_[key_of(status_json_string(run_dir))].expected;
  known = std::max(known, launch);
}

void JobRecords::scan_launches() {
  if (launch_fd_ < 0) launch_fd_ = ::open((dir_ + "/launches.ndjson").c_str(), O_RDONLY | O_CLOEXEC);
  constexpr std::string_view kJob = "{\"run_dir\":";
  launches_read_ = read_lines(launch_fd_, launches_read_, [this, kJob](std::string_view line, long offset) {
    if (line.substr(0, kJob.size()) != kJob) return;  // the launching process's environment
    const auto run_dir = json_string_at(line.substr(kJob.size()));
    if (run_dir.empty()) return;
    long& known = places_[key_of(run_dir)].expected;
    known = std::max(known, offset);
  });
}

void JobRecords::read_journal(uint32_t index) {
  Journal& j = journals_[index];
  j.read = read_lines(j.fd, j.read, [this, index](std::string_view line, long offset) {
    long launch = 0;
    std::string_view run_dir;
    if (!read_journal_head(line, launch, run_dir)) return;
    Place& p = places_[key_of(run_dir)];
    if (launch < p.launch) return;  // an earlier attempt's, read after the later one's
    p.launch = launch, p.offset = offset, p.journal = index, p.length = static_cast<uint32_t>(line.size());
  });
}

void JobRecords::refresh(bool fresh) {
  refreshed_at_ = steady_seconds();
  list_journals();
  for (uint32_t i = 0; i < journals_.size(); ++i) {
    Journal& j = journals_[i];
    if (j.remote) {
      if (const int fd = ::open(j.path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) ::close(j.fd), j.fd = fd;
    }
    read_journal(i);
  }
  // After the records: an end they hold that a stop caused is seen with the stop.
  if (fresh || steady_seconds() - cancels_looked_at_ >= kCancelsPause) look_for_cancels();
}

// Journals new since the last listing: listed again only when the folder changed (a
// keeper's first record makes its journal), or soon after a change, when a second one
// could share its time (the kernel's clock tick, a few ms; a second where times have no
// fraction).
void JobRecords::list_journals() {
  const std::string keepers = dir_ + "/keepers";
  struct statx st {};
  if (::statx(AT_FDCWD, keepers.c_str(), 0, STATX_INO | STATX_BTIME | STATX_MTIME, &st) != 0) return;
  // The folder's inode and birth time: an experiment made anew may get the inode number
  // its predecessor freed, never both (no birth time: the inode alone).
  const KeepersFolder folder{st.stx_ino, (st.stx_mask & STATX_BTIME) ? st.stx_btime.tv_sec : 0,
                             (st.stx_mask & STATX_BTIME) ? st.stx_btime.tv_nsec : 0u};
  if (keepers_folder_ && !(*keepers_folder_ == folder)) forget_all();  // the experiment was made anew
  keepers_folder_ = folder;
  const double changed = static_cast<double>(st.stx_mtime.tv_sec) + st.stx_mtime.tv_nsec / 1e9;
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const double granule = st.stx_mtime.tv_nsec == 0 ? 1.0 : 0.05;
  if (changed == listed_change_ && now - changed > granule) return;
  listed_change_ = changed;
  DIR* d = ::opendir(keepers.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 8 || name.compare(name.size() - 7, 7, ".ndjson") != 0) continue;
    if (journal_of_name_.count(name)) continue;
    Journal j;
    j.path = keepers + "/" + name;
    j.fd = ::open(j.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (j.fd < 0) continue;
    j.remote = written_elsewhere(name);
    journal_of_name_[name] = static_cast<uint32_t>(journals_.size());
    journals_.push_back(std::move(j));
  }
  ::closedir(d);
}

std::optional<StatusFile> JobRecords::read_place(const Place& p, const std::string& run_dir_json) {
  std::string text(p.length, '\0');
  for (int attempt = 0; attempt < 3; ++attempt) {  // met halfway through its keeper's rewrite
    const ssize_t n = ::pread(journals_[p.journal].fd, text.data(), text.size(), p.offset);
    if (n != static_cast<ssize_t>(text.size())) return std::nullopt;
    long launch = 0;
    std::string_view run_dir;
    if (!read_journal_head(text, launch, run_dir) || launch != p.launch || run_dir != run_dir_json) continue;
    if (auto st = decode_status_file(text)) {
      st->launch = launch;
      return st;
    }
  }
  return std::nullopt;
}

std::optional<StatusFile> JobRecords::find(const std::string& run_dir, bool fresh) {
  const std::string written = status_json_string(run_dir);
  const uint64_t key = key_of(written);
  auto place = places_.find(key);
  if (place == places_.end() || place->second.expected < 0) {
    scan_launches();  // launched by another process
    place = places_.find(key);
  }
  const long expected = place == places_.end() ? -1 : place->second.expected;
  const bool known = place != places_.end() && place->second.launch >= 0 && place->second.launch >= expected;
  const bool remote = known && journals_[place->second.journal].remote;
  if (!known || fresh || remote) {
    if (fresh || steady_seconds() - refreshed_at_ >= kRefreshPause) refresh(fresh);
    place = places_.find(key);
    if (place == places_.end() || place->second.launch < 0 || place->second.launch < expected)
      return std::nullopt;  // pending
  }
  return read_place(place->second, written);
}

namespace {
std::mutex g_records_lock;
std::map<std::string, std::unique_ptr<JobRecords>>& all_records() {
  static std::map<std::string, std::unique_ptr<JobRecords>> records;  // by .ssim folder
  return records;
}

// The experiment's records for the folder `parent`, walking up to its `.ssim`.
JobRecords* records_above(const std::filesystem::path& parent) {
  static std::map<std::string, JobRecords*> found;  // parent folder -> its experiment's
  if (const auto it = found.find(parent.string()); it != found.end()) return it->second;
  for (auto up = parent; !up.empty(); up = up.parent_path()) {
    const std::string dir = ssim_dir(up.string());
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      auto& records = all_records()[dir];
      if (!records) records = std::make_unique<JobRecords>(dir);
      return found[parent.string()] = records.get();
    }
    if (up == up.root_path()) break;
  }
  return nullptr;  // not remembered: the experiment may be made later
}
}  // namespace

JobRecords* job_records_of(const std::string& run_dir) {
  const std::lock_guard<std::mutex> lock(g_records_lock);
  return records_above(std::filesystem::path(run_dir).parent_path());
}

void refresh_job_records() {
  const std::lock_guard<std::mutex> lock(g_records_lock);
  for (auto& [dir, records] : all_records()) records->refresh();
}

bool cancels_asked_in(const std::string& run_dir) {
  const std::lock_guard<std::mutex> lock(g_records_lock);
  const JobRecords* records = records_above(std::filesystem::path(run_dir).parent_path());
  return !records || records->cancels_asked();
}

void note_cancel_in(const std::string& run_dir) {
  const std::lock_guard<std::mutex> lock(g_records_lock);
  if (JobRecords* records = records_above(std::filesystem::path(run_dir).parent_path())) records->note_cancel();
}

std::optional<StatusFile> read_job_record(const std::string& run_dir, bool fresh) {
  std::optional<StatusFile> recorded;
  if (JobRecords* records = job_records_of(run_dir)) {
    const std::lock_guard<std::mutex> lock(g_records_lock);
    recorded = records->find(run_dir, fresh);
  }
  // An end its keeper recorded is the job's: no status file is looked for (a lookup per
  // member spared). One is, while it runs or has no record: ssim may have recovered its
  // outcome, or refused its start.
  if (recorded && recorded->exited) return recorded;
  for (int attempt = 0; attempt < 3; ++attempt) {  // a cut text: its writer rewrites it in place
    const auto text = read_run_file(status_file_path(run_dir));
    if (!text) break;
    if (auto status = decode_status_file(*text)) return status;
  }
  return recorded;
}

}  // namespace ssim::state
