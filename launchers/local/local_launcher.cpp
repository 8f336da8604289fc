// Boost.Process 1.81 enables vfork only for pre-2008 POSIX feature levels, yet vfork
// is what makes a spawn cost the same as posix_spawn instead of a full fork of ssim
// (measured: 1.6 ms vs 2.5 ms per start here). glibc provides vfork, so turn it on.
#define BOOST_POSIX_HAS_VFORK 1
#include "launchers/local/local_launcher.hpp"
#include "launchers/job_files.hpp"

#include "lib/util/file_tail.hpp"
#include "lib/state/agent_files.hpp"
#include "lib/state/job_file.hpp"
#include "lib/state/job_records.hpp"
#include "lib/state/keeper_journal.hpp"
#include "lib/state/launch_log.hpp"
#include "lib/state/rank_ends.hpp"
#include "lib/state/status_file.hpp"

#include "lib/launch/devices.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/posix.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lib/util/job_process.hpp"
#include "lib/util/processes.hpp"
#include "launchers/local/signals.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/layout.hpp"

namespace ssim::launchers {
using namespace ssim::launch;

namespace bp = boost::process;
namespace fs = std::filesystem;
using state::Status;

std::string LocalLauncher::default_supervisor() {
  const std::string found = find_supervisor();
  return found.empty() ? supervisor_candidates().front() : found;  // a missing one is reported before the run
}

LocalLauncher::LocalLauncher(std::string supervisor) : supervisor_(std::move(supervisor)), host_(current_host()) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;  // then ticks alone
  agent_wanted_ = agents_allowed();
}

bool agents_allowed() {
  const char* agents = std::getenv("SSIM_AGENTS");
  return !(agents && std::string(agents) == "0");
}

LocalLauncher::~LocalLauncher() {
  // The agent sees the end of its input: it lets its jobs finish and leaves. A stopped one
  // (SIGSTOP, Ctrl-Z of its group) is continued first, or it would stay for ever.
  if (agent_.socket >= 0) ::close(agent_.socket);
  if (agent_.pid > 0 && !agent_.ticks.empty() && process_alive(agent_.pid, agent_.ticks)) ::kill(agent_.pid, SIGCONT);
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

std::vector<std::string> LocalLauncher::command(const plan::Step& step) const {
  return local_command(step, host_, supervisor_);
}

std::vector<PoolNode> LocalLauncher::pool(const plan::Plan& plan) const {
  PoolNode node{"localhost", plan.oversubscribe ? 0 : local_cpus(), std::nullopt};
  for (const auto& s : plan.steps)
    if (s.program->res.gpus_per_task > 0) {
      node.gpus = detect_gpus().ids;
      break;
    }
  return {node};
}

namespace {
// The job file its keeper runs: the command, and the environment complete (this
// process's, plus the job's additions).
std::string job_text(const LaunchRequest& r, const std::vector<std::string>& base_env) {
  return state::encode_job_file({r.argv, state::merged_environment(base_env, r.env), r.time_limit});
}

}  // namespace

std::vector<JobRef> LocalLauncher::start(std::span<const LaunchRequest> requests) {
  const auto jobs = prepare_jobs(requests);
  for (const auto& r : requests) unrecorded_.erase(r.run_dir);
  if (wake_[1] >= 0)  // their keepers will say when they start and end
    for (const auto& r : requests) quiet_[r.run_dir] = JobStatus{.status = Status::Pending};
  std::vector<JobRef> refs;
  // A second try when the agent turns out to be gone before it took these jobs.
  for (int attempt = 0; attempt < 2 && agent_ready(); ++attempt) {
    static const std::string here = host_name();
    const auto id = state::JobId::supervisor(agent_.pid, agent_.ticks, here);
    for (size_t i = 0; i < requests.size(); ++i) {
      agent_.unsent += state::encode_job_handoff(jobs[i]);
      refs.push_back(JobRef{id, requests[i].name, requests[i].run_dir});
    }
    if (send_to_agent()) return refs;
    // What it was sent earlier and did not start is reported as never recorded by its
    // supervisor, when polled.
    ::close(agent_.socket);
    agent_.socket = -1;
    refs.clear();
  }
  for (size_t i = 0; i < requests.size(); i += kJobsPerSupervisor) {
    const size_t n = std::min(kJobsPerSupervisor, requests.size() - i);
    spawn_supervisor(requests.subspan(i, n), std::span<const state::AgentJob>(jobs).subspan(i, n), refs);
  }
  return refs;
}

std::vector<state::AgentJob> prepare_jobs(std::span<const LaunchRequest> requests,
                                          const std::vector<std::string>& ids) {
  const auto base_env = state::this_environment();
  std::vector<state::AgentJob> jobs;
  jobs.reserve(requests.size());
  std::map<std::string, std::vector<size_t>> logged;  // by launch log: which requests
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    // A rerun (--resume, a retry) must not read the previous attempt's files (its keeper's
    // record is an earlier launch's, which readers pass over).
    if (r.earlier_attempts) {
      ::unlink(status_file(r.run_dir).c_str());
      ::unlink(cancel_marker(r.run_dir).c_str());
      state::forget_last_attempt(r.run_dir);
    }
    jobs.push_back({r.run_dir, r.name, job_text(r, base_env), -1, ""});
    if (!r.launch_log.empty()) logged[r.launch_log].push_back(i);
  }
  try {
    for (const auto& [log, which] : logged) {
      std::vector<state::LaunchEntry> entries;
      entries.reserve(which.size());
      for (size_t i : which)
        entries.push_back({requests[i].run_dir, requests[i].argv, requests[i].env, requests[i].time_limit,
                           i < ids.size() ? ids[i] : ""});
      const auto launches = state::append_launches(log, base_env, entries);
      const std::string journals = state::keepers_dir_beside(log);
      static std::set<std::string> made;  // the folder the keepers' journals go in, once
      if (made.insert(journals).second) ::mkdir(journals.c_str(), 0700);
      state::JobRecords* records = state::job_records_of(requests[which.front()].run_dir);
      for (size_t k = 0; k < which.size(); ++k) {
        jobs[which[k]].launch = launches[k];
        jobs[which[k]].journals = journals;
        if (records) records->note_launch(requests[which[k]].run_dir, launches[k]);
      }
    }
  } catch (const std::exception& e) {
    throw EnvironmentError(std::string("cannot record the launch of ") + requests.front().name + ": " + e.what());
  }
  return jobs;
}

