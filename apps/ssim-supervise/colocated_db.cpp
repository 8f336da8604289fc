// `ssim-supervise --colocated-db [--port P] [--binary B] [--config KEY VALUE]...
//                [--inference [--inference-threads N]] -- PROGRAM...`
//
// SmartSim's colocated model: each task of the entity runs through this wrapper. The
// tasks of one node share one database of their own, started by the first of them and
// stopped by the last (counts under a lock in a node-local directory; a task that ends
// before all the tasks its launcher says run on the node have come keeps it for the
// late ones, leave()), reached through
// a Unix socket (default) or 127.0.0.1:P, with a password of its own. The program runs
// as a child with SSDB and SSDB_PASSWORD pointing at it; signals are passed on; the
// wrapper exits as the program did. The database is in the task's process group, so
// stopping the step stops it too. With --inference, the first task also starts the
// inference service (ssim-infer, beside this program) on the same database, and every
// task waits until it serves (docs/inference.md).
#include "apps/ssim-supervise/colocated_db.hpp"
#include "apps/ssim-supervise/common.hpp"
#include "apps/ssim-supervise/node_name.hpp"
#include "apps/ssim-supervise/read_all.hpp"
#include "lib/client/rank_info.hpp"
#include "lib/util/job_process.hpp"
#include "lib/util/node_address.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

using supervise::start_ticks;

namespace {

struct Options {
  int port = 0;  // 0: Unix socket
  // --tcp: a loopback port the first task picks (the program runs in a container, where
  // the node folder's socket is not; the runtimes ssim drives share the host's network).
  bool tcp = false;
  std::string binary = "redis-server";
  std::vector<std::pair<std::string, std::string>> config;
  bool inference = false;
  int inference_threads = 0;
  std::vector<char*> program;
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "ssim: colocated database: %s\n", why.c_str());
  std::exit(127);
}

double seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The database's log: in the run directory (one per node), where the entity's own
// output is; in the node directory when there is none.
std::string log_path(const std::string& dir) {
  const char* run_dir = std::getenv("SSIM_RUN_DIR");
  return run_dir && *run_dir ? std::string(run_dir) + "/colocated_db." + node_name() + ".log" : dir + "/db.log";
}

// A directory only this user can enter, made if missing. Shared temporary folders are
// hostile ground: one another user made first (owned by them, mode 777) or planted as a
// symbolic link is refused, never used, so nothing below it can be redirected.
void ensure_private_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) die("cannot make " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) die("cannot use " + path + ": " + std::strerror(errno));
  const std::string hint = "; remove it, or set TMPDIR to a folder of your own";
  if (S_ISLNK(st.st_mode))
    die("refusing " + path + ": it is a symbolic link, which another user may have planted" + hint);
  if (!S_ISDIR(st.st_mode)) die("refusing " + path + ": it is not a directory" + hint);
  if (st.st_uid != getuid())
    die("refusing " + path + ": it belongs to uid " + std::to_string(st.st_uid) + ", not to you" + hint);
  if ((st.st_mode & 077) != 0 && chmod(path.c_str(), 0700) != 0)  // ours but open to others: closed
    die("cannot make " + path + " private: " + std::strerror(errno));
}

// Where this user's node folders go: $XDG_RUNTIME_DIR/ssim (a per-user tmpfs made by the
// login manager) when there is one, else $TMPDIR/ssim-UID (or /tmp/ssim-UID).
std::string runtime_base() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  struct stat st {};
  if (runtime && *runtime && lstat(runtime, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
      (st.st_mode & 077) == 0)
    return std::string(runtime) + "/ssim";
  return env_or("TMPDIR", "/tmp") + "/ssim-" + std::to_string(getuid());
}

// One directory per entity and node, node-local and short enough for a socket path.
std::string node_dir() {
  const std::string node = node_name();
  const std::string key = env_or("SSIM_EXPERIMENT_ID", "") + "/" + env_or("SSIM_ENTITY", "") + "/" + node;
  unsigned long long h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ULL;
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", h);
  const std::string base = runtime_base();
  ensure_private_dir(base);
  const std::string dir = base + "/colo-" + name;
  ensure_private_dir(dir);
  return dir;
}

