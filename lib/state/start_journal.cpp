#include "lib/state/start_journal.hpp"
#include "lib/state/job_id.hpp"
#include "lib/util/experiment_dir.hpp"

#include "lib/state/job_records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
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

void apply_starts(Manifest& m, const std::string& journal_text) {
  std::istringstream in(journal_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    StartRecord s;
    std::string attempt, start;
    if (!std::getline(fields, s.name, '\t') || !std::getline(fields, s.job_id, '\t') ||
        !std::getline(fields, attempt, '\t') || !std::getline(fields, start, '\t'))
      continue;  // a torn last line
    std::getline(fields, s.earlier);
    try {
      s.attempt = std::stoi(attempt);
      s.start = std::stod(start);
    } catch (const std::exception&) {
      continue;
    }
    auto* e = m.find(s.name);
    if (!e || s.attempt < e->attempt || (s.attempt == e->attempt && e->job_id == s.job_id)) continue;
    // A launch whose id was never written counts once something says it began (its
    // keeper's record, or a status file); until then it may not have.
    if (parse_job_id(s.job_id).is(JobId::Kind::Unknown) && !read_job_record(e->run_dir, true)) continue;
    if (s.attempt > e->attempt) keep_earlier_attempt(*e, s.earlier);
    e->job_id = s.job_id;
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