state::JobId LocalLauncher::spawn_supervisor_process(const std::vector<std::string>& args, int input) {
  // The wake pipe's write end is handed to the supervisor (SSIM_WAKE_FD), whose
  // watchers write to it when their job ends; it is close-on-exec everywhere else.
  const int wake = wake_[1];
  auto env = boost::this_process::environment();
  if (wake >= 0) env["SSIM_WAKE_FD"] = std::to_string(wake);
  if (!node_variable_.empty()) env["SSIM_NODE_VARIABLE"] = node_variable_;
  bp::child child(
      bp::exe = supervisor_, bp::args = args, bp::std_out > bp::null, bp::std_err > bp::null, bp::posix::use_vfork, env,
      bp::extend::on_exec_setup = [wake, input](auto&) {
        if (wake >= 0) ::fcntl(wake, F_SETFD, 0);
        const int in = input >= 0 ? input : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (in >= 0 && in != 0) ::dup2(in, 0);
      });
  // "PID@START_TICKS@HOST": the supervisor is never confused with a later process that
  // reuses its pid, nor judged from a host whose process table it is not in.
  static const std::string here = host_name();
  const int pid = static_cast<int>(child.id());
  child.detach();  // reaped in poll(); the jobs must outlive this object
  supervisors_.insert(pid);
  ended_supervisors_.erase(pid);  // a reused pid
  return state::JobId::supervisor(pid, start_ticks(pid), here);
}

