#include "lib/launch/container_gpu_check.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace ssim;
namespace fs = std::filesystem;

namespace {

struct Image {
  fs::path dir;
  Image() {
    char name[] = "/tmp/ssim-gpu-image-XXXXXX";
    dir = mkdtemp(name);
  }
  ~Image() { fs::remove_all(dir); }
  void add(const std::string& path) {
    const fs::path file = dir / fs::path(path).relative_path();
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "";
  }
};

plan::Step step_in(const std::string& name, std::shared_ptr<const plan::Container> c, int gpus) {
  plan::Step s;
  s.name = name;
  s.edit().container = std::move(c);
  s.edit().res.gpus_per_task = gpus;
  return s;
}

std::shared_ptr<const plan::Container> container(plan::ContainerRuntime runtime, const std::string& image) {
  auto c = std::make_shared<plan::Container>();
  c->runtime = runtime;
  c->image = image;
  c->image_is_path = true;
  c->field = "models[0].container";
  c->image_loc = {4, 17};
  return c;
}

}  // namespace

TEST_CASE("container GPUs: a Charliecloud image without the driver's library is named once, before anything starts") {
  Image image;
  image.add("/usr/bin/python3");
  spec::ExperimentSpec spec;
  spec.file = "e.yaml";
  plan::Plan plan;
  const auto ch = container(plan::ContainerRuntime::Charliecloud, image.dir.string());
  plan.steps = {step_in("train", ch, 1), step_in("train2", ch, 2)};

  auto warnings = launch::container_gpu_warnings(spec, plan);
  REQUIRE(warnings.size() == 1);  // once per image
  CHECK(warnings[0].rfind(
            "e.yaml:4:17: models[0].container.image: warning: the image " + image.dir.string() + " has no libcuda.so.1",
            0) == 0);
  CHECK(warnings[0].find("ch-fromhost --nvidia " + image.dir.string()) != std::string::npos);
  CHECK(warnings[0].find("GPUs ssim gives train:") != std::string::npos);

  SECTION("after ch-fromhost --nvidia, or an NGC image's compat copy: nothing said") {
    for (const char* where : {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/local/lib/libcuda.so.1",
                              "/usr/local/cuda/compat/libcuda.so.1"}) {
      Image with;
      with.add(where);
      plan.steps = {step_in("train", container(plan::ContainerRuntime::Charliecloud, with.dir.string()), 1)};
      CHECK(launch::container_gpu_warnings(spec, plan).empty());
    }
  }
  SECTION("no GPUs asked for, or a runtime that brings the driver itself: nothing said") {
    plan.steps = {step_in("cpu", ch, 0),
                  step_in("apptainer", container(plan::ContainerRuntime::Apptainer, image.dir.string()), 1),
                  step_in("podman", container(plan::ContainerRuntime::Podman, image.dir.string()), 1)};
    CHECK(launch::container_gpu_warnings(spec, plan).empty());
  }
  SECTION("a SquashFS image or a name only its runtime can open: nothing said") {
    plan.steps = {step_in("sqfs", container(plan::ContainerRuntime::Charliecloud, "/nowhere/img.sqfs"), 1)};
    CHECK(launch::container_gpu_warnings(spec, plan).empty());
  }
}
