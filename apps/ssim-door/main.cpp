// ssim-door: SmartRedis's way into the experiment's database, for one program.
//
//   ssim-door -- PROGRAM ARGS...
//
// SmartRedis cannot send a password and speaks RedisAI's commands; ssim's database has
// a password and no RedisAI. The door listens on a loopback port that answers only the
// user who runs it (the peer socket's owner, asked of the kernel), serves RedisAI's
// commands over ssim's store and passes the rest on with the password; then it runs the
// program with SSDB pointing at it and SR_DB_TYPE=Standalone, passes signals on, and
// ends as the program ends. One door per rank: it lives and dies with its program, so
// nothing is left behind and no other user's process can reach the database through it.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "apps/ssim-door/door_session.hpp"
#include "lib/client/resp_server.hpp"
#include "lib/util/peer_uid.hpp"

extern char** environ;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "ssim-door: %s\n", why.c_str());
  std::exit(2);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Who may use the door: this user's processes on this node, nobody else.
std::string admission(int fd) {
  const auto uid = ssim::tcp_peer_uid(fd);
  if (!uid) return "ERR ssim's SmartRedis door cannot tell who is connecting; it answers its own user only";
  if (*uid != ::getuid())
    return "ERR ssim's SmartRedis door answers uid " + std::to_string(::getuid()) + " only (this connection is uid " +
           std::to_string(*uid) + ")";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
  if (first >= argc) die("usage: ssim-door -- PROGRAM ARGS...");
  ssim::door::DoorContext context;
  context.database = env("SSDB");
  context.password = env("SSDB_PASSWORD");
  if (context.database.empty()) die("SSDB is not set: the door needs the experiment's database");

  sigset_t waited, none;
  sigemptyset(&waited);
  sigemptyset(&none);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&waited, sig);
  sigprocmask(SIG_BLOCK, &waited, nullptr);  // before any thread: they all inherit it
  signal(SIGPIPE, SIG_IGN);

  ssim::resp::RespServer server("127.0.0.1", "");
  server.set_admission(admission);
  context.address = server.address();
  std::thread([&] { server.serve([&] { return std::make_unique<ssim::door::DoorSession>(context); }); }).detach();

  // The program's view: SmartRedis finds the door in SSDB; ssim's own clients read
  // SSIM_DATABASE first (the database's own address, with SSDB_PASSWORD) and go there
  // directly. (The door also takes AUTH, for a client given SSDB by hand.)
  setenv("SSIM_DATABASE", context.database.c_str(), 1);
  setenv("SSDB", context.address.c_str(), 1);
  setenv("SR_DB_TYPE", "Standalone", 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t child = 0;
  const int rc = posix_spawnp(&child, argv[first], nullptr, &attr, argv + first, environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::fprintf(stderr, "ssim: cannot start %s: %s\n", argv[first], std::strerror(rc));
    return 127;
  }
  int status = 0;
  while (true) {
    if (waitpid(child, &status, WNOHANG) == child) break;
    siginfo_t info{};
    const timespec tick{1, 0};
    const int sig = sigtimedwait(&waited, &info, &tick);
    if (sig > 0 && sig != SIGCHLD) kill(child, sig);
  }
  if (WIFSIGNALED(status)) {  // end the same way, so whoever waits on the door sees the signal
    signal(WTERMSIG(status), SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    kill(getpid(), WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