void LocalLauncher::spawn_supervisor(std::span<const LaunchRequest> batch, std::span<const state::AgentJob> jobs,
                                     std::vector<JobRef>& refs) {
  // An agent of its own for these jobs: handed them all, then told no more will come (it
  // leaves once they ended).
  int pair[2] = {-1, -1};
  try {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      throw bp::process_error(std::error_code(errno, std::system_category()), "socketpair");
    const auto id = spawn_supervisor_process({"--local-agent"}, pair[1]);
    ::close(pair[1]);
    std::string handoffs;
    for (size_t i = 0; i < batch.size(); ++i) handoffs += state::encode_job_handoff(jobs[i]);
    for (size_t done = 0; done < handoffs.size();) {
      const ssize_t n = ::send(pair[0], handoffs.data() + done, handoffs.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // it died: its jobs are reported as never recorded, when polled
      done += static_cast<size_t>(n);
    }
    ::close(pair[0]);
    for (const auto& r : batch) refs.push_back(JobRef{id, r.name, r.run_dir});
  } catch (const bp::process_error& e) {
    for (int fd : pair)
      if (fd >= 0) ::close(fd);
    // Reported through the jobs' status files, like any other failure to start.
    state::StatusFile failed;
    failed.exited = true, failed.exit_code = 127;
    failed.error = std::string("ssim: cannot start ") + supervisor_ + ": " + e.what();
    for (const auto& r : batch) {
      write_file_atomically(status_file(r.run_dir), state::encode_status_file(failed));
      refs.push_back(JobRef{state::JobId::refused(), r.name, r.run_dir});
    }
  }
}

bool LocalLauncher::agent_ready() {
  if (!agent_wanted_) return false;
  if (agent_.socket >= 0 && supervisors_.count(agent_.pid)) return true;  // not reaped: alive
  if (agent_.socket >= 0) ::close(agent_.socket);                         // it died: a new one takes the next jobs
  agent_ = Agent{};
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return false;
  try {
    const auto id = spawn_supervisor_process({"--local-agent"}, pair[1]);
    agent_.pid = id.pid;
    agent_.ticks = id.ticks;
    agent_.socket = pair[0];
    ::fcntl(agent_.socket, F_SETFL, O_NONBLOCK);
  } catch (const bp::process_error&) {
    ::close(pair[0]);
    agent_wanted_ = false;  // an old ssim-supervise, or none: a supervisor per batch reports it
  }
  ::close(pair[1]);
  return agent_.socket >= 0;
}

void LocalLauncher::hear_agent() {
  if (agent_.socket < 0) return;
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(agent_.socket, buffer, sizeof buffer, MSG_DONTWAIT)) > 0) agent_.heard.append(buffer, n);
  for (size_t end; (end = agent_.heard.find('\0')) != std::string::npos; agent_.heard.erase(0, end + 1))
    unrecorded_.insert(agent_.heard.substr(0, end));
}

bool LocalLauncher::send_to_agent() {
  while (!agent_.unsent.empty()) {
    const ssize_t n = ::send(agent_.socket, agent_.unsent.data(), agent_.unsent.size(), MSG_NOSIGNAL);
    if (n > 0) {
      agent_.unsent.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return true;  // the agent is busy: the rest goes at the next poll
    } else {
      return false;
    }
  }
  return true;
}

namespace {

// Less than a few KiB left where the job's files go: why a status may not have been written.
bool disk_full(const std::string& run_dir) {
  struct statvfs st {};
  return ::statvfs(run_dir.c_str(), &st) == 0 && st.f_bavail * st.f_frsize < 16 * 1024;
}

// A supervisor's pid and start time (empty: not recorded, as in ssim 0.1's manifests).
struct SupervisorRef {
  int pid = 0;
  std::string ticks;
};

// A job whose supervisor runs on another host (ssim status on a login node, the run
// inside a job): its pids mean nothing here, so its status file is the only witness.
// Running per its file stays running; the run on that host (or the scheduler's end of
// the job it runs in) decides the rest.
JobStatus remote_status(const std::string& run_dir, const std::string& host) {
  JobStatus s = status_from_file(run_dir);
  if (!state::is_terminal(s.status)) s.reason = "per its status file (supervised on " + host + ")";
  return s;
}

// The program's supervisor is gone but its status still says running. If the program
// was re-parented to this process (ssim run is a child subreaper), its exit status can
// be taken here and recorded as the supervisor would have; if it still runs it is
// watched; otherwise the outcome is lost, and that is an end, not "running" for ever.
// `unsaved`: its supervisor said it could not write the status, or the disk is full.
JobStatus without_supervisor(const JobRef& job, const state::StatusFile& j, double cancelled_at, bool unsaved) {
  JobStatus s;
  s.start = j.start;
  s.pid = j.pid;
  const std::string ticks = j.pid_start_ticks;
  int wstatus = 0;
  if (s.pid > 0 && ::waitpid(s.pid, &wstatus, WNOHANG) == s.pid) {
    state::StatusFile ended = j;
    ended.exited = true;
    ended.end = now_seconds();
    if (WIFEXITED(wstatus)) ended.exit_code = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) ended.signal = WTERMSIG(wstatus);
    ended.recovered_by = "ssim run (the supervisor was killed)";
    try {
      write_file_atomically(status_file(job.run_dir), state::encode_status_file(ended));
    } catch (const std::exception&) {
      // Reported below from memory; a later reader sees the outcome as lost.
    }
    return from_exit(ended, cancelled_at);
  }
  if (process_alive(s.pid, ticks) || (!process_exists(s.pid) && group_alive(s.pid))) {
    s.status = Status::Running;
    s.reason = "its supervisor was killed; the program still runs";
    return s;
  }
  s.status = cancelled_at > 0 ? Status::Cancelled : Status::Failed;
  s.reason = cancelled_at > 0 ? "stopped by ssim"
             : unsaved        ? "the program ended but its status could not be written: the disk is full"
                              : "its supervisor was killed and the exit status is lost";
  s.end = now_seconds();
  s.judged = true;
  return s;
}

