#include "apps/ssim-supervise/keeper.hpp"

#include "apps/ssim-supervise/common.hpp"
#include "apps/ssim-supervise/end_record.hpp"
#include "apps/ssim-supervise/node_name.hpp"
#include "apps/ssim-supervise/read_all.hpp"
#include "apps/ssim-supervise/spawn_program.hpp"
#include "launchers/job_environment.hpp"
#include "lib/state/agent_files.hpp"
#include "lib/state/job_file.hpp"
#include "lib/state/keeper_journal.hpp"
#include "lib/state/status_file.hpp"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>
using namespace supervise;

namespace {

struct Orphan {
  pid_t pid;
  std::string ticks;
};

// Everything about the one job a keeper keeps, from its handoff to its recorded end: a
// value made for each job (a pooled keeper keeps one job after another), nothing of it
// left in globals for the next.
struct Job {
  std::string run_dir;
  std::string name;
  pid_t pid = 0;  // > 0 while the program runs; -pid once it ended
  double start = 0;
  bool unsaved = false;  // a final status the disk refused so far, retried
  long time_limit = 0;   // seconds (run.time); SIGTERM then, SIGKILL after kTimeLimitGrace
  bool timed_out = false;
  std::vector<std::string> node_env;  // "K=V" entries that replace the handed environment's
  // Whether every reader of this job's status file shares this host's page cache, so the
  // final record may go over the first in place (rewrite_in_place): ssim run is here (the
  // local launcher's keepers), or the run folder is on a local file system (a node agent's
  // keepers read by a batch host on the same machine, as in the test cluster). A node
  // agent's keepers on a network file system replace the file: the batch host reads it
  // through a cache of its own, which a new file is sure to refresh.
  bool readers_here = true;
  // Whether its keeper's agent is a node agent: then a later attempt of the job may run
  // elsewhere while this one ends (its agent was given up), and that attempt's status is
  // the run directory's.
  bool node_agent = false;
  bool began = false;           // this attempt's first record is written
  std::vector<Orphan> orphans;  // adopted processes not yet reaped
  ssim::state::StatusFile end;  // the outcome, kept until it is on disk (a full disk is retried)
  std::string agent_died;       // why its keeper ended it on its own (its node agent was lost)
  // Where it is recorded: its launch's slot in this keeper's journal (lib/state/
  // keeper_journal.hpp), or, handed without a journal, the status file in its run directory.
  long launch = -1;
  std::string journals;
  long slot = -1;  // the slot's offset, once its first record is written
  size_t slot_length = 0;
};

// Who writes the status files (this keeper process: its pid and start, node, host).
ssim::state::StatusFile g_me;

// Whether the run directory's status file is still this attempt's: the file this keeper
// began names it. A later attempt's start removed it (ssim does, before a rerun) or wrote
// its own; this keeper then writes none. Only a node agent's keepers ask (the local agent
// starts an attempt only once the last one ended); a journaled attempt has a slot of its
// own, and readers take the latest launch's.
bool still_this_attempt(const Job& job) {
  if (!job.node_agent || !job.began || !job.journals.empty()) return true;
  for (int attempt = 0; attempt < 3; ++attempt) {  // a cut text: another writer's, in place
    bool ok = false;
    const std::string text = read_all(ssim::state::status_file_path(job.run_dir), ok);
    if (!ok) return false;
    if (const auto st = ssim::state::decode_status_file(text))
      return st->supervisor_pid == g_me.supervisor_pid && st->host == g_me.host;
  }
  return true;  // damaged, not replaced: ours to repair
}

// This keeper process's journal in the job's folder of journals (one per experiment it
// kept jobs of). On a network file system each record is flushed: a reader on another host
// (ssim run on the batch host, `ssim status` on a login node) sees a client's writes once
// they are, as a status file's close used to flush it.
ssim::state::KeeperJournal& journal_of(const Job& job) {
  static std::map<std::string, std::unique_ptr<ssim::state::KeeperJournal>> journals;
  auto& journal = journals[job.journals];
  if (!journal)
    journal = std::make_unique<ssim::state::KeeperJournal>(
        job.journals, ssim::state::keeper_journal_name(g_me.host, g_me.supervisor_pid, g_me.supervisor_start_ticks),
        !on_local_file_system(job.journals));
  return *journal;
}

// The record into the job's slot: appended the first time (with room for its end), written
// over in place after (no new block needed on a full disk). An end too long for the slot
// even with its error cut goes into a slot of its own, read as the later of the two.
bool write_record(Job& job, const ssim::state::StatusFile& st) {
  auto& journal = journal_of(job);
  if (job.slot >= 0) {
    const std::string text = ssim::state::encode_journal_record(job.launch, job.run_dir, st, job.slot_length);
    if (!text.empty()) return journal.rewrite(job.slot, text);
  }
  const std::string text = ssim::state::encode_journal_record(job.launch, job.run_dir, st);
  const long at = journal.append(text);
  if (at < 0) return false;
  job.slot = at, job.slot_length = text.size();
  return true;
}

// The job's status as `change` leaves it, on top of who writes it and when it began.
// Only ever by the attempt it belongs to (the first record is written when the program
// started).
template <typename Change>
bool write_status(Job& job, Change change, bool first = false) {
  if (!first && !still_this_attempt(job)) return true;  // a newer attempt's directory: nothing of ours to save
  ssim::state::StatusFile st = g_me;
  st.start = job.start;
  change(st);
  if (!job.journals.empty()) {
    const bool written = write_record(job, st);
    if (first) job.began = written;
    return written;
  }
  const std::string path = ssim::state::status_file_path(job.run_dir), text = ssim::state::encode_status_file(st);
  if (first) return job.began = write_new(path, text);
  return job.readers_here ? rewrite_in_place(path, text) : write_atomically(path, text);
}

std::vector<char*> pointers(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

void fail_start(Job& job, const std::string& message) {
  const std::string err = job.run_dir + "/" + job.name + ".err";
  int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    const std::string line = message + "\n";
    if (write(fd, line.data(), line.size()) < 0) {
    }
    close(fd);
  }
  write_status(job, [&](ssim::state::StatusFile& st) {
    st.exited = true, st.end = now(), st.exit_code = 127, st.error = message;
  });
}

// Whether ssim asked the job to stop before it started: its marker, looked for once its
// experiment says a stop was asked at all. That flag is one path every keeper asks about,
// which a network file system's client keeps in its cache; a marker's path is new for
// every member, a round trip to the metadata server each.
bool stopped_before_start(const Job& job) {
  if (!job.journals.empty() && access(ssim::state::cancels_flag_beside(job.journals).c_str(), F_OK) != 0) return false;
  return access((job.run_dir + "/.ssim-cancelled").c_str(), F_OK) == 0;
}

void start(Job& job, const std::string& spec) {
  job.start = now();
  if (stopped_before_start(job)) {
    write_status(job, [&](ssim::state::StatusFile& st) {
      st.exited = true, st.end = now(), st.error = "stopped before it started";
    });
    return;
  }
  auto parsed = ssim::state::decode_job_file(spec);
  if (!parsed) {
    fail_start(job, "ssim: the job " + job.name + " was handed over damaged (no command)");
    return;
  }
  std::vector<std::string>& argv = parsed->argv;
  std::vector<std::string>& env = parsed->env;
  for (const auto& kv : job.node_env) {  // the node's own view (an agent's), over ssim's
    const std::string key = kv.substr(0, kv.find('=') + 1);
    env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(key, 0) == 0; }),
              env.end());
    env.push_back(kv);
  }
  job.time_limit = parsed->time_limit;
  // The program leads a process group of its own (ssim signals it as one). Outside a
  // batch job also a session of its own; inside a job whose scheduler ends it by its
  // session never (launchers/job_environment.hpp): what ssim starts must end with the job.
  static const bool in_job_session =
      ssim::launchers::job_ends_with_its_session([](const char* n) { return std::getenv(n); });
  auto args = pointers(argv);
  auto envp = pointers(env);
  // execvp would search PATH of *this* process; the job's own PATH is what the user
  // expects, so search it ourselves when the program has no slash.
  std::string program = argv[0];
  if (program.find('/') == std::string::npos) {
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    for (const auto& e : env)
      if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
    size_t i = 0;
    while (i <= path.size()) {
      size_t j = path.find(':', i);
      if (j == std::string::npos) j = path.size();
      std::string dir = path.substr(i, j - i);
      if (dir.empty()) dir = ".";
      const std::string candidate = (dir[0] == '/' ? dir : job.run_dir + "/" + dir) + "/" + argv[0];
      if (access(candidate.c_str(), X_OK) == 0) {
        program = candidate;
        break;
      }
      i = j + 1;
    }
  }
  int rc = 0;
  const pid_t pid =
      spawn_program({program.c_str(), args.data(), envp.data(), job.run_dir, job.run_dir + "/" + job.name + ".out",
                     job.run_dir + "/" + job.name + ".err", !in_job_session},
                    rc);
  if (pid < 0) {
    job.pid = 0;
    fail_start(job, "ssim: cannot start " + argv[0] + ": " + std::strerror(rc));
    return;
  }
  job.pid = pid;
  // The program's own start time, beside its pid: whoever signals its group later
  // checks it first, so a recycled pid is never taken for it.
  const std::string ticks = start_ticks(std::to_string(job.pid));
  // The first record of this attempt (ssim removed the last one's before the start).
  write_status(
      job, [&](ssim::state::StatusFile& st) { st.pid = job.pid, st.pid_start_ticks = ticks; }, true);
  // ssim is woken for "running" by keep_job, kRunningWakeDelay later.
}

