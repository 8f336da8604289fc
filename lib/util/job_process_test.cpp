// On real processes: a child started for a job (its SSIM_RUN_DIR) belongs to it; a
// stranger whose pid and start time are copied does not; a trusted ancestor vouches for
// its descendants; a wrong start time (a reused pid) is never the job's.
#include "lib/util/job_process.hpp"
#include "lib/util/processes.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdlib>

namespace {

// `sleep 30` with the given environment, in its own group; killed and reaped at the end.
struct Child {
  pid_t pid = 0;
  explicit Child(std::vector<std::string> env) {
    pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      std::vector<char*> envp;
      for (auto& e : env) envp.push_back(e.data());
      envp.push_back(nullptr);
      char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
      ::execve("/bin/sleep", argv, envp.data());
      ::_exit(127);
    }
    // Until the exec shows: the environment read before it is the parent's.
    char real[PATH_MAX];
    const std::string sleep = ::realpath("/bin/sleep", real) ? real : "/bin/sleep";
    for (int i = 0; i < 2000 && ssim::executable_of(pid) != sleep; ++i) ::usleep(1000);  // bounded: 2 s
    // The kernel names the new program before it lays out the new environment: until
    // then /proc/PID/environ reads empty.
    for (int i = 0; i < 2000 && !env.empty() && !ssim::environ_holds(pid, env.front()); ++i) ::usleep(1000);
  }
  ~Child() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  std::string ticks() const { return ssim::process_facts(pid)->start_ticks; }
};

}  // namespace

TEST_CASE("job_process: the kernel's environment decides, not the recorded numbers") {
  Child job({"SSIM_RUN_DIR=/runs/exp/m", "PATH=/bin"});
  Child stranger({"PATH=/bin"});
  const int none[] = {0};
  CHECK(ssim::belongs_to_job(job.pid, job.ticks(), "/runs/exp/m", none));
  CHECK_FALSE(ssim::belongs_to_job(job.pid, job.ticks(), "/runs/exp/other", none));
  CHECK_FALSE(ssim::belongs_to_job(stranger.pid, stranger.ticks(), "/runs/exp/m", none));
  // A later process with the recorded pid: a different start time.
  CHECK_FALSE(ssim::belongs_to_job(job.pid, "1", "/runs/exp/m", none));
  CHECK_FALSE(ssim::belongs_to_job(job.pid, "", "/runs/exp/m", none));
  CHECK(ssim::environ_holds(job.pid, "SSIM_RUN_DIR=/runs/exp/m"));
  CHECK_FALSE(ssim::environ_holds(job.pid, "SSIM_RUN_DIR=/runs/exp"));
}

TEST_CASE("job_process: a trusted ancestor vouches for a child without the environment") {
  Child orphan({});
  const int self[] = {static_cast<int>(::getpid())};
  const int none[] = {0};
  CHECK(ssim::belongs_to_job(orphan.pid, orphan.ticks(), "/runs/exp/m", self));
  CHECK_FALSE(ssim::belongs_to_job(orphan.pid, orphan.ticks(), "/runs/exp/m", none));
}

TEST_CASE("job_process: processes_with_env finds what was started for the job, only that") {
  Child job({"SSIM_RUN_DIR=/runs/exp/n"});
  Child other({"SSIM_RUN_DIR=/runs/exp/n2"});
  const auto found = ssim::processes_with_env("SSIM_RUN_DIR", "/runs/exp/n");
  REQUIRE(found.size() == 1);
  CHECK(found[0] == job.pid);
}

TEST_CASE("job_process: a supervisor is the recorded one or its child, running ssim-supervise") {
  Child sup({});
  const auto me = ssim::process_facts(::getpid());
  REQUIRE(me);
  // This test's child runs /usr/bin/sleep, and its parent is this process.
  CHECK(ssim::is_job_supervisor(sup.pid, sup.ticks(), "/bin/sleep", ::getpid(), me->start_ticks));
  CHECK(ssim::is_job_supervisor(sup.pid, sup.ticks(), "/bin/sleep", sup.pid, sup.ticks()));
  CHECK_FALSE(ssim::is_job_supervisor(sup.pid, sup.ticks(), "/bin/true", ::getpid(), me->start_ticks));
  CHECK_FALSE(ssim::is_job_supervisor(sup.pid, sup.ticks(), "/bin/sleep", ::getpid(), "1"));
  CHECK_FALSE(ssim::is_job_supervisor(sup.pid, "1", "/bin/sleep", ::getpid(), me->start_ticks));
}
