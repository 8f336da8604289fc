// Baseline for bench_engine.sh: spawn and wait N processes in a plain posix_spawn loop,
// the least any launcher must pay for them on this machine.
//   spawn_baseline N PROGRAM
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: spawn_baseline N PROGRAM\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  char* args[] = {argv[2], nullptr};
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    pid_t pid;
    if (posix_spawn(&pid, argv[2], nullptr, nullptr, args, environ) != 0) return 1;
    int status;
    waitpid(pid, &status, 0);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.3f\n", s);
  return 0;
}
