#include "apps/ssim-supervise/keeper_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace supervise {

bool write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

namespace {

// A keeper's life: the job it was forked for, then each job its pipe brings, until the
// pipe is closed.
[[noreturn]] void keeper_loop(ssim::state::AgentJob job, int jobs, int idle, const sigset_t& waited,
                              const std::vector<std::string>& node_env, const AgentTie& tie) {
  std::string received;
  sigset_t none;
  sigemptyset(&none);
  while (true) {
    const int code = keep_job(job, waited, node_env, tie);
    if (code != 0) _exit(code);  // kExitUnsaved: the agent passes it on
    const std::string me = std::to_string(getpid()) + "\n";
    if (!write_all(idle, me)) _exit(0);
    while (!ssim::state::take_job_handoff(received, job)) {
      while (waitpid(-1, nullptr, WNOHANG) > 0) {
      }
      pollfd fd{jobs, POLLIN, 0};
      if (ppoll(&fd, 1, nullptr, &none) < 0 && errno != EINTR) _exit(0);
      if (!fd.revents) continue;
      char buffer[65536];
      const ssize_t n = read(jobs, buffer, sizeof buffer);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) _exit(0);  // the agent is done
      if (n > 0) received.append(buffer, static_cast<size_t>(n));
    }
  }
}

}  // namespace

KeeperPool::KeeperPool(const sigset_t& waited, std::vector<std::string> node_env, AgentTie tie)
    : waited_(waited), node_env_(std::move(node_env)), tie_(std::move(tie)) {
  if (pipe2(idle_, O_CLOEXEC) != 0) idle_[0] = idle_[1] = -1;
}

void KeeperPool::start(const ssim::state::AgentJob& job, const std::vector<int>& not_for_keepers) {
  const std::string& run_dir = job.run_dir;
  const std::string handoff = ssim::state::encode_job_handoff(job);
  for (auto& [pid, k] : keepers_) {
    if (k.busy || k.jobs < 0) continue;
    if (write_all(k.jobs, handoff)) {
      k.busy = true;
      k.run_dir = run_dir;
      return;
    }
    close(k.jobs);  // it is going away: another one, or a new one
    k.jobs = -1;
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    fail_to_keep(run_dir, job.name, std::string("ssim: the agent cannot make a pipe: ") + std::strerror(errno));
    return;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    // Each keeper must see its own pipe's end: it holds no other keeper's.
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (int fd : not_for_keepers)
      if (fd > 0) close(fd);
    if (null >= 0) dup2(null, 0);  // over the agent's standard input (ssim's socket for the local agent)
    close(idle_[0]);
    close(pipe_fds[1]);
    for (const auto& [other, k] : keepers_)
      if (k.jobs >= 0) close(k.jobs);
    keeper_loop(job, pipe_fds[0], idle_[1], waited_, node_env_, tie_);
  }
  close(pipe_fds[0]);
  if (pid > 0) {
    keepers_[pid] = PooledKeeper{pipe_fds[1], true, run_dir};
  } else {
    close(pipe_fds[1]);
    fail_to_keep(run_dir, job.name, std::string("ssim: the agent cannot fork: ") + std::strerror(errno));
  }
}

bool KeeperPool::read_idle() {
  char buffer[4096];
  const ssize_t n = read(idle_[0], buffer, sizeof buffer);
  if (n <= 0) return false;
  std::string& text = idle_said_;  // a burst of ends may be cut between two reads
  text.append(buffer, static_cast<size_t>(n));
  bool ended = false;
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    const auto it = keepers_.find(static_cast<pid_t>(std::atol(text.substr(at, nl - at).c_str())));
    if (it != keepers_.end()) it->second.busy = false, ended = true;
  }
  text.erase(0, at);
  return ended;
}

std::optional<PooledKeeper> KeeperPool::take_exited(pid_t pid) {
  const auto it = keepers_.find(pid);
  if (it == keepers_.end()) return std::nullopt;
  PooledKeeper k = std::move(it->second);
  if (k.jobs >= 0) close(k.jobs);
  keepers_.erase(it);
  return k;
}

bool KeeperPool::any_busy() const { return busy_count() > 0; }

size_t KeeperPool::busy_count() const {
  size_t n = 0;
  for (const auto& [pid, k] : keepers_) n += k.busy ? 1 : 0;
  return n;
}

void KeeperPool::close_pipes() {
  for (auto& [pid, k] : keepers_) {
    if (k.jobs >= 0) close(k.jobs), k.jobs = -1;
    kill(pid, SIGCONT);
  }
}

void KeeperPool::signal_all(int sig) const {
  for (const auto& [pid, k] : keepers_) kill(pid, sig);
}

}  // namespace supervise
