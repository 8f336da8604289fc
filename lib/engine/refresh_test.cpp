#include "lib/engine/refresh.hpp"

#include <catch2/catch.hpp>

#include "tests/unit/fake_launcher.hpp"

using namespace ssim;
using state::Status;

namespace {
// Every job's supervisor is gone and no end was written: an end concluded, not read.
class LostSupervisors : public test::FakeLauncher {
 public:
  using FakeLauncher::FakeLauncher;
  std::vector<launch::JobStatus> poll(std::span<const launch::JobRef> refs) override {
    std::vector<launch::JobStatus> out(refs.size());
    for (auto& s : out) {
      s.status = Status::Failed;
      s.reason = "its supervisor was killed and the exit status is lost";
      s.judged = true;
    }
    return out;
  }
};
}  // namespace

TEST_CASE("refresh: an end concluded from a missing record is the run's to take, not a reader's") {
  test::FakeClock clock;
  LostSupervisors launcher(clock);
  state::Manifest m;
  state::EntityRecord e;
  e.name = "m_7";
  e.job_id = "supervisor:4242:99:here";
  e.status = Status::Running;
  m.entities.push_back(e);
  CHECK_FALSE(engine::refresh(m, launcher, {}, nullptr, /*judge=*/false));  // a reader beside a live run
  CHECK(m.entities[0].status == Status::Running);
  CHECK(engine::refresh(m, launcher));  // the run itself, or a reader when no run is left
  CHECK(m.entities[0].status == Status::Failed);
}
