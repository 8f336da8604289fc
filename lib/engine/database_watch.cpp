#include "lib/engine/database_watch.hpp"

#include "lib/engine/refresh.hpp"

namespace ssim::engine {

using state::Status;

namespace {
bool is_shard(const state::EntityRecord& r) { return r.type == state::EntityKind::Database; }
}  // namespace

DatabaseWatch::Findings DatabaseWatch::look(const plan::Database& spec, const std::string& password,
                                            const state::Manifest& m) {
  Findings out;
  if (spec.external()) {
    look_external(spec, password, out);
    return out;
  }
  if (clock_.steady() >= next_sample_) out.samples = sample(password, m);
  if (!lost_reported_) look_at_shards(password, m, out);
  return out;
}

std::vector<nlohmann::json> DatabaseWatch::sample(const std::string& password, const state::Manifest& m) {
  std::vector<nlohmann::json> samples;
  for (const auto& r : m.entities)
    if (is_shard(r) && r.status == Status::Running)
      if (auto s = db_.sample(r.name, r.run_dir, password, std::chrono::milliseconds(500)))
        samples.push_back(std::move(*s));
  next_sample_ = clock_.steady() + std::chrono::seconds(5);
  return samples;
}

// Not ssim's to restart, but its loss is said as a local one's is, once, and again when
// it answers; the run then ends with exit code 3 (the environment failed).
void DatabaseWatch::look_external(const plan::Database& spec, const std::string& password, Findings& out) {
  if (clock_.steady() < next_ping_) return;
  next_ping_ = clock_.steady() + std::chrono::seconds(2);
  std::string why;
  try {
    db_.check_external(spec.address, password, std::chrono::milliseconds(1000));
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty() && !silent_) {
    external_lost_ = true;
    out.said.push_back(text_event(EventKind::Error, "the external database at " + spec.address +
                                                        " (orchestrator.address) does not answer any more; "
                                                        "entities that use it will fail or wait (" +
                                                        why + ")"));
  } else if (why.empty() && silent_) {
    out.said.push_back(text_event(EventKind::Info, "the external database at " + spec.address + " answers again"));
  }
  silent_ = !why.empty();
}

// A shard alive but not answering (SIGSTOP, swapped out, hung) is said within a few
// seconds, and again when it answers; a shard that ended, once.
void DatabaseWatch::look_at_shards(const std::string& password, const state::Manifest& m, Findings& out) {
  if (clock_.steady() >= next_ping_) {
    next_ping_ = clock_.steady() + std::chrono::seconds(2);
    std::string silent;
    for (const auto& r : m.entities)
      if (is_shard(r) && r.status == Status::Running && !db_.ping(r.run_dir, password, std::chrono::milliseconds(500)))
        silent += (silent.empty() ? "" : ", ") + r.name;
    if (!silent.empty() && !silent_)
      out.said.push_back(text_event(EventKind::Error, "database " + silent +
                                                          " does not answer (stopped or hung?); entities that use "
                                                          "it will wait"));
    else if (silent.empty() && silent_)
      out.said.push_back(text_event(EventKind::Info, "database answers again"));
    silent_ = !silent.empty();
  }
  for (const auto& r : m.entities) {
    if (!is_shard(r) || !state::is_terminal(r.status)) continue;
    lost_reported_ = true;
    out.said.push_back(text_event(EventKind::Error, "database " + r.name + " ended while entities run (" + describe(r) +
                                                        "); entities that use it will fail or wait"));
  }
}

}  // namespace ssim::engine