// `unrecorded`: its keeper said it ended with no status written (the run's agent, which
// stays alive, told ssim: ssim-supervise's local_agent.cpp).
JobStatus poll_one(const JobRef& job, const std::string& here, const std::map<int, int>& ended, bool unrecorded) {
  // "0" (refused) and "?" (id never learned) have no supervisor: their files decide.
  const SupervisorRef supervisor{job.id.is(state::JobId::Kind::Supervisor) ? job.id.pid : 0, job.id.ticks};
  const std::string& host = job.id.host;
  if (!host.empty() && host != here) return remote_status(job.run_dir, host);
  int supervisor_status = -1;
  if (const auto it = ended.find(supervisor.pid); it != ended.end()) supervisor_status = it->second;
  // Whether (and when) ssim asked it to stop matters only once it ended, or lost its
  // supervisor: not asked at every poll of a running job (a stat per job and tick).
  const auto cancelled_at = [&job] { return cancel_time(job.run_dir); };
  // The file is read before asking whether its writer lives, so a writer found dead may
  // have written (and ended) in between: read it once more before concluding anything.
  std::optional<state::StatusFile> j = read_status(job.run_dir);
  const bool supervisor_alive = j || process_alive(supervisor.pid, supervisor.ticks);
  if (!supervisor_alive) j = read_status(job.run_dir, true);
  JobStatus s;
  if (!j) {
    // The supervisor has not started this job yet, or could not record it.
    if (unrecorded) {
      s.status = cancelled_at() > 0 ? Status::Cancelled : Status::Failed;
      s.reason = disk_full(job.run_dir) ? "the program ended but its status could not be written: the disk is full"
                                        : "the program ended but its status could not be written";
      s.end = now_seconds();
    } else if (supervisor_alive) {
      s.status = Status::Pending;
    } else {
      const double at = cancelled_at();
      s.status = at > 0 ? Status::Cancelled : Status::Failed;
      s.reason =
          at > 0 ? "stopped by ssim" : "its supervisor ended without recording the job (killed, or the disk is full)";
      s.end = now_seconds();
      s.judged = true;
    }
    return s;
  }
  if (j->exited) return from_exit(*j, cancelled_at());
  // The process that watches this job (its own, forked by the supervisor ssim started),
  // asked once: alive now means the file we read was current when we asked.
  const bool watcher_alive = process_alive(j->supervisor_pid, j->supervisor_start_ticks);
  if (!watcher_alive)
    if (auto again = read_status(job.run_dir, true)) j = std::move(again);
  if (j->exited) return from_exit(*j, cancelled_at());
  if (watcher_alive) {
    s.status = Status::Running;
    s.start = j->start;
    s.pid = j->pid;
    s.nodes = j->node;
    return s;
  }
  const bool unsaved = (supervisor_status >= 0 && WIFEXITED(supervisor_status) &&
                        WEXITSTATUS(supervisor_status) == kSupervisorUnsaved) ||
                       disk_full(job.run_dir);
  return without_supervisor(job, *j, cancelled_at(), unsaved);
}

}  // namespace

void LocalLauncher::reap_supervisors() {
  for (auto it = supervisors_.begin(); it != supervisors_.end();) {
    int wstatus = 0;
    const pid_t got = ::waitpid(*it, &wstatus, WNOHANG);
    if (got == *it || (got < 0 && errno == ECHILD)) {
      if (got == *it) ended_supervisors_[*it] = wstatus;
      it = supervisors_.erase(it);
    } else {
      ++it;
    }
  }
}

void LocalLauncher::take_wake() { read_wake_fd(wake_[0], wake_notes_); }

