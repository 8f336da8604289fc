// What a failed program said last, with its launcher's banners left out.
#include <catch2/catch.hpp>

#include "lib/util/program_errors.hpp"

using namespace ssim;

TEST_CASE("program lines: Open MPI's banners are not the program's words") {
  const std::string dash(74, '-');
  const std::string err =
      "Traceback (most recent call last):\n  File \"sim.py\", line 3\nValueError: rank 1: CFL condition violated\n" +
      dash +
      "\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job "
      "has been aborted.\n" +
      dash + "\n" + dash +
      "\nmpirun detected that one or more processes exited with non-zero status, thus causing\n"
      "the job to be terminated. The first process to do so was:\n\n  Process name: [[36137,1],0]\n  Exit code:    "
      "3\n" +
      dash + "\n";
  CHECK(program_lines(err, 1) == "ValueError: rank 1: CFL condition violated");
  CHECK(program_lines(err, 2) == "  File \"sim.py\", line 3\nValueError: rank 1: CFL condition violated");
  // A tail that starts inside a banner.
  CHECK(program_lines("a non-zero exit code.\n" + dash + "\nboom\n", 1) == "boom");
}

TEST_CASE("program lines: a Python exception whose message runs over lines is named by its own line") {
  const std::string err =
      "Traceback (most recent call last):\n  File \"p.py\", line 2, in <module>\n    c = Client(cluster=False)\n"
      "TypeError: __init__(): incompatible constructor arguments. The following argument types are supported:\n"
      "    1. ssim._ssim.Client(address: str = '')\n\nInvoked with: kwargs: cluster=False\n";
  CHECK(program_lines(err, 1) ==
        "TypeError: __init__(): incompatible constructor arguments. The following argument types are supported:");
  CHECK(program_lines(err, 2) ==
        "TypeError: __init__(): incompatible constructor arguments. The following argument types are supported:\n"
        "    1. ssim._ssim.Client(address: str = '')");
  // A one-line exception stays as it was.
  CHECK(program_lines("Traceback (most recent call last):\n  File \"a\", line 1\nValueError: bad\n", 1) ==
        "ValueError: bad");
}

TEST_CASE("program lines: srun, MPICH, jsrun and aprun summaries are left out") {
  CHECK(program_lines("RuntimeError: diverged\nsrun: error: n2: task 1: Exited with exit code 1\n"
                      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n",
                      1) == "RuntimeError: diverged");
  const std::string eq(83, '=');
  CHECK(program_lines("bad mesh\n\n" + eq +
                          "\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   EXIT CODE: 1\n" + eq + "\n",
                      1) == "bad mesh");
  CHECK(program_lines("oops\nApplication 1234 exit codes: 1\nApplication 1234 resources: utime ~0s\n", 1) == "oops");
  CHECK(program_lines("", 1).empty());
  CHECK(program_lines("only\n\n\n", 1) == "only");
  CHECK(program_lines("a\x1b[31mred\n", 1) == "a\xEF\xBF\xBD[31mred");  // no terminal control
  // A program's own short rule is no banner: it hides nothing above it, stays between
  // lines, and at the end gives way to the line that says what happened.
  CHECK(program_lines("result\n----------\n", 1) == "result");
  CHECK(program_lines("a\n----------\nb\n", 2) == "----------\nb");
  CHECK(program_lines("RuntimeError: boom\n  ====\n\n", 1) == "RuntimeError: boom");
  CHECK(program_lines("----\n", 1).empty());
}