void forward_to_job(const Job& job, int sig) {
  if (job.pid > 0) kill(-job.pid, sig);
}

// --- The job, and what it leaves behind -----------------------------------------

constexpr double kSaveRetrySeconds = 5;  // a final status the disk refuses is retried this long
constexpr double kOrphanGraceSeconds = 2;
constexpr double kTimeLimitGrace = 5;  // between SIGTERM and SIGKILL when run.time is reached
// ssim is told that a job runs once it has run this long: a short job's end, a moment
// later, tells it both, in one wake-up and one read of the status file instead of two
// (halving the engine's work per member of a large ensemble of short programs). The
// status file itself is written at the start, for `ssim stop` and readers in other shells.
constexpr double kRunningWakeDelay = 0.02;

void record_end(Job& job, int status) {
  job.end = end_record(g_me, {job.start, job.pid, job.timed_out, job.agent_died}, status, now());
  job.pid = -job.pid;
  job.unsaved = !write_status(job, [&](ssim::state::StatusFile& out) { out = job.end; });
}

void reap_children(Job& job) {
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    if (pid == job.pid) {
      record_end(job, status);
      continue;
    }
    auto& orphans = job.orphans;
    orphans.erase(std::remove_if(orphans.begin(), orphans.end(), [&](const Orphan& o) { return o.pid == pid; }),
                  orphans.end());
  }
}

