#include "launchers/agent/agent_hub.hpp"
#include "lib/state/job_records.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <filesystem>
#include <map>
#include <mutex>

#include "launchers/job_files.hpp"
#include "launchers/local/local_launcher.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/local_file_system.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/experiment_dir.hpp"

namespace ssim::launchers {

namespace fs = std::filesystem;
using state::Status;

namespace {

// How long an agent may take to start before its jobs are failed (srun under a busy
// controller can take a while).
constexpr double kAgentStartSeconds = 60;
// How long the keeper of an agent that died takes, at most, to end its job and record it
// (SIGTERM, SIGKILL 5 s later, the record).
constexpr double kKeeperEndSeconds = 10;

double modified(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
}

void touch(const std::string& path) { write_file_atomically(path, ""); }

// Written under a dot name, which agents skip, then renamed in: an agent never reads half
// of it. One file and one rename a message (each file an agent takes is one freed inode,
// which ext4 then steps over at every creation for a minute).
void post(const std::string& inbox, const std::string& name, const std::string& text) {
  const std::string tmp = inbox + "/." + name;
  write_file_directly(tmp, text, 0644);
  fs::rename(tmp, inbox + "/" + name);
}

std::string sequence_name(long n, const char* kind) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%012ld-%d.%s", n, static_cast<int>(::getpid()), kind);
  return buf;
}

}  // namespace

std::string new_agent_generation() {
  static int launches = 0;  // a run may start agents more than once (a node given a new one)
  std::string name = std::to_string(static_cast<long>(now_seconds())) + "-" + std::to_string(::getpid());
  if (launches++ > 0) name += "-" + std::to_string(launches);
  return name;
}

AgentHub::AgentHub(const std::string& ssim_dir, std::string generation, const std::vector<std::string>& nodes,
                   int wake_fd)
    : dir_(ssim_dir + "/agents/" + generation), generation_(std::move(generation)), nodes_(nodes), wake_fd_(wake_fd) {
  fs::create_directories(dir_);
  touch(dir_ + "/engine");
  last_beat_ = now_seconds();
  inotify_fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  for (const auto& node : nodes_) {
    fs::create_directories(state::agent_inbox(dir_, node));
    // Its jobs stream, made before its agent looks (which makes it too if it comes first).
    if (const int fd = ::open(state::agent_jobs(dir_, node).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600); fd >= 0)
      ::close(fd);
    const std::string ended = state::agent_node_dir(dir_, node) + "/ended";
    touch(ended);
    if (inotify_fd_ >= 0) ::inotify_add_watch(inotify_fd_, ended.c_str(), IN_ATTRIB | IN_MODIFY);
  }
  if (inotify_fd_ >= 0 && wake_fd_ >= 0 && ::pipe2(stop_fd_, O_CLOEXEC) == 0) relay_ = std::thread([this] { relay(); });
}

AgentHub::~AgentHub() {
  if (relay_.joinable()) {
    (void)!::write(stop_fd_[1], "x", 1);
    relay_.join();
  }
  for (int fd : {inotify_fd_, stop_fd_[0], stop_fd_[1]})
    if (fd >= 0) ::close(fd);
  for (auto& [node, stream] : streams_)
    if (stream.fd >= 0) ::close(stream.fd);
}

