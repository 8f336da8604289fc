// ssim-supervise: runs one entity's program and records how it ended.
//
//   ssim-supervise STATUS_FILE RUN_DIR OUT ERR -- PROGRAM [ARGS...]
//
// It leads its own session and process group (so `ssim stop` can kill the whole group
// and a terminal hang-up does not reach it), starts PROGRAM in RUN_DIR with stdout and
// stderr to OUT and ERR, waits, and writes STATUS_FILE atomically twice: when the
// program has started and when it has ended (exit code or signal, end time). ssim reads
// that file to know the entity's state even when `ssim run` itself is gone.
//
// Deliberately tiny and linked statically: it is exec'd once per entity, and process
// start-up is the main cost of a 1,000-member ensemble.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern char** environ;

namespace {

volatile sig_atomic_t g_child = 0;

double now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

// Field 22 of /proc/self/stat: lets readers tell this process from a later one that
// reuses its pid.
std::string start_ticks() {
  FILE* f = std::fopen("/proc/self/stat", "r");
  if (!f) return "0";
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');
  if (!p) return "0";
  int field = 2;
  for (; *p && field < 22; ++p)
    if (*p == ' ') ++field;
  std::string out;
  while (*p && *p != ' ') out += *p++;
  return out;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else out += c;
  }
  return out;
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t off = 0, len = static_cast<ssize_t>(text.size());
  while (off < len) {
    ssize_t w = write(fd, text.data() + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += w;
  }
  close(fd);
  rename(tmp.c_str(), path.c_str());
}

void forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

int open_output(const char* path) {
  return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7 || std::strcmp(argv[5], "--") != 0) {
    std::fprintf(stderr, "usage: ssim-supervise STATUS_FILE RUN_DIR OUT ERR -- PROGRAM [ARGS...]\n");
    return 2;
  }
  const std::string status_file = argv[1];
  const char* run_dir = argv[2];
  char** program = argv + 6;

  setsid();
  // ssim run may have blocked signals it waits on; start from a clean mask.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction sa {};
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);

  const double start = now();
  const std::string me = "\"supervisor_pid\":" + std::to_string(getpid()) +
                         ",\"supervisor_start_ticks\":\"" + start_ticks() + "\"";

  int out = open_output(argv[3]);
  int err = open_output(argv[4]);
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (devnull >= 0) posix_spawn_file_actions_adddup2(&actions, devnull, 0);
  if (out >= 0) posix_spawn_file_actions_adddup2(&actions, out, 1);
  if (err >= 0) posix_spawn_file_actions_adddup2(&actions, err, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  pid_t child = 0;
  int rc = chdir(run_dir) == 0 ? posix_spawnp(&child, program[0], &actions, &attr, program, environ) : errno;
  if (rc != 0) {
    std::string msg = std::string("ssim: cannot start ") + program[0] + ": " + std::strerror(rc) + "\n";
    if (err >= 0 && write(err, msg.data(), msg.size()) < 0) {}
    write_atomically(status_file, "{\"state\":\"exited\"," + me + ",\"start\":" + std::to_string(start) +
                                      ",\"end\":" + std::to_string(now()) +
                                      ",\"exit_code\":127,\"signal\":null,\"error\":\"" +
                                      json_escape(msg.substr(0, msg.size() - 1)) + "\"}\n");
    return 127;
  }
  g_child = child;
  write_atomically(status_file, "{\"state\":\"running\"," + me + ",\"child_pid\":" + std::to_string(child) +
                                    ",\"start\":" + std::to_string(start) + "}\n");

  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const bool signaled = WIFSIGNALED(status);
  const int code = signaled ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  write_atomically(status_file,
                   "{\"state\":\"exited\"," + me + ",\"child_pid\":" + std::to_string(child) +
                       ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(now()) +
                       ",\"exit_code\":" + (signaled ? std::string("null") : std::to_string(code)) +
                       ",\"signal\":" + (signaled ? std::to_string(WTERMSIG(status)) : std::string("null")) +
                       "}\n");
  return code;
}