// The inference service's log, beside the database's.
std::string inference_log_path(const std::string& dir) {
  const char* run_dir = std::getenv("SSIM_RUN_DIR");
  return run_dir && *run_dir ? std::string(run_dir) + "/colocated_inference." + node_name() + ".log"
                             : dir + "/inference.log";
}

// ssim-infer beside this program (the build tree and an install keep them together).
std::string inference_service() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  std::string path(self, static_cast<size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + "ssim-infer";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

std::string read_text(const std::string& path) {
  bool ok = false;
  return read_all(path, ok);  // "" when missing: no users, no pid yet
}

// Whole or not at all, by rename: tasks waiting outside the lock read these files.
void write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) || close(fd) != 0 ||
      rename(tmp.c_str(), path.c_str()) != 0)
    die("cannot write " + path + ": " + std::strerror(errno));
}

bool alive(pid_t pid) {
  if (pid <= 0) return false;
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const size_t p = stat.rfind(')');
  return p != std::string::npos && p + 2 < stat.size() && stat[p + 2] != 'Z' && stat[p + 2] != 'X';
}

// True when `pid`'s working folder is `dir` (a folder only this user can enter).
bool works_in(pid_t pid, const std::string& dir) {
  struct stat cwd {
  }, folder{};
  return stat(("/proc/" + std::to_string(pid) + "/cwd").c_str(), &cwd) == 0 && stat(dir.c_str(), &folder) == 0 &&
         cwd.st_dev == folder.st_dev && cwd.st_ino == folder.st_ino;
}

// How long a server may take from its start to saying it is this experiment's.
constexpr double kServerStartSeconds = 5;

// The process this folder's `file` names ("PID TICKS": the database's `pid`, the
// service's `infer_pid`), if that very process still runs as this user: a pid reused by
// another program (or another user's) is not it.
pid_t recorded_database(const std::string& dir, const char* file = "/pid") {
  std::istringstream in(read_text(dir + file));
  pid_t pid = 0;
  std::string ticks;
  in >> pid >> ticks;
  if (!alive(pid) || ticks.empty() || start_ticks(std::to_string(pid)) != ticks) return 0;
  struct stat st {};
  if (stat(("/proc/" + std::to_string(pid)).c_str(), &st) != 0 || st.st_uid != getuid()) return 0;
  // The folder is this user's to write, the program's included: the kernel must also say
  // the process was started for this experiment (lib/util/job_process.hpp). Redis wipes
  // its environment when it sets its process title, so a database that is up is known
  // by its working folder instead: `--dir` puts it in this private node folder.
  // A server it started says neither for a moment (mid exec its environment reads
  // empty; redis wipes it before it moves into its folder): the very process (its pid
  // and start time) is asked again for a while before it is taken for a stranger, or a
  // task joining then would start a second database over the first one's socket.
  const std::string id = env_or("SSIM_EXPERIMENT_ID", "");
  const double deadline = seconds() + kServerStartSeconds;
  while (!id.empty() && !ssim::environ_holds(pid, "SSIM_EXPERIMENT_ID=" + id) && !works_in(pid, dir)) {
    if (seconds() > deadline || !alive(pid)) return 0;
    usleep(2000);
  }
  return pid;
}