// This process's children, from /proc (the kernel's list when it has one).
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  bool ok = false;
  const std::string self = std::to_string(getpid());
  const std::string list = read_all("/proc/" + self + "/task/" + self + "/children", ok);
  if (ok) {
    const char* p = list.c_str();
    char* end = nullptr;
    for (long v = std::strtol(p, &end, 10); end != p; p = end, v = std::strtol(p, &end, 10))
      out.push_back(static_cast<pid_t>(v));
    return out;
  }
  DIR* dir = opendir("/proc");
  if (!dir) return out;
  while (dirent* d = readdir(dir)) {
    const long pid = std::strtol(d->d_name, nullptr, 10);
    if (pid <= 0) continue;
    const std::string stat = read_all(std::string("/proc/") + d->d_name + "/stat", ok);
    const size_t close_paren = stat.rfind(')');
    if (!ok || close_paren == std::string::npos || close_paren + 4 >= stat.size()) continue;
    if (std::strtol(stat.c_str() + close_paren + 4, nullptr, 10) == getpid()) out.push_back(static_cast<pid_t>(pid));
  }
  closedir(dir);
  return out;
}

// A newly adopted process is written to <run_dir>/.ssim-detached ("PID START_TICKS"
// lines): this watcher runs one job, so whatever it adopts came from that job, with or
// without its environment, and `ssim stop EXP ENTITY` can end it.
void note_orphans(Job& job) {
  for (pid_t pid : children()) {
    if (pid == job.pid) continue;
    bool known = false;
    for (const auto& o : job.orphans) known = known || o.pid == pid;
    if (known) continue;
    job.orphans.push_back({pid, start_ticks(std::to_string(pid))});
    const std::string line = std::to_string(pid) + " " + job.orphans.back().ticks + "\n";
    const int fd = open((job.run_dir + "/.ssim-detached").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    if (write(fd, line.data(), line.size()) < 0) {
    }
    close(fd);
  }
}

// SIGTERM to every adopted process (and its group), SIGKILL after a grace period; what
// they leave behind is adopted in turn and ends the same way.
void end_orphans(Job& job) {
  const double kill_at = now() + kOrphanGraceSeconds;
  const double give_up = kill_at + 2;
  std::vector<pid_t> termed;
  while (now() < give_up) {
    reap_children(job);
    note_orphans(job);
    if (job.orphans.empty()) return;
    const bool force = now() >= kill_at;
    for (const auto& o : job.orphans) {
      if (force) {
        kill(-o.pid, SIGKILL), kill(o.pid, SIGKILL);
      } else if (std::find(termed.begin(), termed.end(), o.pid) == termed.end()) {
        kill(-o.pid, SIGTERM), kill(o.pid, SIGTERM);
        kill(-o.pid, SIGCONT), kill(o.pid, SIGCONT);  // a stopped process acts on TERM once continued
        termed.push_back(o.pid);
      }
    }
    usleep(20000);  // waiting for them to exit, bounded by give_up
  }
}

int g_wake_fd = -1;

}  // namespace

