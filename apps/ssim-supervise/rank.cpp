// The rank wrapper: `ssim-supervise --rank [OPTIONS] -- PROGRAM...`, what every rank of
// a multi-rank (or MPI) entity starts through, on every launcher (docs/distributed.md).
//
//   --size N            the entity's ranks, when the launcher does not say
//   --master FILE       rank 0 writes its address and a free port there; the others wait
//                       for it (MASTER_ADDR, MASTER_PORT); inherited values are replaced
//   --master-addr A     the entity's env: chose rank 0's address
//   --master-port P     the entity's env: chose the port (with --master-addr: nobody waits)
//   --loopback          rank 0's address is 127.0.0.1 (every rank on this machine)
//   --interface NAME    rank 0's address is that interface's (orchestrator.interface)
//   --gpus K            this rank keeps K of the entity's devices, by its local rank
//   --ends FILE         append how the rank ended (lib/state/rank_ends.hpp)
//   --torchrun P        the program is torchrun, starting P workers: its PET_* options
//   --no-env            leave RANK and the rest as they are (run: {rank_env: false})
//
// It sets RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE from the launcher's own
// variables (lib/client/rank_info.hpp), then runs PROGRAM as its child, passing on the
// signals a launcher sends, and its stderr through, keeping the last lines for the record.
#include "apps/ssim-supervise/rank.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/ssim-supervise/common.hpp"
#include "apps/ssim-supervise/node_name.hpp"
#include "lib/client/metrics_file.hpp"
#include "lib/client/rank_info.hpp"
#include "lib/state/rank_ends.hpp"
#include "lib/state/stdout_stamps.hpp"
#include "lib/util/node_address.hpp"
#include "lib/util/program_errors.hpp"

extern char** environ;

namespace supervise {

namespace {

struct RankOptions {
  int size = 0;
  std::string master, interface, ends;
  std::string master_addr, master_port;  // the entity's own env: values, "" when it set none
  bool loopback = false, no_env = false;
  int gpus = 0, torchrun = 0;
  char** program = nullptr;
};

bool parse(int argc, char** argv, RankOptions& o) {
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--") {
      o.program = i + 1 < argc ? argv + i + 1 : nullptr;
      return o.program != nullptr;
    }
    const char* v = nullptr;
    if (a == "--loopback")
      o.loopback = true;
    else if (a == "--no-env")
      o.no_env = true;
    else if (a == "--size" && (v = value()))
      o.size = std::atoi(v);
    else if (a == "--torchrun" && (v = value()))
      o.torchrun = std::atoi(v);
    else if (a == "--gpus" && (v = value()))
      o.gpus = std::atoi(v);
    else if (a == "--master" && (v = value()))
      o.master = v;
    else if (a == "--master-addr" && (v = value()))
      o.master_addr = v;
    else if (a == "--master-port" && (v = value()))
      o.master_port = v;
    else if (a == "--interface" && (v = value()))
      o.interface = v;
    else if (a == "--ends" && (v = value()))
      o.ends = v;
    else
      return false;
  }
  return false;
}

void set(const char* name, const std::string& value) { setenv(name, value.c_str(), 1); }

// Of the devices ssim gave the entity, the K of this local rank: no two ranks share one.
void keep_own_gpus(int k, int local_rank) {
  const char* all = std::getenv("CUDA_VISIBLE_DEVICES");
  std::vector<std::string> ids;
  std::stringstream in(all ? all : "");
  for (std::string id; std::getline(in, id, ',');)
    if (!id.empty()) ids.push_back(id);
  std::string mine;
  for (long i = static_cast<long>(local_rank) * k;
       i < static_cast<long>(local_rank + 1) * k && i < static_cast<long>(ids.size()); ++i)
    mine += (mine.empty() ? "" : ",") + ids[static_cast<size_t>(i)];
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) set(var, mine);
  set("SSIM_RANK_GPUS", mine);  // ssim.distributed: these are this rank's own
}

// MASTER_ADDR and MASTER_PORT: rank 0 says where it is, the others read it. What the
// environment held before is not asked: only the entity's env: (--master-addr/-port)
// chooses. 0, or the exit code when rank 0 never said.
int meet_rank_zero(const RankOptions& o, int rank) {
  const char* addr = o.master_addr.c_str();
  const char* port = o.master_port.c_str();
  if (*addr && *port) {  // the entity's env chose both
    set("MASTER_ADDR", addr);
    set("MASTER_PORT", port);
    return 0;
  }
  if (rank == 0) {
    std::string address = *addr ? addr : "";
    try {
      if (address.empty()) address = ssim::resolve_bind_address(o.interface, o.loopback);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ssim: rank 0 has no address for the other ranks: %s\n", e.what());
      return 1;
    }
    const int chosen = *port ? std::atoi(port) : ssim::free_port_on(address);
    set("MASTER_ADDR", address);
    set("MASTER_PORT", std::to_string(chosen));
    write_atomically(o.master, address + " " + std::to_string(chosen) + "\n");
    return 0;
  }
  double wait = 600;
  if (const char* t = std::getenv("SSIM_MASTER_TIMEOUT"); t && *t) wait = std::atof(t);
  const double deadline = now() + wait;
  auto delay = std::chrono::milliseconds(5);
  while (!g_forward) {  // a launcher that ends the step ends the wait too
    std::ifstream in(o.master);
    std::string a, p;
    if (in >> a >> p) {
      set("MASTER_ADDR", a);
      set("MASTER_PORT", p);
      return 0;
    }
    if (now() > deadline) {
      std::fprintf(stderr, "ssim: rank %d: rank 0 did not say its address within %.0f s (%s)\n", rank, wait,
                   o.master.c_str());
      return 1;
    }
    std::this_thread::sleep_for(delay);  // a file another node writes: nothing to wait on but time
    delay = std::min(delay * 2, std::chrono::milliseconds(100));
  }
  return 1;
}

