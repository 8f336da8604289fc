// Baseline for the benchmarks: spawn and wait N processes in a plain posix_spawn loop,
// the least any launcher must pay for them on this machine.
//   spawn_baseline N PROGRAM [FOLDER]
// With FOLDER, each process gets what a hand-written batch loop gives it, and what ssim
// gives a member (docs/layout.md): a folder of its own, FOLDER/m_I, as its working
// directory, its stdout and stderr in m_I/m_I.out and m_I/m_I.err. That is the file
// system's own share of a member, which no launcher that keeps a member's output avoids.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: spawn_baseline N PROGRAM [FOLDER]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const char* folder = argc > 3 ? argv[3] : nullptr;
  char* args[] = {argv[2], nullptr};
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (folder) {
      const std::string name = "m_" + std::to_string(i);
      const std::string dir = std::string(folder) + "/" + name;
      if (mkdir(dir.c_str(), 0755) != 0) return 1;
      const std::string out = dir + "/" + name + ".out", err = dir + "/" + name + ".err";
      posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
    }
    pid_t pid;
    const int rc = posix_spawn(&pid, argv[2], &actions, nullptr, args, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return 1;
    int status;
    waitpid(pid, &status, 0);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.3f\n", s);
  return 0;
}
