#include "apps/ssim-supervise/spawn_program.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace supervise {

namespace {

// The signals a program must find at their default action whatever the keeper did with
// them (it takes the first five with sigtimedwait, and SIGPIPE is ignored by agents),
// plus any this process gave a handler to: after vfork the child shares the keeper's
// memory, so no handler of the keeper's may run in it before exec. Asked once a process.
sigset_t signals_to_reset() {
  static sigset_t set = [] {
    sigset_t s;
    sigemptyset(&s);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) sigaddset(&s, sig);
    for (int sig = 1; sig < NSIG; ++sig) {
      struct sigaction now {};
      if (sigaction(sig, nullptr, &now) == 0 && now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN)
        sigaddset(&s, sig);
    }
    return s;
  }();
  return set;
}

// `fd` opened from `path` and moved to `target`; false (errno set) when it fails.
bool open_as(int target, const char* path, int flags) {
  const int fd = open(path, flags, 0644);
  if (fd < 0) return false;
  if (fd == target) return true;
  const bool ok = dup2(fd, target) == target;
  close(fd);
  return ok;
}

}  // namespace

pid_t spawn_program(const ProgramStart& start, int& error) {
  const sigset_t reset = signals_to_reset();
  sigset_t all, before, none;
  sigfillset(&all);
  sigemptyset(&none);
  // Blocked across vfork: nothing is delivered to the child before its dispositions are
  // reset, nor to the keeper while it is suspended.
  sigprocmask(SIG_SETMASK, &all, &before);
  volatile int child_error = 0;  // written by the child (shared memory until exec)
  const pid_t pid = vfork();
  if (pid == 0) {
    // The child: system calls only, on what the keeper prepared.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(&reset, sig)) sigaction(sig, &dfl, nullptr);
    const bool ok = open_as(0, "/dev/null", O_RDONLY) && open_as(1, start.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC) &&
                    open_as(2, start.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC) && chdir(start.dir.c_str()) == 0 &&
                    (start.own_session ? setsid() >= 0 : setpgid(0, 0) == 0);
    if (ok) {
      // Only the three streams: whatever the keeper, ssim or the shell left open is not
      // the program's (a held pipe end keeps readers waiting).
      closefrom(3);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execve(start.program, start.argv, start.envp);
    }
    child_error = errno != 0 ? errno : EINVAL;
    _exit(127);
  }
  const int saved = errno;
  sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    error = saved;
    return -1;
  }
  if (child_error != 0) {  // it never ran the program
    error = child_error;
    waitpid(pid, nullptr, 0);
    return -1;
  }
  return pid;
}

}  // namespace supervise
