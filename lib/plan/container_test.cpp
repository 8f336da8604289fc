#include "lib/plan/container.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/plan/plan.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

namespace {
const std::string kHead = "experiment: {name: e}\n";
plan::Plan plan_with(const std::string& yaml, std::vector<plan::ContainerRuntime> installed = {}) {
  plan::PlanContext context{"/work", "local", "/usr/bin/python3"};
  context.container_runtimes = std::move(installed);
  return plan::build_plan(test::parse(yaml, "/base"), context);
}
}  // namespace

TEST_CASE("container: an entity's own, else the experiment's, and none runs on the host") {
  const auto p = plan_with(
      "experiment: {name: e, container: {runtime: charliecloud, image: ./img, bind: [data, '/x:/y:ro']}}\n"
      "models:\n"
      "  - {name: a, exe: python3}\n"
      "  - {name: b, exe: sim, container: none}\n"
      "  - {name: c, exe: sim, container: {runtime: podman, image: docker.io/library/python:3.11}}\n"
      "ensembles:\n"
      "  - {name: s, exe: sim, replicas: 2, container: /imgs/x.sif}\n",
      {plan::ContainerRuntime::Apptainer});
  const auto& a = *p.steps[0].program->container;
  CHECK(a.runtime == plan::ContainerRuntime::Charliecloud);
  CHECK(a.image == "/base/img");
  CHECK(a.image_is_path);
  CHECK(a.binds == std::vector<plan::Bind>{{"/base/data", "/base/data", false}, {"/x", "/y", true}});
  CHECK(p.steps[0].program->exe == "python3");  // the image's Python, not the host's
  CHECK(p.steps[1].program->container == nullptr);
  CHECK(p.steps[2].program->container->image == "docker.io/library/python:3.11");
  CHECK(!p.steps[2].program->container->image_is_path);
  CHECK(p.steps[3].program->container->runtime == plan::ContainerRuntime::Apptainer);  // auto: the one installed
  CHECK(p.steps[3].program->container == p.steps[4].program->container);               // one for all the members
  CHECK(!p.steps[3].program->container->runtime_missing);
  CHECK(plan_with(kHead + "models: [{name: a, exe: x, container: ./i}]").steps[0].program->container->runtime_missing);
}

TEST_CASE("container: the host folders its program needs, found once for the entity") {
  const auto data = std::filesystem::temp_directory_path() / ("ssim-host-binds-" + std::to_string(::getpid()));
  std::filesystem::create_directories(data / "set");
  std::ofstream(data / "big.h5") << "x";
  const auto p = plan_with(kHead + "models:\n  - {name: a, exe: ./bin/sim, files: {symlink: [" +
                           (data / "big.h5").string() + ", " + (data / "set").string() +
                           "]}, container: ./i}\n"
                           "  - {name: b, exe: /opt/app/sim, container: ./i}\n"
                           "  - {name: c, exe: ./tools/$(entity)/run, container: ./i}\n");
  std::filesystem::remove_all(data);
  // A program beside the file (read-only), a symlinked file's folder, a symlinked folder
  // itself; an absolute exe is the image's.
  CHECK(p.steps[0].program->container->host_binds ==
        std::vector<plan::Bind>{{"/base/bin", "/base/bin", true},
                                {data.string(), data.string(), false},
                                {(data / "set").string(), (data / "set").string(), false}});
  CHECK(p.steps[1].program->container->host_binds.empty());
  CHECK(p.steps[2].program->container->host_binds == std::vector<plan::Bind>{{"/base/tools", "/base/tools", true}});
}

TEST_CASE("container: mistakes are refused at their place") {
  auto error = [](const std::string& yaml) { return test::error_of(kHead + yaml); };
  CHECK(error("models: [{name: a, exe: x, container: {runtime: lxc, image: i}}]")
            .find("exp.yaml:2:49: models[0].container.runtime") == 0);
  CHECK(error("models: [{name: a, exe: x, container: {runtime: podman}}]").find("container.image: missing") !=
        std::string::npos);
  CHECK(error("models: [{name: a, exe: x, container: {image: i, bind: ['/a:rel']}}]")
            .find("models[0].container.bind[0]: \"rel\" is not an absolute path") != std::string::npos);
  CHECK(error("models: [{name: a, exe: x, container: {image: i, bind: ['/a:/b:rx']}}]")
            .find("\"rx\" is not a bind mode") != std::string::npos);
  CHECK(error("models: [{name: a, exe: x, container: {image: i, options: [writable]}}]")
            .find("container.options[0]: \"writable\" is not an option") != std::string::npos);
  CHECK(error("models: [{name: a, exe: x, container: {image: i, ports: [1]}}]").find("ports") != std::string::npos);
  CHECK(test::error_of("experiment: {name: e, container: none}\nmodels: [{name: a, exe: x}]")
            .find("experiment.container: none is for an entity") != std::string::npos);
}
