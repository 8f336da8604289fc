#include "lib/launch/container_failure.hpp"

#include <catch2/catch.hpp>

using namespace ssim;
using R = plan::ContainerRuntime;

TEST_CASE("container start failures: the runtime's words, only with its own exit code") {
  const std::string fatal = "FATAL:   \"simulate\": executable file not found in $PATH";
  CHECK(launch::container_start_failure(R::Apptainer, 255, "WARNING: x\n" + fatal) ==
        "apptainer did not start it: " + fatal);
  CHECK(!launch::container_start_failure(R::Apptainer, 1, fatal));  // the program's own failure
  CHECK(!launch::container_start_failure(R::Apptainer, 255, "Traceback ...\nValueError: bad"));
  const std::string crun =
      "Error: crun: executable file `sim` not found in $PATH: No such file or directory: OCI runtime attempted to "
      "invoke a command that was not found";
  CHECK(launch::container_start_failure(R::Podman, 127, crun) == "podman did not start it: " + crun);
  CHECK(!launch::container_start_failure(R::Podman, 2, crun));
  CHECK(launch::container_start_failure(R::Docker, 125, "docker: Error response from daemon: x.")->find("docker") == 0);
  const std::string ch = "ch-run[1234]: error: can't execve(2): sim: No such file or directory (ch_core.c:410 2)";
  CHECK(launch::container_start_failure(R::Charliecloud, 1, ch) == "ch-run did not start it: " + ch);
  CHECK(!launch::container_start_failure(R::Charliecloud, 1, "sim: error: bad input"));
}