constexpr int kRankSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// Appends the rank's record to the entity's ends file, in one write (ranks' lines never mix).
void append_end(const std::string& file, const ssim::state::RankEnd& e) {
  const std::string line = ssim::state::encode_rank_end(e);
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return;
  (void)!write(fd, line.data(), line.size());
  close(fd);
}

// A signal the launcher sent before the program started (mpirun ending the step at once
// because another rank failed on its first line): recorded as the rank's end, asked, and
// this wrapper ends by it, as the program would have.
int end_before_start(const RankOptions& o, int rank, int sig) {
  if (!o.ends.empty()) {
    ssim::state::RankEnd e;
    e.rank = rank, e.signal = sig, e.end = now(), e.host = node_name(), e.asked = true;
    append_end(o.ends, e);
  }
  std::signal(sig, SIG_DFL);
  kill(getpid(), sig);
  return 128 + sig;
}

// Passes a signal the launcher sent on to the program, and says so in the ends file first:
// a launcher ending a step (mpirun after another rank failed) may kill this wrapper's whole
// group with SIGKILL a moment later, and the rank's end would not be recorded at all.
void forward_signal(pid_t pid, const RankOptions& o, int rank) {
  const int sig = g_forward;
  g_forward = 0;
  if (!sig) return;
  if (!o.ends.empty()) {
    ssim::state::RankEnd e;
    e.rank = rank, e.signal = sig, e.end = now(), e.host = node_name(), e.asked = true;
    append_end(o.ends, e);
  }
  kill(pid, sig);
}

// Writes all of `data` to `fd` (our own stdout or stderr: the launcher's).
void write_through(int fd, const char* data, size_t size) {
  for (size_t off = 0; off < size;) {
    const ssize_t w = write(fd, data + off, size - off);
    if (w <= 0 && errno != EINTR) return;
    if (w > 0) off += static_cast<size_t>(w);
  }
}

// The program's output as this wrapper reads it: stderr passed through, its last 16 KiB
// kept for the record; stdout passed through, its metric lines stamped (when the run
// directory is known).
struct Output {
  int err = -1;
  int out = -1;
  std::string tail;
  std::optional<ssim::state::StdoutStamper> stamper;
  std::string stamped_file;
  // Stdout read and not passed on yet: passed on by whole lines, each in one write, so that
  // the launcher's forwarding does not cut a line the program wrote piece by piece (an
  // unbuffered Python writes each word of a print on its own) into another rank's. What
  // has no newline yet goes on once the program is quiet for a moment, or past 64 KiB.
  std::string out_pending;
  void pass_stdout(bool all) {
    const size_t nl = out_pending.rfind('\n');
    const size_t upto = all || out_pending.size() > 65536 ? out_pending.size() : nl == std::string::npos ? 0 : nl + 1;
    if (upto == 0) return;
    write_through(1, out_pending.data(), upto);
    out_pending.erase(0, upto);
  }
  void stamp(const std::string& lines) const {
    if (!lines.empty()) ssim::metrics::append_locked(stamped_file, lines);
  }
};

// Copies the program's output through until both streams close (or, once the program has
// ended, until they are quiet: a daemon it left may hold them).
void pass_output(Output& io, pid_t pid, int& status, const RankOptions& o, int rank) {
  bool ended = false;
  char buf[65536];
  while (io.err >= 0 || io.out >= 0) {
    if (!ended) forward_signal(pid, o, rank);  // one that came before the first poll too
    pollfd p[2] = {{io.err, POLLIN, 0}, {io.out, POLLIN, 0}};
    const int ready = poll(p, 2, ended ? 100 : 200);
    if (ready == 0) io.pass_stdout(true);  // quiet: a line without its newline yet goes on
    if (ready == 0 && ended) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (!p[i].revents) continue;
      int& fd = i == 0 ? io.err : io.out;
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        close(fd), fd = -1;
        continue;
      }
      const size_t size = static_cast<size_t>(n);
      if (i == 0) {
        write_through(2, buf, size);
        io.tail.append(buf, size);
        if (io.tail.size() > 32768) io.tail.erase(0, io.tail.size() - 16384);
      } else {
        io.out_pending.append(buf, size);
        io.pass_stdout(false);
        if (io.stamper) io.stamp(io.stamper->take(std::string_view(buf, size), now()));
      }
    }
    if (!ended && waitpid(pid, &status, WNOHANG) == pid) ended = true;
  }
  for (int* fd : {&io.err, &io.out})
    if (*fd >= 0) close(*fd), *fd = -1;
  io.pass_stdout(true);
  if (io.stamper) io.stamp(io.stamper->finish(now()));
  if (!ended)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) forward_signal(pid, o, rank);
}

}  // namespace

