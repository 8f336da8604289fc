#include "lib/state/keeper_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace ssim::state {

std::string keepers_dir_beside(const std::string& launch_log) {
  const size_t slash = launch_log.rfind('/');
  return (slash == std::string::npos ? std::string(".") : launch_log.substr(0, slash)) + "/keepers";
}

std::string cancels_flag_beside(const std::string& keepers_dir) {
  return keepers_dir.substr(0, keepers_dir.find_last_of('/') + 1) + "cancels";
}

std::string keeper_journal_name(const std::string& host, int pid, const std::string& ticks) {
  return host + "." + std::to_string(pid) + "." + ticks + ".ndjson";
}

namespace {
std::string record_text(long launch, const std::string& run_dir, const StatusFile& st) {
  std::string fields = encode_status_file(st);  // "{...}\n"
  fields.erase(0, 1);
  fields.pop_back();
  return "{\"launch\":" + std::to_string(launch) + ",\"run_dir\":" + status_json_string(run_dir) + "," + fields;
}
}  // namespace

std::string encode_journal_record(long launch, const std::string& run_dir, const StatusFile& st, size_t slot) {
  std::string text = record_text(launch, run_dir, st);
  if (slot == 0) slot = text.size() + kJournalEndRoom + 1;
  if (text.size() + 1 > slot && !st.error.empty()) {
    // Cut the error (by whole UTF-8 characters) to what the slot has room for.
    StatusFile shorter = st;
    const size_t over = text.size() + 1 - slot + 3;  // "..." added
    size_t keep = shorter.error.size() > over ? shorter.error.size() - over : 0;
    while (keep > 0 && (static_cast<unsigned char>(shorter.error[keep]) & 0xC0) == 0x80) --keep;
    shorter.error = shorter.error.substr(0, keep) + "...";
    text = record_text(launch, run_dir, shorter);
  }
  if (text.size() + 1 > slot) return "";
  text.append(slot - 1 - text.size(), ' ');
  return text + "\n";
}

std::string_view json_string_at(std::string_view text) {
  if (text.empty() || text[0] != '"') return {};
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return text.substr(0, i + 1);
  }
  return {};
}

bool read_journal_head(std::string_view line, long& launch, std::string_view& run_dir_json) {
  constexpr std::string_view kLaunch = "{\"launch\":", kRunDir = ",\"run_dir\":";
  if (line.substr(0, kLaunch.size()) != kLaunch) return false;
  size_t at = kLaunch.size();
  long value = 0;
  const size_t digits = at;
  while (at < line.size() && line[at] >= '0' && line[at] <= '9') value = value * 10 + (line[at++] - '0');
  if (at == digits || line.substr(at, kRunDir.size()) != kRunDir) return false;
  run_dir_json = json_string_at(line.substr(at + kRunDir.size()));
  launch = value;
  return !run_dir_json.empty();
}

KeeperJournal::KeeperJournal(std::string dir, std::string name, bool shared)
    : dir_(std::move(dir)), path_(dir_ + "/" + std::move(name)), shared_(shared) {}

KeeperJournal::~KeeperJournal() {
  if (fd_ >= 0) ::close(fd_);
}

bool KeeperJournal::open_journal() {
  if (fd_ >= 0) return true;
  // Not O_APPEND (Linux's pwrite appends on such a descriptor, and an end is written over
  // its slot): this process is the journal's only writer and keeps its end itself.
  for (int attempt = 0; attempt < 2 && fd_ < 0; ++attempt) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0 && errno == ENOENT) ::mkdir(dir_.c_str(), 0700);  // ssim makes it; an older run may not have
  }
  struct stat st {};
  if (fd_ >= 0 && ::fstat(fd_, &st) == 0) end_ = static_cast<long>(st.st_size);
  return fd_ >= 0;
}

bool KeeperJournal::write_at(long offset, const std::string& text, size_t& done) {
  for (done = 0; done < text.size();) {
    const ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done, offset + static_cast<long>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return !shared_ || ::fdatasync(fd_) == 0;
}

long KeeperJournal::append(const std::string& record) {
  if (!open_journal()) return -1;
  const long at = end_;
  size_t done = 0;
  if (write_at(at, record, done)) {
    end_ += static_cast<long>(record.size());
    return at;
  }
  // A full disk took part of it: the cut line is ended, when a byte more fits, so that
  // readers skip it and meet the next record whole; else the next record goes over it.
  size_t newline = 0;
  if (done > 0 && write_at(at + static_cast<long>(done), "\n", newline)) end_ += static_cast<long>(done) + 1;
  return -1;
}

bool KeeperJournal::rewrite(long offset, const std::string& record) {
  size_t done = 0;
  return open_journal() && write_at(offset, record, done);
}

}  // namespace ssim::state
