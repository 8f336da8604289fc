#pragma once
// Starts a job's program as posix_spawn would with the keeper's file actions and
// attributes (three streams, its folder, nothing else open, the signals it expects,
// a process group or session of its own), without posix_spawn's cost: glibc's child
// queries and resets every one of the 64 signal dispositions (over a hundred system
// calls a start, about 6% of a spawn measured here); this child resets only the ones
// that need it.
#include <sys/types.h>

#include <string>

namespace supervise {

struct ProgramStart {
  const char* program;  // the path to execute (PATH already searched)
  char* const* argv;
  char* const* envp;
  std::string dir;   // its working folder
  std::string out;   // its standard output, created or truncated
  std::string err;   // its standard error, created or truncated
  bool own_session;  // a session of its own (setsid); otherwise a process group of its own
};

// The program's pid, or -1 with `error` set to the errno of what failed (an output file
// that cannot be created, a program that cannot be executed).
pid_t spawn_program(const ProgramStart& start, int& error);

}  // namespace supervise