int rank_main(int argc, char** argv) {
  RankOptions o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: ssim-supervise --rank [--size N] [--master FILE] [--loopback] [--interface NAME] "
                 "[--master-addr A] [--master-port P] [--gpus K] [--torchrun P] [--ends FILE] [--no-env] -- PROGRAM "
                 "[ARGS...]\n");
    return 2;
  }
  // Caught from the start: a launcher may end the step before the program runs, and that
  // rank's end must be recorded all the same.
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kRankSignals) sigaction(sig, &sa, nullptr);
  // The launcher's word, never RANK and the rest that the shell may have left.
  ssim::RankInfo r = o.no_env ? ssim::rank_info() : ssim::launcher_rank_info();
  // ssim knows how many ranks it started; a launcher may not say (PMIx alone).
  if (o.size > r.rank) {
    if (r.local_size == r.size && r.local_rank == r.rank) r.local_size = o.size;  // the guess of one node
    r.size = o.size;
  }
  if (!o.no_env) {
    set("RANK", std::to_string(r.rank));
    set("WORLD_SIZE", std::to_string(r.size));
    set("LOCAL_RANK", std::to_string(r.local_rank));
    set("LOCAL_WORLD_SIZE", std::to_string(r.local_size));
    if (!o.master.empty())
      if (const int rc = meet_rank_zero(o, r.rank); rc != 0 && !g_forward) return rc;
  }
  if (o.gpus > 0) keep_own_gpus(o.gpus, r.local_rank);
  if (o.torchrun > 0) {
    // torchrun reads its options from PET_* (torch.distributed.argparse_util): one torchrun
    // a task, each starting its workers, meeting at rank 0's address (static rendezvous),
    // or torchrun's own rendezvous on this host when it is alone.
    set("PET_NPROC_PER_NODE", std::to_string(o.torchrun));
    if (r.size <= 1) {
      set("PET_STANDALONE", "1");
    } else {
      set("PET_NNODES", std::to_string(r.size));
      set("PET_NODE_RANK", std::to_string(r.rank));
      if (const char* a = std::getenv("MASTER_ADDR")) set("PET_MASTER_ADDR", a);
      if (const char* p = std::getenv("MASTER_PORT")) set("PET_MASTER_PORT", p);
    }
  }

  if (const int sig = g_forward) return end_before_start(o, r.rank, sig);
  // The program's stderr through this wrapper (for the rank's record), and its stdout
  // (its metric lines stamped, stdout_stamps.hpp) when the run directory is known.
  int err_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  const bool capture = !o.ends.empty() && pipe2(err_pipe, O_CLOEXEC) == 0;
  const char* run_dir = std::getenv("SSIM_RUN_DIR");
  const bool stamp = capture && run_dir && *run_dir && pipe2(out_pipe, O_CLOEXEC) == 0;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture) posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  if (stamp) posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : kRankSignals) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, o.program[0], &actions, &attr, o.program, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (capture) close(err_pipe[1]);
  if (stamp) close(out_pipe[1]);
  if (rc != 0) {
    std::fprintf(stderr, "ssim: cannot start %s: %s\n", o.program[0], std::strerror(rc));
    return 127;
  }
  int status = 0;
  Output io;
  if (capture) {
    io.err = err_pipe[0];
    if (stamp) {
      io.out = out_pipe[0];
      io.stamper.emplace(r.rank);
      io.stamped_file = ssim::state::stamped_metrics_path(run_dir, r.rank);
    }
    pass_output(io, pid, status, o, r.rank);
  } else {
    while (true) {
      if (const int sig = g_forward) g_forward = 0, kill(pid, sig);
      if (waitpid(pid, &status, 0) >= 0) break;
      if (errno != EINTR) return 127;
    }
  }
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  if (!o.ends.empty()) {
    ssim::state::RankEnd e;
    e.rank = r.rank, e.exit_code = code, e.signal = signal, e.end = now(), e.host = node_name();
    if (code != 0 || signal != 0) e.said = ssim::program_lines(io.tail, 1);  // its own line, not a banner
    append_end(o.ends, e);
  }
  if (signal) {  // ends as the program did, so the launcher reports the same
    std::signal(signal, SIG_DFL);
    kill(getpid(), signal);
    return 128 + signal;
  }
  return code;
}

}  // namespace supervise