// A job ended on some node: the engine is woken through its wake pipe, as by a local
// supervisor. (A file system that does not report remote changes, such as NFS, leaves
// the engine to its own ticks.)
void AgentHub::relay() {
  char buf[4096];
  while (true) {
    pollfd p[2] = {{inotify_fd_, POLLIN, 0}, {stop_fd_[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) continue;
    if (p[1].revents) return;
    while (::read(inotify_fd_, buf, sizeof buf) > 0) {
    }
    (void)!::write(wake_fd_, "\n", 1);  // a bare line: no local job named (wake_notes.hpp)
  }
}

// Appended in one write to the node's stream, which only this run writes and its agent
// reads on from where it stopped: no file, rename or unlink a member. Flushed where the
// agent reads through another host's cache (a network file system).
void AgentHub::send_start(const std::string& node, const std::vector<state::AgentJob>& jobs) {
  auto& stream = streams_[node];
  if (stream.fd < 0) {
    const std::string path = state::agent_jobs(dir_, node);
    stream.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (stream.fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    stream.flush = !on_local_file_system(path);
  }
  const std::string text = state::encode_agent_start(jobs);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(stream.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot write " + state::agent_jobs(dir_, node) + ": " +
                               std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  if (stream.flush) ::fdatasync(stream.fd);
}

void AgentHub::beat() {
  const double t = now_seconds();
  if (t - last_beat_ < state::kAgentBeatSeconds) return;
  last_beat_ = t;
  touch(dir_ + "/engine");
}

void AgentHub::finish() { touch(dir_ + "/stop"); }

std::string find_agents_dir(const std::string& run_dir, const std::string& generation) {
  static std::mutex mutex;
  static std::map<std::string, std::string> found;  // parent folder -> agents folder
  const std::lock_guard<std::mutex> lock(mutex);
  fs::path p = fs::path(run_dir).parent_path();
  if (const auto it = found.find(p.string() + "|" + generation); it != found.end()) return it->second;
  for (fs::path up = p; !up.empty(); up = up.parent_path()) {
    const std::string candidate = ssim_dir(up.string()) + "/agents/" + generation;
    std::error_code ec;
    if (fs::is_directory(candidate, ec)) return found[p.string() + "|" + generation] = candidate;
    if (up == up.root_path()) break;
  }
  return "";
}

void send_agent_cancel(const std::string& agents_dir, const std::string& node, const state::AgentCancel& cancel) {
  static long sent = 0;
  post(state::agent_inbox(agents_dir, node), sequence_name(++sent, "cancel"), state::encode_agent_cancel(cancel));
}

namespace {
// The scheduler's id of the step node `node`'s agent runs in, once it has said.
std::string agent_step(const std::string& mine) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(mine); it != known.end()) return it->second;
  auto text = read_file(mine + "/step");
  if (!text) return "";
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return known[mine] = *text;
}
}  // namespace

std::string agent_lost(const std::string& agents_dir, const std::string& node) {
  const std::string mine = state::agent_node_dir(agents_dir, node);
  const double t = now_seconds();
  // A keeper that outlived its agent says so before ending its job, so that the job's end
  // is never taken for an ordinary failure retried on the same dead node.
  if (modified(mine + "/died") > 0) return "node " + node + " lost: its ssim agent died";
  if (const double beat = modified(mine + "/alive"); beat > 0) {
    if (t - beat > state::kAgentSilenceSeconds)
      return "node " + node + " lost: its ssim agent has not been heard from for " +
             std::to_string(static_cast<int>(t - beat)) + " s";
    return "";
  }
  if (modified(mine + "/left") > 0) return "the ssim agent on " + node + " left before its jobs ended";
  if (const double made = modified(mine); made > 0 && t - made > kAgentStartSeconds)
    return "the ssim agent on " + node + " never started (see " + agents_dir + "/ssim-agents.err)";
  return "";
}

std::string AgentHub::lost(const std::string& node) const {
  auto why = agent_lost(dir_, node);
  if (why.empty()) return "";
  const std::string prefix = "node " + node + " lost: ";  // said once: "node n2 is lost (...)"
  if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
  return "lost (" + why + ")";
}

launch::JobStatus agent_job_status(const std::string& agents_dir, const std::string& node, const std::string& run_dir,
                                   const std::string& lost) {
  launch::JobStatus s = status_from_file(run_dir);
  if (agents_dir.empty()) return s;
  s.native_id = agent_step(state::agent_node_dir(agents_dir, node));
  if (state::is_terminal(s.status)) return s;
  if (lost.empty()) return s;
  // Read once more: the job may have ended just as its agent went quiet.
  const std::string step = s.native_id;
  state::refresh_job_records();
  s = status_from_file(run_dir);
  s.native_id = step;
  if (state::is_terminal(s.status)) return s;
  // A keeper that saw its agent die said so and is ending this attempt: its own record
  // (why, and when it ended) comes within seconds; the node is lost meanwhile.
  if (const double died = modified(state::agent_node_dir(agents_dir, node) + "/died");
      died > 0 && now_seconds() - died < kKeeperEndSeconds) {
    s.reason = "its ssim agent died: its keeper is ending this attempt";
    return s;
  }
  s.status = Status::Failed;
  s.reason = lost;
  s.end = now_seconds();
  return s;
}

}  // namespace ssim::launchers