void supervise::take_wake_fd() {
  const char* v = std::getenv("SSIM_WAKE_FD");
  if (!v || !*v) return;
  const int fd = std::atoi(v);
  unsetenv("SSIM_WAKE_FD");
  if (fd <= 2 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) return;  // never the programs'
  g_wake_fd = fd;
  signal(SIGPIPE, SIG_IGN);  // ssim gone: the write fails quietly (programs get SIGPIPE back)
}

// One write (atomic up to PIPE_BUF bytes, so the lines of keepers writing at once never
// mix; a longer path is a bare newline, "one of them"). Non-blocking: when the pipe is
// full, ssim has a backlog to read and looks at every job (launchers/local/wake_notes.hpp).
void supervise::wake_ssim(const std::string& run_dir) {
  if (g_wake_fd < 0) return;
  const std::string line = run_dir.size() < PIPE_BUF ? run_dir + "\n" : "\n";
  (void)!write(g_wake_fd, line.data(), line.size());
}

namespace {
// Its agent's heartbeat is older than ssim waits before it gives up on the node: the
// agent lives but is stopped (or starved), and ssim reruns this member elsewhere.
bool agent_silent(const std::string& agent_dir, double& silent_for) {
  struct stat st {};
  if (stat((agent_dir + "/alive").c_str(), &st) != 0) return false;
  silent_for = now() - (static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9);
  return silent_for > ssim::state::kAgentSilenceSeconds;
}
}  // namespace

