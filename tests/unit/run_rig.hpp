#pragma once
// A RunContext (lib/engine/run_context.hpp) for a phase's unit test: a manifest and
// steps the test fills, a fake clock, a silent log, and what the phase said and which
// entities' jobs it stopped, recorded. No launcher.
#include <spdlog/sinks/null_sink.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/engine/run_context.hpp"
#include "tests/unit/fake_launcher.hpp"

namespace ssim::test {

struct RunRig {
  state::Manifest m;
  engine::StepsByName steps;
  FakeClock clock;
  spdlog::logger log{"test", std::make_shared<spdlog::sinks::null_sink_mt>()};
  std::vector<engine::Event> said;
  std::vector<std::string> stopped;
  engine::RunContext run{m,
                         steps,
                         clock,
                         log,
                         [this](const engine::Event& e) { said.push_back(e); },
                         [this](const state::EntityRecord& e) { stopped.push_back(e.name); }};

  RunRig() = default;
  RunRig(const RunRig&) = delete;  // `run` refers to the fields above
  RunRig& operator=(const RunRig&) = delete;
};

}  // namespace ssim::test
