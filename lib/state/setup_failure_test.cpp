#include "lib/state/setup_failure.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>

using namespace ssim::state;

// What Debian's Lmod 8.6 prints for `module load nosuch` (recorded).
static const char* kLmodUnknown =
    "Lmod has detected the following error: The following module(s) are unknown:\n"
    "\"nosuch\"\n\n"
    "Please check the spelling or version number. Also try \"module spider ...\"\n"
    "It is also possible your cache file is out-of-date; it may help to try:\n"
    "  $ module --ignore_cache load \"nosuch\"\n\n"
    "Also make sure that all modulefiles written in TCL start with the string\n#%Module\n\n\n";

TEST_CASE("setup failure: Lmod's unknown module is said with its name, not the advice after it") {
  CHECK(setup_error_line(kLmodUnknown) == "The following module(s) are unknown: \"nosuch\"");
}

TEST_CASE("setup failure: Environment Modules' error line, and a plain program's last line") {
  CHECK(setup_error_line("ERROR: Unable to locate a modulefile for 'nosuch'\n") ==
        "Unable to locate a modulefile for 'nosuch'");
  CHECK(setup_error_line("bash: line 12: venv/bin/activate: No such file or directory\n") ==
        "bash: line 12: venv/bin/activate: No such file or directory");
  CHECK(setup_error_line("  \nsomething odd happened\n\n") == "something odd happened");
  CHECK(setup_error_line("") == "");
}

TEST_CASE("setup failure: the record names the line, its exit code and what it said") {
  const auto f = parse_setup_failure(std::string("2\n1\nmodule load nosuch\n") + kLmodUnknown);
  REQUIRE(f);
  CHECK(f->line == 2);
  CHECK(f->exit_code == 1);
  CHECK(describe(*f) ==
        "setup line 2 failed: module load nosuch (exit 1): The following module(s) are unknown: \"nosuch\"");
  const auto quiet = parse_setup_failure("1\n1\nfalse\n");
  REQUIRE(quiet);
  CHECK(describe(*quiet) == "setup line 1 failed: false (exit 1)");
}

TEST_CASE("setup failure: a line that ended the step with status 0 never reached the program") {
  const auto f = parse_setup_failure("1\n0\nexit 0\n");
  REQUIRE(f);
  CHECK(describe(*f) == "setup line 1 ended the step before the program started: exit 0");
}

TEST_CASE("setup failure: setup lines that never finished are told by their stderr file left behind") {
  const std::string dir =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/setup-left-" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  CHECK(!setup_never_finished(dir));
  { std::ofstream(dir + "/" + kSetupStderrFile) << ""; }
  CHECK(setup_never_finished(dir));
  std::remove((dir + "/" + kSetupStderrFile).c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("setup failure: a record cut short or garbled is no record") {
  CHECK(!parse_setup_failure("2\n1\n"));
  CHECK(!parse_setup_failure("x\n1\nfalse\n"));
  CHECK(!parse_setup_failure(""));
}