int supervise::keep_job(const ssim::state::AgentJob& handed, const sigset_t& waited,
                        const std::vector<std::string>& node_env, const AgentTie& agent) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  static pid_t identified = 0;  // a pooled keeper keeps one job after another: asked once
  if (identified != getpid()) g_me = identity(), identified = getpid();
  Job job;
  job.run_dir = handed.run_dir;
  job.name = handed.name;
  job.launch = handed.launch;
  job.journals = handed.launch >= 0 ? handed.journals : std::string();
  job.node_agent = agent.pid != 0;
  job.node_env = node_env;
  job.readers_here = agent.pid == 0 || on_local_file_system(handed.run_dir);
  start(job, handed.spec);
  bool terminating = false;
  double kill_at = 0;  // an attempt given up here (its agent lost): SIGKILL then, if it still runs
  bool woke = false;
  double saving_deadline = 0;
  int code = 0;
  const double limit_at = job.time_limit > 0 ? job.start + job.time_limit : 0;
  double running_wake_at = job.pid > 0 ? job.start + kRunningWakeDelay : 0;
  for (bool first_turn = true;; first_turn = false) {
    reap_children(job);
    Job& j = job;
    if (running_wake_at > 0 && (j.pid <= 0 || now() >= running_wake_at)) {
      if (j.pid > 0) wake_ssim(j.run_dir);  // still running: said now (an end says itself)
      running_wake_at = 0;
    }
    if (kill_at > 0 && j.pid > 0 && now() >= kill_at) kill(-j.pid, SIGKILL), kill_at = 0;
    if (limit_at > 0 && j.pid > 0 && now() >= limit_at) {
      // run.time reached: SIGTERM (and SIGCONT) now, SIGKILL after the grace period.
      if (!j.timed_out)
        kill(-j.pid, SIGTERM), kill(-j.pid, SIGCONT);
      else if (now() >= limit_at + kTimeLimitGrace)
        kill(-j.pid, SIGKILL);
      j.timed_out = true;
    }
    if (j.unsaved) {
      if (write_status(j, [&](ssim::state::StatusFile& out) { out = j.end; })) {
        j.unsaved = false;
      } else {
        if (saving_deadline == 0) saving_deadline = now() + kSaveRetrySeconds;
        if (now() > saving_deadline) j.unsaved = false, code = kExitUnsaved;  // ssim reports it as lost
      }
    }
    // Right after the start nothing can be adopted yet that the next turn (20 ms later at
    // most) would not find, unless the program already ended.
    if (!first_turn || j.pid <= 0) note_orphans(j);
    if (j.pid <= 0 && !j.unsaved && !woke) wake_ssim(j.run_dir), woke = true;
    if (j.pid <= 0 && !j.unsaved) {
      if (j.orphans.empty()) break;
      // Stopped by ssim (its marker, written before the program was signalled): what it
      // detached ends too. Asked of the file, not by a signal to this process, which may
      // be keeping another job by the time a signal meant for this one would arrive.
      if (terminating || access((j.run_dir + "/.ssim-cancelled").c_str(), F_OK) == 0) {
        end_orphans(j);
        break;
      }
    }
    siginfo_t info{};
    timespec tick{0, !j.unsaved ? 999000000L : 200000000L};
    if (limit_at > 0 && j.pid > 0) {  // wake up when the limit (or its grace) runs out
      const double next = j.timed_out ? limit_at + kTimeLimitGrace : limit_at;
      const double wait = std::max(0.001, std::min(next - now(), 0.999));
      tick = timespec{0, static_cast<long>(wait * 1e9)};
    }
    if (running_wake_at > 0) {
      const double wait = std::max(0.001, running_wake_at - now());
      if (wait * 1e9 < static_cast<double>(tick.tv_nsec)) tick = timespec{0, static_cast<long>(wait * 1e9)};
    }
    const int sig = sigtimedwait(&waited, &info, &tick);
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT) {
      terminating = true;
      forward_to_job(j, sig);
    } else if (agent.pid > 0 && !terminating && getppid() != agent.pid) {
      // Its agent died. Said first (ssim retires the node and retries elsewhere as soon as
      // it sees this job end), then the job ends, with the reason in its record.
      terminating = true;
      write_new(agent.dir + "/died", std::to_string(now()) + "\n");
      j.agent_died = "the ssim agent on " + g_me.node + " died: this attempt was ended";
      forward_to_job(j, SIGTERM);
      kill_at = now() + kTimeLimitGrace;
    } else if (double silent = 0; agent.pid > 0 && !terminating && agent_silent(agent.dir, silent)) {
      // Its agent lives but is silent (SIGSTOPped, starved) as long as ssim waits before it
      // gives up on the node and reruns this member elsewhere: ended here too, so that no
      // two attempts of it run at once, whatever becomes of the agent.
      terminating = true;
      j.agent_died = "the ssim agent on " + g_me.node + " was not heard from for " +
                     std::to_string(static_cast<int>(silent)) + " s (ssim gave up on the node): this attempt was ended";
      forward_to_job(j, SIGTERM);
      if (job.pid > 0) kill(-job.pid, SIGCONT);
      kill_at = now() + kTimeLimitGrace;
    }
  }
  return code;
}

void supervise::fail_to_keep(const std::string& run_dir, const std::string& name, const std::string& message) {
  Job job;
  job.run_dir = run_dir;
  job.name = name;
  job.start = now();
  fail_start(job, message);
  wake_ssim(run_dir);
}
