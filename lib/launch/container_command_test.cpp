#include "lib/launch/container_command.hpp"

#include <catch2/catch.hpp>

using namespace ssim;
using Argv = std::vector<std::string>;

namespace {
plan::Container container(plan::ContainerRuntime runtime, const std::string& image) {
  plan::Container c;
  c.runtime = runtime;
  c.image = image;
  c.image_is_path = image[0] == '/';
  return c;
}
launch::ContainerMounts mounts(bool gpus = false) {
  launch::ContainerMounts m;
  m.workdir = "/e/m";
  m.binds = {{"/e", "/e", false}, {"/ssim/python", "/ssim/python", true}, {"/data", "/in", true}};
  m.gpus = gpus;
  m.env = {"SSDB", "RANK"};
  return m;
}
const Argv program = {"python3", "train.py", "a b"};
Argv operator+(Argv a, const Argv& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

TEST_CASE("container commands: each runtime's documented spelling, the program last and untouched") {
  using R = plan::ContainerRuntime;
  CHECK(launch::container_command(container(R::Apptainer, "/img.sif"), mounts(), program) ==
        Argv{"apptainer", "exec", "--pwd", "/e/m", "--bind", "/e", "--bind", "/ssim/python:/ssim/python:ro", "--bind",
             "/data:/in:ro", "/img.sif"} +
            program);
  CHECK(launch::container_command(container(R::Singularity, "docker://python:3.11"), mounts(true), program) ==
        Argv{"singularity", "exec", "--pwd", "/e/m", "--bind", "/e", "--bind", "/ssim/python:/ssim/python:ro", "--bind",
             "/data:/in:ro", "--nv", "docker://python:3.11"} +
            program);
  // ch-run: no read-only binds, `--` before the program.
  CHECK(launch::container_command(container(R::Charliecloud, "/img"), mounts(true), program) ==
        Argv{"ch-run", "--bind=/e", "--bind=/ssim/python", "--bind=/data:/in", "--cd=/e/m", "/img", "--"} + program);
  auto with_env = mounts();
  with_env.image_environment = true;
  CHECK(launch::container_command(container(R::Charliecloud, "/img"), with_env, program)[5] == "--set-env");
  CHECK(launch::container_command(container(R::Podman, "python:3.11"), mounts(true), program) ==
        Argv{"podman",
             "run",
             "--rm",
             "--init",
             "--network=host",
             "--ipc=host",
             "-w",
             "/e/m",
             "--userns=keep-id",
             "-v",
             "/e",
             "-v",
             "/ssim/python:/ssim/python:ro",
             "-v",
             "/data:/in:ro",
             "-e",
             "SSDB",
             "-e",
             "RANK",
             "--device",
             "nvidia.com/gpu=all",
             "python:3.11"} +
            program);
  const Argv docker = launch::container_command(container(R::Docker, "python:3.11"), mounts(true), program);
  CHECK(std::find(docker.begin(), docker.end(), "--userns=keep-id") == docker.end());
  CHECK(Argv(docker.end() - 6, docker.end()) == Argv{"--gpus", "all", "python:3.11"} + program);
}

TEST_CASE("container commands: the user's options go last before the image") {
  auto c = container(plan::ContainerRuntime::Apptainer, "/img.sif");
  c.options = {"--writable-tmpfs", "--cleanenv"};
  const Argv argv = launch::container_command(c, mounts(), {"prog"});
  CHECK(Argv(argv.end() - 4, argv.end()) == Argv{"--writable-tmpfs", "--cleanenv", "/img.sif", "prog"});
}

TEST_CASE("container mounts: the experiment directory, ssim's module, symlinked sources, then the user's") {
  plan::Step s;
  s.kind = plan::StepKind::Member;
  s.edit().exe = "python3";
  s.run_dir = "/exp/ens/ens_3";
  auto c = std::make_shared<plan::Container>(container(plan::ContainerRuntime::Apptainer, "/img.sif"));
  c->host_binds = {{"/nonexistent/data", "/nonexistent/data", false}};  // plan::host_binds_of's
  c->binds = {{"/scratch", "/scratch", false}};
  s.edit().container = c;
  s.edit().res.gpus_per_task = 1;
  const auto m = launch::mounts_for(s, "/ssim/python");
  CHECK(m.workdir == "/exp/ens/ens_3");
  CHECK(m.binds == std::vector<plan::Bind>{{"/exp", "/exp", false},
                                           {"/ssim/python", "/ssim/python", true},
                                           {"/nonexistent/data", "/nonexistent/data", false},
                                           {"/scratch", "/scratch", false}});
  CHECK(m.gpus);
  CHECK(m.env.empty());  // apptainer passes the environment in itself
  // What podman and docker must be told by name: ssim's variables and the rank wiring.
  c->runtime = plan::ContainerRuntime::Podman;
  const auto named = launch::mounts_for(s, "/ssim/python").env;
  CHECK(named == launch::passed_names(s));
  for (const char* n : {"SSIM_RUN_DIR", "SSIM_ENTITY", "RANK", "MASTER_ADDR", "CUDA_VISIBLE_DEVICES"})
    CHECK(std::find(named.begin(), named.end(), n) != named.end());
  s.kind = plan::StepKind::Model;
  s.run_dir = "/exp/model";
  CHECK(launch::experiment_dir_of(s) == "/exp");
}
