#include "lib/engine/control_requests.hpp"

#include <algorithm>

#include "lib/util/split.hpp"

namespace ssim::engine {

using state::Status;

bool ControlRequests::due() {
  const auto now = clock_.steady();
  if (last_look_ && now - *last_look_ < std::chrono::milliseconds(50)) return false;
  last_look_ = now;
  return true;
}

std::vector<state::ControlRequest> ControlRequests::pending(state::RequestKind kind) const {
  return state::pending_requests(path_, kind);
}

void ControlRequests::acknowledge(state::RequestKind kind, const std::string& id, const std::string& refusal) const {
  state::acknowledge_request(path_, kind, id, refusal);
}

StartDecision ControlRequests::start(const std::vector<std::string>& names, const state::Manifest& m,
                                     const std::string& file) {
  StartDecision d;
  std::vector<std::string> unknown;
  for (const auto& n : names)
    if (std::none_of(m.entities.begin(), m.entities.end(), [&](const auto& e) { return state::selects(n, e); }))
      unknown.push_back(n);
  if (!unknown.empty()) {
    d.unknown_names = true;
    d.refusal = "no entity " + join(unknown, ", ") + " in experiment " + m.experiment +
                (file.empty() ? "" : " (nor in " + file + ")");
    return d;
  }
  for (const auto& n : names)
    if (const auto* e = m.find(n); e && e->type == state::EntityKind::Database) {
      d.refusal = n + " is the database: it starts with the run";
      return d;
    }
  auto named = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  for (size_t i = 0; i < m.entities.size(); ++i) {
    const auto& e = m.entities[i];
    if (e.type == state::EntityKind::Database || e.type == state::EntityKind::Batch) continue;
    if (!named(e.name) && (e.ensemble.empty() || !named(e.ensemble))) continue;
    stopped_.erase(e.name);
    stopped_.erase(e.ensemble);
    if (e.held)
      d.release.push_back(i);
    else if (state::is_terminal(e.status))
      d.again.push_back(i);
  }
  return d;
}

}  // namespace ssim::engine