std::string random_password() {
  unsigned char bytes[16];
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, bytes, sizeof bytes) != static_cast<ssize_t>(sizeof bytes)) die("cannot read /dev/urandom");
  close(fd);
  std::string out;
  char hex[3];
  for (unsigned char b : bytes) std::snprintf(hex, sizeof hex, "%02x", b), out += hex;
  return out;
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attr;  // with no signal blocked, as this wrapper blocks them
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) die("cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

// AUTH + PING through the socket; true on +PONG.
bool answers(const Options& o, const std::string& dir, const std::string& password) {
  int fd = -1;
  if (o.port) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(o.port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return close(fd), false;
  } else {
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    const std::string path = dir + "/db.sock";
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return close(fd), false;
  }
  const timeval tv{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const std::string req =
      "*2\r\n$4\r\nAUTH\r\n$" + std::to_string(password.size()) + "\r\n" + password + "\r\n*1\r\n$4\r\nPING\r\n";
  bool ok = write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size());
  std::string got;
  char buf[256];
  while (ok && got.find("+PONG") == std::string::npos && got.find("-") == std::string::npos) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return got.find("+PONG") != std::string::npos;
}

// The node's lock on `dir`/lock. The last user removes the folder (lock file included)
// while holding it, so a task that was waiting may find it held a removed file: it
// then takes the lock again on a folder made anew, until the file it holds is the one
// at the path.
struct NodeLock {
  int fd = -1;
  explicit NodeLock(const std::string& dir) {
    const std::string path = dir + "/lock";
    for (int tries = 0; tries < 100; ++tries) {
      ensure_private_dir(dir);
      fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0 || flock(fd, LOCK_EX) != 0) die("cannot lock " + path);
      struct stat held {
      }, now{};
      if (fstat(fd, &held) == 0 && lstat(path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
          held.st_dev == now.st_dev && now.st_uid == getuid())
        return;
      close(fd);  // removed (or replaced) while we waited: again
      fd = -1;
    }
    die("cannot lock " + path + ": it keeps being replaced");
  }
  ~NodeLock() {
    if (fd >= 0) close(fd);
  }
};

// Under the node's lock: the inference service on the database (its password in its
// environment, as SSDB_PASSWORD), its pid recorded in `infer_pid`.
void start_service(const Options& o, const std::string& dir, const std::string& password) {
  const std::string service = inference_service();
  if (service.empty())
    die("inference is on, but ssim-infer is not beside ssim-supervise (this ssim was built without libtorch: "
        "apt-get install libtorch-dev, then build or pip install ssim again)");
  unlink((dir + "/inference.json").c_str());
  std::vector<std::string> argv = {
      service,    "--db",      o.port ? "127.0.0.1:" + std::to_string(o.port) : "unix:" + dir + "/db.sock",
      "--listen", "127.0.0.1", "--run-dir",
      dir};
  if (o.inference_threads > 0) argv.insert(argv.end(), {"--threads", std::to_string(o.inference_threads)});
  setenv("SSDB_PASSWORD", password.c_str(), 1);  // the program gets the same one
  const pid_t pid = spawn(argv, inference_log_path(dir));
  write_text(dir + "/infer_pid", std::to_string(pid) + " " + start_ticks(std::to_string(pid)));
}

// Under the node's lock: the database and its service stopped (never a stranger that
// took a recorded pid).
void stop_servers(const std::string& dir) {
  if (const pid_t service = recorded_database(dir, "/infer_pid"); service > 0) {
    kill(service, SIGTERM);  // it writes its last statistics and ends
    const double deadline = seconds() + 5;
    while (alive(service) && seconds() < deadline) {
      waitpid(service, nullptr, WNOHANG);
      usleep(5000);
    }
    if (alive(service)) kill(service, SIGKILL);
    waitpid(service, nullptr, WNOHANG);
  }
  if (const pid_t pid = recorded_database(dir); pid > 0) {
    kill(pid, SIGTERM);
    kill(pid, SIGCONT);
    const double deadline = seconds() + 10;
    while (alive(pid) && seconds() < deadline) {
      waitpid(pid, nullptr, WNOHANG);  // ours when this task started it
      usleep(5000);
    }
    if (alive(pid)) kill(pid, SIGKILL);
    waitpid(pid, nullptr, WNOHANG);
  }
}

// Under the node's lock: the servers stopped, and nothing of them left in /tmp: the
// folder goes, lock file included (a task waiting on the lock sees that and makes it
// anew, NodeLock).
void stop_and_remove(const std::string& dir) {
  stop_servers(dir);
  for (const char* f : {"/pid", "/port", "/db.sock", "/password", "/db.conf", "/users", "/left", "/expected",
                        "/infer_pid", "/inference.json", "/inference-stats.json", "/inference.sock", "/lock"})
    unlink((dir + f).c_str());
  rmdir(dir.c_str());
}

int read_count(const std::string& path) { return std::atoi(read_text(path).c_str()); }

// Under the node's lock: the database's pid (started here when nobody runs it or waits
// for it), and one more user. `users` counts the node's tasks inside, `left` those that
// ended, `expected` how many the launcher said run on this node (0: it did not say).
pid_t join(Options& o, const std::string& dir, std::string& password) {
  NodeLock lock(dir);
  const int users = read_count(dir + "/users");
  const int said = ssim::launcher_local_size();
  pid_t pid = recorded_database(dir);
  // Nobody inside and nobody still to come: what runs is a stale database (of a task
  // killed before it could leave), never handed to a new attempt with its old data.
  const bool awaited = users > 0 || read_count(dir + "/left") < read_count(dir + "/expected");
  if (pid != 0 && !awaited) stop_servers(dir), pid = 0;  // the folder stays: this task holds its lock
  if (pid == 0) {
    password = random_password();
    write_text(dir + "/password", password);
    if (o.tcp && !o.port && (o.port = ssim::free_port_on("127.0.0.1")) == 0) die("no free loopback port");
    write_text(dir + "/port", std::to_string(o.port));
    write_text(dir + "/users", "0");
    write_text(dir + "/left", "0");
    write_text(dir + "/expected", std::to_string(said));
    unlink((dir + "/db.sock").c_str());
    // The password goes in a file only this user can read: a command line is anybody's
    // to read in /proc until the server overwrites it with its title.
    write_text(dir + "/db.conf", "requirepass \"" + password + "\"\n");
    std::vector<std::string> argv = {o.binary,       dir + "/db.conf",
                                     "--port",       std::to_string(o.port),
                                     "--bind",       "127.0.0.1",
                                     "--save",       "",
                                     "--appendonly", "no",
                                     "--dir",        dir};
    if (!o.port) argv.insert(argv.end(), {"--unixsocket", dir + "/db.sock", "--unixsocketperm", "700"});
    for (const auto& [k, v] : o.config) argv.insert(argv.end(), {"--" + k, v});
    pid = spawn(argv, log_path(dir));
    write_text(dir + "/pid", std::to_string(pid) + " " + start_ticks(std::to_string(pid)));
  } else {
    password = read_text(dir + "/password");
    if (o.tcp && !o.port) o.port = read_count(dir + "/port");  // the first task's choice
    if (said > read_count(dir + "/expected")) write_text(dir + "/expected", std::to_string(said));
  }
  // The service: started with the database, and again by the next task when it died.
  if (o.inference && recorded_database(dir, "/infer_pid") == 0) start_service(o, dir, password);
  write_text(dir + "/users", std::to_string(read_count(dir + "/users") + 1));
  return pid;
}

// How long a task that ended first keeps the database for the node's tasks that have
// not started yet (a loaded node can start the tasks of one step seconds apart).
constexpr double kAwaitLateTasksSeconds = 60;

// One user fewer; the last one stops the database. A task that ended well before the
// others its launcher said run here even started keeps it for them: were it stopped, a
// late task would start a database of its own, empty of what the first one put there.
// It waits until one joins (the last of them stops it), or a signal ends the wait, or
// kAwaitLateTasksSeconds pass.
void leave(const std::string& dir, bool ended_well, const sigset_t& waited) {
  {
    NodeLock lock(dir);
    const int users = read_count(dir + "/users") - 1;
    const int left = read_count(dir + "/left") + 1;
    write_text(dir + "/users", std::to_string(users > 0 ? users : 0));
    write_text(dir + "/left", std::to_string(left));
    if (users > 0) return;
    if (!ended_well || left >= read_count(dir + "/expected")) return stop_and_remove(dir);
  }
  const double deadline = seconds() + kAwaitLateTasksSeconds;
  while (true) {
    siginfo_t info{};
    const timespec tick{0, 50000000L};
    const int sig = sigtimedwait(&waited, &info, &tick);
    const bool ended = (sig > 0 && sig != SIGCHLD) || seconds() > deadline;
    NodeLock lock(dir);  // the folder made anew when the late tasks came and went: removed again below
    if (read_count(dir + "/users") > 0) return;  // a late task came: the last of them stops it
    if (ended || recorded_database(dir) == 0) return stop_and_remove(dir);
  }
}

// A wrapper killed with SIGKILL (kill -9, the OOM killer, a launcher's group kill) cannot
// leave, and its node folder (holding the password) and perhaps its database would stay.
// A small process of its own, out of the task's process group, waits on a pipe only the
// wrapper holds: a byte there means the wrapper leaves itself; the pipe's end without one
// means it died, and this process leaves for it. Returns the pipe's write end (-1: none).
int start_leave_guard(const std::string& dir, const sigset_t& waited) {
  int guard[2];
  if (pipe2(guard, O_CLOEXEC) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) {
    close(guard[0]), close(guard[1]);
    return -1;
  }
  if (pid > 0) {
    close(guard[0]);
    return guard[1];
  }
  close(guard[1]);
  setpgid(0, 0);
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);  // no launcher waits on its output
  for (int fd : {0, 1, 2})
    if (null >= 0) dup2(null, fd);
  char said = 0;
  ssize_t n;
  while ((n = read(guard[0], &said, 1)) < 0 && errno == EINTR) {
  }
  if (n == 0) leave(dir, false, waited);
  _exit(0);
}

