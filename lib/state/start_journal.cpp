#include "lib/state/start_journal.hpp"
#include "lib/state/job_id.hpp"
#include "lib/util/experiment_dir.hpp"

#include "lib/state/job_records.hpp"
#include "lib/state/launch_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string_view>
#include <cstring>
#include <sstream>
#include <system_error>
#include <stdexcept>

#include "lib/util/atomic_file.hpp"

namespace ssim::state {

std::string start_journal_path(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/starts"; }

// One line per start: NAME \t JOB_ID \t ATTEMPT \t START [\t EARLIER]. Names and job
// ids hold no tabs or newlines (names are validated; ids are PID@TICKS or the
// scheduler's); EARLIER is compact JSON, whose strings escape both.
void append_starts(const std::string& experiment_path, const std::vector<StartRecord>& starts) {
  StartJournal(experiment_path).append(starts);
}

StartJournal::~StartJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void StartJournal::append(const std::vector<StartRecord>& starts) {
  if (starts.empty()) return;
  std::ostringstream text;
  text.precision(17);
  for (const auto& s : starts)
    text << s.name << '\t' << s.job_id << '\t' << s.attempt << '\t' << s.start << (s.earlier.empty() ? "" : "\t")
         << s.earlier << '\n';
  const std::string bytes = text.str();
  if (fd_ < 0) fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
  const ssize_t n = ::write(fd_, bytes.data(), bytes.size());  // one write: whole lines
  if (n != static_cast<ssize_t>(bytes.size()))
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(n < 0 ? errno : ENOSPC));
}

namespace {
// The attempt before a start the manifest does not hold yet, unless it holds that one.
void keep_earlier_attempt(EntityRecord& e, const std::string& earlier) {
  if (earlier.empty()) return;
  auto j = nlohmann::json::parse(earlier, nullptr, false);
  if (!j.is_object() || !j.contains("attempt")) return;
  for (const auto& kept : e.extra().earlier_attempts)
    if (kept.is_object() && kept.value("attempt", 0) == j["attempt"]) return;
  e.extra_mut().earlier_attempts.push_back(std::move(j));
}
}  // namespace

void apply_starts(Manifest& m) {
  const auto text = read_file(start_journal_path(m.path));
  if (text) apply_starts(m, *text);
}

namespace {
// One line's fields; false for a torn last line.
bool parse_start(std::string_view line, StartRecord& s) {
  std::string_view fields[5];
  size_t n = 0;
  for (size_t from = 0; n < 5;) {
    const size_t tab = n < 4 ? line.find('\t', from) : std::string_view::npos;
    fields[n++] = line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from);
    if (tab == std::string_view::npos) break;
    from = tab + 1;
  }
  if (n < 4) return false;
  const auto number = [](std::string_view text, auto& out) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc() && r.ptr == text.data() + text.size();
  };
  if (!number(fields[2], s.attempt) || !number(fields[3], s.start)) return false;
  s.name.assign(fields[0]);
  s.job_id.assign(fields[1]);
  s.earlier.assign(n > 4 ? fields[4] : std::string_view());
  return true;
}
}  // namespace

void apply_starts(Manifest& m, const std::string& journal_text) {
  std::vector<StartRecord> starts;
  std::vector<EntityRecord*> entities;
  for (size_t from = 0; from < journal_text.size();) {
    size_t eol = journal_text.find('\n', from);
    if (eol == std::string::npos) eol = journal_text.size();
    StartRecord s;
    if (parse_start(std::string_view(journal_text).substr(from, eol - from), s))
      if (auto* e = m.find(s.name)) starts.push_back(std::move(s)), entities.push_back(e);
    from = eol + 1;
  }
  if (starts.empty()) return;  // the journal a save just emptied: no index of a million places made for it
  // A launch's line with job id "?" is followed by one with its id once ssim learned it:
  // only a "?" no later line of that attempt names needs its run directory asked.
  std::vector<int> named_later(m.entities.size(), -1);  // by place: the latest attempt with an id
  std::vector<bool> superseded(starts.size(), false);
  for (size_t i = starts.size(); i-- > 0;) {
    int& later = named_later[static_cast<size_t>(entities[i] - m.entities.data())];
    if (!parse_job_id(starts[i].job_id).is(JobId::Kind::Unknown))
      later = std::max(later, starts[i].attempt);
    else
      superseded[i] = later >= starts[i].attempt;
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    const StartRecord& s = starts[i];
    EntityRecord* e = entities[i];
    const bool unknown = parse_job_id(s.job_id).is(JobId::Kind::Unknown);
    // (an attempt whose id is known already, read from its launch before, is not read again)
    if (superseded[i] || s.attempt < e->attempt || (s.attempt == e->attempt && (e->job_id == s.job_id || unknown)))
      continue;
    // A launch whose id was never written counts once something says it began (its
    // keeper's record, or a status file); until then it may not have. Its launch may have
    // said which job it was to be (a node agent's): then it is that job.
    std::string job_id = s.job_id;
    if (unknown) {
      const auto record = read_job_record(e->run_dir, true);
      if (!record) continue;
      if (auto id = launched_job_id(launch_log_path(m.path), record->launch); !id.empty()) job_id = std::move(id);
    }
    if (s.attempt > e->attempt) keep_earlier_attempt(*e, s.earlier);
    e->job_id = job_id;
    e->attempt = s.attempt;
    e->start = s.start;
    e->submitted = s.start;
    if (e->status == Status::New || is_terminal(e->status)) e->status = Status::Pending;  // refreshed from here
    e->end = 0;
    e->no_metrics = false;
    e->exit_code.reset();
    e->signal.reset();
    e->reason.clear();
  }
}

void clear_starts(const std::string& experiment_path) { ::truncate(start_journal_path(experiment_path).c_str(), 0); }

}  // namespace ssim::state