std::vector<JobStatus> LocalLauncher::poll(std::span<const JobRef> jobs) {
  if (!agent_.unsent.empty() && !send_to_agent()) agent_.unsent.clear();
  take_wake();
  hear_agent();                  // after the wake notes: what a note is about was said before it
  state::refresh_job_records();  // after them too: their records are read now
  // The jobs started here are read when their keeper said they ended, and all at a sweep:
  // every 250 ms, and at once when notes may have been lost or after a cancel.
  const auto now = std::chrono::steady_clock::now();
  const bool sweep = wake_notes_.take_everything() || sweep_next_ || now >= next_sweep_;
  if (sweep) {
    next_sweep_ = now + std::chrono::milliseconds(250);
    sweep_next_ = false;
    wake_notes_.forget_if([this](const std::string& run_dir) { return !quiet_.count(run_dir); });
  }
  reap_supervisors();
  for (const auto& job : jobs) {  // a supervisor another launcher of this process started
    const int pid = job.id.is(state::JobId::Kind::Supervisor) ? job.id.pid : 0;
    int wstatus = 0;
    if (pid > 0 && !supervisors_.count(pid) && !ended_supervisors_.count(pid) &&
        ::waitpid(pid, &wstatus, WNOHANG) == pid)
      ended_supervisors_[pid] = wstatus;
  }
  std::vector<JobStatus> out;
  out.reserve(jobs.size());
  static const std::string here = host_name();
  for (const auto& job : jobs) {
    const auto quiet = quiet_.find(job.run_dir);
    if (quiet != quiet_.end() && !sweep && !wake_notes_.take(job.run_dir)) {
      out.push_back(quiet->second);  // no word from its keeper: as it was
      continue;
    }
    out.push_back(poll_one(job, here, ended_supervisors_, unrecorded_.count(job.run_dir) > 0));
    if (quiet == quiet_.end()) continue;
    if (state::is_terminal(out.back().status))
      quiet_.erase(quiet);
    else
      quiet->second = out.back();
  }
  return out;
}

namespace {

// A status file naming another host speaks of that host's process table: nothing here is
// judged by it.
bool names_this_host(const state::StatusFile& j) {
  static const std::string here = host_name();
  return j.host.empty() || j.host == here;
}

// The job's supervisor as its status file names it, once confirmed (0 otherwise): the
// supervisor ssim started for the job, or that one's child, running ssim-supervise.
int confirmed_supervisor(const JobRef& job, const state::StatusFile& j, const std::string& supervisor_exe) {
  const bool local = job.id.is(state::JobId::Kind::Supervisor);
  return local &&
                 is_job_supervisor(j.supervisor_pid, j.supervisor_start_ticks, supervisor_exe, job.id.pid, job.id.ticks)
             ? j.supervisor_pid
             : 0;
}

}  // namespace

void LocalLauncher::cancel(std::span<const JobRef> jobs, bool force) {
  sweep_next_ = true;  // what is killed with its keeper says nothing
  const int sig = force ? SIGKILL : SIGTERM;
  for (const auto& job : jobs) {
    mark_cancelled(job.run_dir);
    // The program leads its own process group (pgid = its pid). A job that has not
    // started yet is skipped by its supervisor thanks to the marker. The status file is
    // the program's to write: what it names is signalled only once the kernel confirms
    // it is the job's (signals.hpp); where it is not, the job's own processes are.
    const auto j = read_status(job.run_dir);
    if (!j || !names_this_host(*j)) continue;
    const int trusted[] = {::getpid(), confirmed_supervisor(job, *j, supervisor_)};
    if (!j->exited && !signal_group(j->pid, j->pid_start_ticks, sig, job.run_dir, trusted))
      signal_job_processes(job.run_dir, sig);
    signal_detached(job.run_dir, sig, trusted);
    // The job's keeper ends what the job detaches after this moment once the job has
    // ended: it sees the marker. It is not signalled: a keeper of the run's agent may
    // already be keeping the next job.
  }
}

void LocalLauncher::end_detached(std::span<const JobRef> jobs) {
  // Each job's watcher that still holds adopted processes ends them on SIGTERM, then exits.
  std::vector<SupervisorRef> waiting;
  for (const auto& job : jobs) {
    const auto j = read_status(job.run_dir);
    if (!j || !names_this_host(*j)) continue;
    const SupervisorRef sup{confirmed_supervisor(job, *j, supervisor_), j->supervisor_start_ticks};
    if (sup.pid <= 1) continue;
    ::kill(sup.pid, SIGTERM);
    ::kill(sup.pid, SIGCONT);  // a stopped watcher takes its SIGTERM only once continued
    waiting.push_back(sup);
  }
  // What a killed supervisor left to this process (a subreaper) ends here.
  end_adopted_children(supervisor_, kDetachedGrace);
  const auto deadline = std::chrono::steady_clock::now() + kDetachedGrace + std::chrono::seconds(3);
  for (const auto& w : waiting) {
    while (process_alive(w.pid, w.ticks) && std::chrono::steady_clock::now() < deadline) {
      int wstatus = 0;
      ::waitpid(w.pid, &wstatus, WNOHANG);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the supervisor ends its orphans, bounded
    }
  }
}

}  // namespace ssim::launchers