std::string last_lines(const std::string& path) {
  const std::string text = read_text(path);
  return text.size() > 400 ? text.substr(text.size() - 400) : text;
}

}  // namespace

int colocated_db_main(int argc, char** argv) {
  Options o;
  int i = 2;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    const std::string a = argv[i];
    if (a == "--port" && i + 1 < argc)
      o.port = std::atoi(argv[++i]);
    else if (a == "--binary" && i + 1 < argc)
      o.binary = argv[++i];
    else if (a == "--config" && i + 2 < argc)
      o.config.emplace_back(argv[i + 1], argv[i + 2]), i += 2;
    else if (a == "--inference")
      o.inference = true;
    else if (a == "--tcp")
      o.tcp = true;
    else if (a == "--inference-threads" && i + 1 < argc)
      o.inference_threads = std::atoi(argv[++i]);
    else
      die("unknown option " + a);
  }
  if (i + 1 >= argc)
    die("usage: ssim-supervise --colocated-db [--port P | --tcp] [--binary B] [--config K V]... -- PROGRAM...");
  for (int k = i + 1; k < argc; ++k) o.program.push_back(argv[k]);
  o.program.push_back(nullptr);

  sigset_t waited, none;
  sigemptyset(&waited);
  sigemptyset(&none);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&waited, sig);
  sigprocmask(SIG_BLOCK, &waited, nullptr);

  const std::string dir = node_dir();
  std::string password;
  const pid_t db = join(o, dir, password);
  const int guard = start_leave_guard(dir, waited);
  // The wrapper leaves itself when it can: the guard is told first, so that it never
  // leaves a second time.
  auto leave_self = [&](bool ended_well) {
    if (guard >= 0) (void)!write(guard, "x", 1), close(guard);
    leave(dir, ended_well, waited);
  };
  const double deadline = seconds() + 30;
  while (!answers(o, dir, password)) {
    if (!alive(db) || seconds() > deadline) {
      leave_self(false);
      die(std::string(alive(db) ? "no answer in 30 s" : "it ended") + "; its log (" + log_path(dir) + "):\n" +
          last_lines(log_path(dir)));
    }
    usleep(5000);
  }
  // The service serves once it has registered in the database (inference.json).
  while (o.inference && access((dir + "/inference.json").c_str(), F_OK) != 0) {
    const pid_t service = recorded_database(dir, "/infer_pid");
    if (service == 0 || seconds() > deadline) {
      leave_self(false);
      die(std::string(service ? "the inference service did not start in 30 s" : "the inference service ended") +
          "; its log (" + inference_log_path(dir) + "):\n" + last_lines(inference_log_path(dir)));
    }
    usleep(5000);
  }
  setenv("SSDB", o.port ? ("127.0.0.1:" + std::to_string(o.port)).c_str() : ("unix:" + dir + "/db.sock").c_str(), 1);
  setenv("SSDB_PASSWORD", password.c_str(), 1);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t child = 0;
  const int rc = posix_spawnp(&child, o.program[0], nullptr, &attr, o.program.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    leave_self(false);
    std::fprintf(stderr, "ssim: cannot start %s: %s\n", o.program[0], std::strerror(rc));
    return 127;
  }
  int status = 0;
  bool signalled = false;
  while (true) {
    if (waitpid(child, &status, WNOHANG) == child) break;
    siginfo_t info{};
    const timespec tick{1, 0};
    const int sig = sigtimedwait(&waited, &info, &tick);
    if (sig > 0 && sig != SIGCHLD) kill(child, sig), signalled = true;
  }
  leave_self(!signalled && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (WIFSIGNALED(status)) {  // end the same way, so the supervisor records the signal
    signal(WTERMSIG(status), SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    kill(getpid(), WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
