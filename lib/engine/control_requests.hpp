#pragma once
// `ssim stop` and `ssim start` as the run sees them (the requests themselves:
// state/control_request.hpp). The requests' folders are read at most every 50 ms, which is
// all the askers wait for (a look per tick was a twentieth of a large ensemble's engine);
// the names `ssim stop` named are kept, never retried until `ssim start` names them; and
// what `ssim start NAMES` does to each entity is decided here, as data, for the engine to
// apply.
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/state/control_request.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/clock.hpp"

namespace ssim::engine {

// What `ssim start NAMES` does: held entities start (`release`), ended ones run again as a
// new attempt (`again`); running ones, and ones about to, are left as they are. Nothing is
// done when `refusal` says why (a name no entity has, the database).
struct StartDecision {
  std::string refusal;
  bool unknown_names = false;  // refused for names no entity has: the file read again may know them
  std::vector<size_t> release;
  std::vector<size_t> again;
};

class ControlRequests {
 public:
  ControlRequests(std::string experiment_path, const Clock& clock) : path_(std::move(experiment_path)), clock_(clock) {}

  // Whether to read the requests now.
  bool due();
  std::vector<state::ControlRequest> pending(state::RequestKind kind) const;
  void acknowledge(state::RequestKind kind, const std::string& id, const std::string& refusal = "") const;

  // Entities or ensembles `ssim stop` named: never retried, even when the attempt the stop
  // met ended on its own (failed) a moment before the signal.
  void stopped(const std::vector<std::string>& names) { stopped_.insert(names.begin(), names.end()); }
  bool was_stopped(const state::EntityRecord& r) const {
    return stopped_.count(r.name) || (!r.ensemble.empty() && stopped_.count(r.ensemble));
  }

  // `ssim start NAMES` on `m` (its file read again already when a name was unknown;
  // `file`, where it was read from, for the refusal, "" when it cannot be). The entities it
  // starts are no longer stopped.
  StartDecision start(const std::vector<std::string>& names, const state::Manifest& m, const std::string& file);

 private:
  std::string path_;
  const Clock& clock_;
  std::optional<std::chrono::steady_clock::time_point> last_look_;
  std::set<std::string> stopped_;
};

}  // namespace ssim::engine
