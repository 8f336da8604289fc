#include "lib/session/start.hpp"

#include <chrono>
#include <thread>

#include "lib/state/control_request.hpp"
#include "lib/state/lock.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

namespace {
// How long the run gets to act (it looks every tick; reading a changed file and making
// run directories for a large ensemble takes longer than a stop).
constexpr std::chrono::seconds kPatience{60};
}  // namespace

state::Manifest start(const std::string& path, const std::vector<std::string>& names) {
  if (names.empty()) throw UsageError("ssim start: name the entities or ensembles to start");
  const auto m = state::load_manifest(path);
  if (!state::RunLock::holder(path))
    throw UsageError("no run tracks " + m.experiment +
                     " now: ssim start asks a running `ssim run --open` (or one "
                     "with held entities); `ssim run " +
                     (m.file.empty() ? path : m.file) + " --resume` reruns what did not complete");
  const auto id = state::post_request(path, state::RequestKind::Start, names);
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (state::request_pending(path, state::RequestKind::Start, id)) {
    if (!state::RunLock::holder(path)) {
      state::acknowledge_request(path, state::RequestKind::Start, id);
      throw UsageError("the run of " + m.experiment + " ended before it acted on ssim start");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      state::acknowledge_request(path, state::RequestKind::Start, id);
      const auto runner = state::RunLock::holder(path);
      throw EnvironmentError("the run of " + m.experiment + (runner ? " on " + runner->host : std::string()) +
                             " did not act on ssim start within " + std::to_string(kPatience.count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // waiting for the runner, bounded
  }
  if (auto refusal = state::take_refusal(path, state::RequestKind::Start, id)) throw UsageError(*refusal);
  return state::load_manifest(path);
}

}  // namespace ssim::session
