// The keeper pool with real keepers: forked for a job, reused for the next once idle,
// gone once their pipes close. Jobs are real programs in temporary run directories.
#include "apps/ssim-supervise/keeper_pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "lib/state/job_file.hpp"
#include "lib/state/job_records.hpp"
#include "lib/util/experiment_dir.hpp"
#include "tests/unit/helpers.hpp"

using namespace supervise;

namespace {
// A job of the experiment `run_dir` lies in (its parent), recorded in that experiment's
// keeper journals as ssim hands it over.
ssim::state::AgentJob job_in(const std::string& run_dir, const std::string& name, std::vector<std::string> argv) {
  static long launch = 0;
  const std::string experiment = std::filesystem::path(run_dir).parent_path().string();
  std::filesystem::create_directories(run_dir);
  std::filesystem::create_directories(ssim::ssim_dir(experiment) + "/keepers");
  ssim::state::JobFile spec;
  spec.argv = std::move(argv);
  spec.env = {"PATH=/usr/bin:/bin"};
  return {run_dir, name, ssim::state::encode_job_file(spec), launch += 100, ssim::ssim_dir(experiment) + "/keepers"};
}

// Until a keeper says it is idle (with a deadline): what the agents' loops wait on.
bool wait_idle(KeeperPool& pool) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd fd{pool.idle_fd(), POLLIN, 0};
    if (poll(&fd, 1, 100) > 0 && pool.read_idle()) return true;
  }
  return false;
}

std::optional<ssim::state::StatusFile> status_of(const std::string& run_dir) {
  return ssim::state::read_job_record(run_dir, true);
}

// What the job left in its run directory: nothing of ssim's beside its output.
std::set<std::string> files_in(const std::string& run_dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(run_dir)) names.insert(e.path().filename().string());
  return names;
}

// The signals keepers take with sigtimedwait are blocked while the pool lives, with their
// default actions (not Catch's handlers, which forked keepers would inherit), as in the agents.
struct BlockedSignals {
  static constexpr int kSignals[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  sigset_t waited{}, before{};
  struct sigaction actions[5]{};
  BlockedSignals() {
    sigemptyset(&waited);
    for (int sig : kSignals) sigaddset(&waited, sig);
    sigprocmask(SIG_BLOCK, &waited, &before);
    struct sigaction plain {};
    plain.sa_handler = SIG_DFL;
    for (size_t i = 0; i < 5; ++i) sigaction(kSignals[i], &plain, &actions[i]);
  }
  ~BlockedSignals() {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    for (size_t i = 0; i < 5; ++i) sigaction(kSignals[i], &actions[i], nullptr);
    sigprocmask(SIG_SETMASK, &before, nullptr);
  }
};
}  // namespace

TEST_CASE("keeper pool: an idle keeper keeps the next job, and leaves when its pipe closes") {
  ssim::test::TempDir dir;
  BlockedSignals signals;
  KeeperPool pool(signals.waited);
  REQUIRE(pool.ready());

  const std::string a = (dir.path / "a").string(), b = (dir.path / "b").string();
  pool.start(job_in(a, "a", {"/bin/sh", "-c", "exit 3"}), {});
  CHECK(pool.busy_count() == 1);
  REQUIRE(wait_idle(pool));
  CHECK_FALSE(pool.any_busy());
  const auto first = status_of(a);
  REQUIRE(first);
  CHECK(first->exited);
  CHECK(first->exit_code == 3);
  CHECK(files_in(a) == std::set<std::string>{"a.out", "a.err"});  // its record is in its keeper's journal

  pool.start(job_in(b, "b", {"/bin/true"}), {});  // the idle keeper takes it: no new fork
  REQUIRE(wait_idle(pool));
  const auto second = status_of(b);
  REQUIRE(second);
  CHECK(second->exit_code == 0);
  CHECK(second->supervisor_pid == first->supervisor_pid);  // the same keeper kept both

  pool.close_pipes();  // no more jobs: the idle keeper leaves
  std::set<pid_t> left;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pool.empty() && std::chrono::steady_clock::now() < deadline) {
    const pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid > 0 && pool.take_exited(pid)) left.insert(pid);
    if (pid <= 0) poll(nullptr, 0, 10);  // a child's exit has no descriptor to wait on here
  }
  CHECK(pool.empty());
  CHECK(left == std::set<pid_t>{static_cast<pid_t>(first->supervisor_pid)});
}

TEST_CASE("keeper pool: a second job while the first runs gets a keeper of its own") {
  ssim::test::TempDir dir;
  BlockedSignals signals;
  KeeperPool pool(signals.waited);
  const std::string slow = (dir.path / "slow").string(), quick = (dir.path / "quick").string();
  const std::string gate = (dir.path / "gate").string();
  pool.start(job_in(slow, "slow", {"/bin/sh", "-c", "while [ ! -e \"$0\" ]; do sleep 0.01; done", gate}), {});
  pool.start(job_in(quick, "quick", {"/bin/true"}), {});
  CHECK(pool.busy_count() == 2);
  REQUIRE(wait_idle(pool));  // the quick one's keeper
  CHECK(pool.busy_count() == 1);
  std::ofstream(gate) << "";
  REQUIRE(wait_idle(pool));
  CHECK(pool.busy_count() == 0);
  CHECK(status_of(slow)->supervisor_pid != status_of(quick)->supervisor_pid);
  pool.signal_all(SIGTERM);
  pool.close_pipes();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pool.empty() && std::chrono::steady_clock::now() < deadline) {
    const pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) pool.take_exited(pid);
    if (pid <= 0) poll(nullptr, 0, 10);
  }
  CHECK(pool.empty());
}
