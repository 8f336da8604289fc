#include "apps/ssim-supervise/agent.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apps/ssim-supervise/common.hpp"
#include "apps/ssim-supervise/keeper.hpp"
#include "apps/ssim-supervise/keeper_pool.hpp"
#include "apps/ssim-supervise/node_name.hpp"
#include "apps/ssim-supervise/read_all.hpp"
#include "apps/ssim-supervise/step_modes.hpp"
#include "lib/state/agent_files.hpp"
#include "lib/state/job_records.hpp"
#include "lib/state/status_file.hpp"
#include "lib/util/job_process.hpp"

namespace supervise {

namespace {

using ssim::state::AgentCancel;
using ssim::state::AgentJob;

constexpr long kTickNanoseconds = 10'000'000;  // how often the inbox is looked at

struct Agent {
  std::string dir;   // the run's agents folder
  std::string mine;  // this node's folder in it
  std::string inbox;
  std::vector<std::string> node_env;  // "K=V" of this node, over ssim's environment
  std::optional<KeeperPool> pool;     // keepers kept for the next job
  sigset_t waited{};
  int signals = -1;  // signalfd of `waited`
  int inbox_watch =
      -1;  // inotify on the inbox and the jobs stream: taken at once (the tick is for network file systems)
  // The jobs ssim appends to this node's stream (NODE/jobs), read on from where the last
  // read stopped; a handoff not whole yet waits in `unread`. Where the stream is on a
  // network file system it is opened again at each look, to see another host's appends.
  std::string jobs;
  int jobs_fd = -1;
  long jobs_read = 0;
  bool jobs_local = true;
  std::string unread;
};

double modified(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
}

// Its time set to now (made when missing): one call, no open, for what ssim watches.
void touch(const std::string& path) {
  if (utimensat(AT_FDCWD, path.c_str(), nullptr, 0) == 0 || errno != ENOENT) return;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}

void beat(const Agent& a) {
  write_atomically(a.mine + "/alive",
                   std::to_string(getpid()) + " " + start_ticks() + " " + std::to_string(a.pool->busy_count()) + "\n");
}

// The inbox's file names, oldest first (names sort by ssim's sequence number).
std::vector<std::string> inbox_files(const Agent& a) {
  std::vector<std::string> names;
  DIR* d = opendir(a.inbox.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.empty() || n[0] == '.') continue;  // being written, or . and ..
    names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// The file's text, once this agent has claimed it (another may race for it on a resume).
bool claim(const Agent& a, const std::string& name, std::string& text) {
  const std::string taken = a.mine + "/.taken-" + std::to_string(getpid());
  if (rename((a.inbox + "/" + name).c_str(), taken.c_str()) != 0) return false;
  bool ok = false;
  text = read_all(taken, ok);
  unlink(taken.c_str());
  return ok;
}

// Each job goes to an idle keeper of this agent's, or a new one. An agent that dies is a
// lost node to ssim, whose members are retried elsewhere: the attempts this agent kept
// end with it (keep_job's tie), never running on beside their retries. It only leaves on
// its own once they ended.
void start_jobs(Agent& a, const std::vector<AgentJob>& jobs) {
  for (const auto& job : jobs) a.pool->start(job, {a.signals, a.inbox_watch});
}

// As the local launcher does on its own machine: the program's group gets the signal.
// Its keeper's record is the program's to write, so what it names is signalled only when the
// kernel confirms it is the job's: its program descends from this agent or was started for
// the job (lib/util/job_process.hpp). The keeper is not signalled: it may already keep
// the next job. It ends what the job detached once the job has ended, seeing ssim's cancel
// marker (written before this request), and a job not started yet finds the marker and
// does not start.
void cancel_jobs(const AgentCancel& c) {
  const int self[] = {static_cast<int>(getpid())};
  for (const auto& run_dir : c.run_dirs) {
    const auto st = ssim::state::read_job_record(run_dir, true);
    if (!st) continue;
    if (!st->exited && ssim::belongs_to_job(st->pid, st->pid_start_ticks, run_dir, self))
      kill(-st->pid, c.force ? SIGKILL : SIGTERM);
  }
}

// Starts what ssim appended to this node's jobs stream since the last look; false when
// nothing came.
bool take_jobs(Agent& a) {
  if (!a.jobs_local || a.jobs_fd < 0) {
    const int fd = open(a.jobs.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    if (a.jobs_fd >= 0) close(a.jobs_fd);
    a.jobs_fd = fd;
  }
  char buffer[65536];
  ssize_t n;
  bool came = false;
  while ((n = pread(a.jobs_fd, buffer, sizeof buffer, a.jobs_read)) > 0) {
    a.unread.append(buffer, static_cast<size_t>(n));
    a.jobs_read += n;
    came = true;
  }
  std::vector<AgentJob> jobs;
  AgentJob job;
  while (ssim::state::take_job_handoff(a.unread, job))
    if (!job.run_dir.empty() && !job.name.empty()) jobs.push_back(job);
  start_jobs(a, jobs);
  return came;
}

// Takes the stops ssim (any ssim process) sent; false when the inbox was empty.
bool take_inbox(Agent& a) {
  const auto names = inbox_files(a);
  for (const auto& name : names) {
    std::string text;
    if (!claim(a, name, text)) continue;
    const auto dot = name.rfind('.');
    const std::string kind = dot == std::string::npos ? "" : name.substr(dot + 1);
    if (kind == "cancel") {
      if (const auto c = ssim::state::decode_agent_cancel(text)) cancel_jobs(*c);
    }
  }
  return !names.empty();
}

bool reap(Agent& a) {
  bool ended = false;
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) ended = a.pool->take_exited(pid).has_value() || ended;
  return ended;
}

// Waits up to the next tick for a signal, a keeper's end or a job in the inbox; returns
// the signal that asks this agent to end (SIGTERM...), or 0.
int wait_a_tick(Agent& a, bool& keeper_idle) {
  pollfd fds[3] = {{a.signals, POLLIN, 0}, {a.pool->idle_fd(), POLLIN, 0}, {a.inbox_watch, POLLIN, 0}};
  if (poll(fds, 3, static_cast<int>(kTickNanoseconds / 1'000'000)) < 0) return 0;
  if (fds[1].revents) keeper_idle = a.pool->read_idle() || keeper_idle;
  if (fds[2].revents) {
    char events[4096];
    while (read(a.inbox_watch, events, sizeof events) > 0) {
    }
  }
  int asked = 0;
  signalfd_siginfo info{};
  while (read(a.signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info))
    if (info.ssi_signo != SIGCHLD) asked = static_cast<int>(info.ssi_signo);
  return asked;
}

// "a,b,,c" -> {a, b, "", c} (the supervisor links no ssim library: lib/util/split is not here).
std::vector<std::string> comma_list(const std::string& list) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// Started by mpirun (batch schedulers without steps): rank i runs on the i-th node ssim named, by that name,
// whatever this host calls itself (the job's host file may say pn1 where gethostname says
// pn1.cluster). The keepers forked from here record it as their node.
bool name_node_by_rank(const std::string& list) {
  const auto nodes = comma_list(list);
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    char* end = nullptr;
    const long rank = std::strtol(v, &end, 10);
    if (*end != '\0' || rank < 0 || static_cast<size_t>(rank) >= nodes.size()) return false;
    setenv("SSIM_AGENT_NODE", nodes[rank].c_str(), 1);
    setenv("SSIM_NODE_VARIABLE", "SSIM_AGENT_NODE", 1);
    return true;
  }
  return false;
}

}  // namespace

int agent_main(int argc, char** argv) {
  Agent a;
  std::string step_id;  // the scheduler's id of the step the agents run in
  bool complete = false;
  std::string nodes_by_rank;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--node-env" && i + 1 < argc) {
      for (const auto& var : comma_list(argv[++i]))
        if (const char* v = var.empty() ? nullptr : std::getenv(var.c_str())) a.node_env.push_back(var + "=" + v);
    } else if (arg == "--nodes-by-rank" && i + 1 < argc) {
      nodes_by_rank = argv[++i];
    } else if (arg == "--id" && i + 1 < argc) {
      step_id = expand_braces(argv[++i], complete);
    } else if (a.dir.empty() && arg.rfind("--", 0) != 0) {
      a.dir = arg;
    } else {
      std::fprintf(
          stderr,
          "usage: ssim-supervise --agent DIR [--node-env VAR,...] [--id TEMPLATE] [--nodes-by-rank N1,N2,...]\n");
      return 2;
    }
  }
  if (a.dir.empty()) {
    std::fprintf(
        stderr, "usage: ssim-supervise --agent DIR [--node-env VAR,...] [--id TEMPLATE] [--nodes-by-rank N1,N2,...]\n");
    return 2;
  }
  if (!nodes_by_rank.empty() && !name_node_by_rank(nodes_by_rank)) {
    std::fprintf(stderr, "ssim agent: no rank of mpirun's in the environment, or more ranks than nodes (%s)\n",
                 nodes_by_rank.c_str());
    return 3;
  }
  const std::string node = node_name();
  a.mine = ssim::state::agent_node_dir(a.dir, node);
  a.inbox = ssim::state::agent_inbox(a.dir, node);
  mkdir(a.mine.c_str(), 0755);
  mkdir(a.inbox.c_str(), 0755);
  if (access(a.inbox.c_str(), W_OK) != 0) {
    std::fprintf(stderr, "ssim agent on %s: cannot use %s: %s\n", node.c_str(), a.inbox.c_str(), std::strerror(errno));
    return 3;
  }
  if (complete) write_atomically(a.mine + "/step", step_id + "\n");  // ssim shows it as the jobs' step
  sigemptyset(&a.waited);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&a.waited, sig);
  sigprocmask(SIG_SETMASK, &a.waited, nullptr);  // keepers inherit it: they take them with sigtimedwait
  a.signals = signalfd(-1, &a.waited, SFD_CLOEXEC | SFD_NONBLOCK);
  a.pool.emplace(a.waited, a.node_env, AgentTie{getpid(), a.mine});
  if (a.signals < 0 || !a.pool->ready()) {
    std::fprintf(stderr, "ssim agent on %s: %s\n", node.c_str(), std::strerror(errno));
    return 3;
  }
  fcntl(a.pool->idle_fd(), F_SETFL, O_NONBLOCK);
  a.inbox_watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  a.jobs = ssim::state::agent_jobs(a.dir, node);
  a.jobs_local = on_local_file_system(a.jobs);
  // Made here when this agent starts before ssim made it (each makes it if missing, neither
  // empties it), so that it can be watched from the start.
  if (const int fd = open(a.jobs.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600); fd >= 0) close(fd);
  if (a.inbox_watch >= 0 && (inotify_add_watch(a.inbox_watch, a.inbox.c_str(), IN_MOVED_TO) < 0 ||
                             inotify_add_watch(a.inbox_watch, a.jobs.c_str(), IN_MODIFY) < 0))
    close(a.inbox_watch), a.inbox_watch = -1;
  signal(SIGPIPE, SIG_IGN);  // a keeper gone before its job was handed over: write fails, another is used

  bool terminating = false;
  bool keeper_idle = false;  // a job ended since ssim was last told
  double next_beat = 0;
  while (true) {
    if (reap(a) || keeper_idle) touch(a.mine + "/ended");  // wakes ssim (it watches the file)
    keeper_idle = false;
    // Jobs before stops: a stop sent for a job ssim just handed over finds it.
    bool had_mail = false;
    if (!terminating) {
      had_mail = take_jobs(a);
      had_mail = take_inbox(a) || had_mail;
    }
    if (now() >= next_beat) {
      beat(a);
      next_beat = now() + ssim::state::kAgentBeatSeconds;
    }
    if (!a.pool->any_busy()) {
      if (terminating) break;
      const double engine = modified(a.dir + "/engine");
      const bool engine_gone = engine < 0 || now() - engine > ssim::state::kEngineSilenceSeconds;
      if (!had_mail && (access((a.dir + "/stop").c_str(), F_OK) == 0 || engine_gone)) break;
    }
    if (const int sig = wait_a_tick(a, keeper_idle); sig != 0) {
      terminating = true;  // the step is being ended: each keeper passes it to its job
      a.pool->signal_all(sig);
    }
  }
  // The idle keepers leave with their pipes closed (at once); a keeper that does not is
  // ended, so that nothing of this agent's stays behind it.
  a.pool->close_pipes();
  for (int waited_ms = 0; !a.pool->empty() && waited_ms < 2000; waited_ms += 10) {
    reap(a);
    if (!a.pool->empty()) usleep(10'000);
  }
  a.pool->signal_all(SIGKILL);
  reap(a);
  // Left on purpose (not lost): readers see `left` instead of a heartbeat.
  unlink((a.mine + "/alive").c_str());
  write_atomically(a.mine + "/left", std::to_string(now()) + "\n");
  return 0;
}

}  // namespace supervise
