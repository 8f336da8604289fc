#pragma once
// What may start now, as data (ninja's Plan beside its Builder): given the manifest, the
// time and experiment.max_running, one pass says which entities to cancel (and why),
// which to start (their room on the node pool already taken) and which wait with a note.
// No I/O, no launcher: the engine applies the decisions (events, journal, the launcher).
// Rules: `after:` and `after_any:` readiness, cancellation when what it waits for did not
// complete, retry backoff, held entities, max_running, packing on the node pool (CPUs,
// GPUs, nodes; lost nodes leave the pool), and gangs (`gang: true` on an ensemble):
// all members get their room together, or none holds any while they wait.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/launch/node_pool.hpp"
#include "lib/plan/plan.hpp"
#include "lib/state/manifest.hpp"
#include "lib/util/name_table.hpp"

namespace ssim::engine {

struct Pass {
  std::vector<std::pair<size_t, std::string>> cancel;  // manifest index, reason
  std::vector<size_t> start;                           // manifest index; room taken
  std::vector<std::pair<size_t, std::string>> wait;    // manifest index, why it waits (a note)
  bool throttled = false;                              // something ready waits for max_running or room
  bool throttled_by_room = false;                      // ...for CPUs, GPUs or nodes
  bool empty() const { return cancel.empty() && start.empty(); }
};

class Schedule {
 public:
  // The pool packed steps take their room from (empty: the scheduler places steps).
  void set_pool(launch::NodePool pool) { pool_ = std::move(pool); }
  launch::NodePool& pool() { return pool_; }
  const launch::NodePool& pool() const { return pool_; }

  // A step joins: what it takes from the pool when `packs`, and its gang. Returns a note
  // for the log when it asks more than the one machine has (it then runs alone, on all of it).
  std::string add_step(const plan::Step& s, bool packs);
  const plan::Resources* ask(const std::string& name) const;

  // One pass over `m` at `now`; `running` counts the entities started and not ended.
  // `among` (when given): the indexes of the entities that may not have ended, in order;
  // the others cannot start and are not looked at.
  Pass next(const state::Manifest& m, double now, int max_running, int running,
            std::optional<std::span<const size_t>> among = std::nullopt);

  // When `failed` (failed for good) is a gang's member: its mates that have not ended, to
  // be ended with it (they wait for each other by design, so the rest would wait for ever).
  std::vector<std::string> gang_mates_left(const state::Manifest& m, const std::string& failed) const;

  // Gangs whose members together need more than the whole pool, or more than
  // experiment.max_running: they would wait for ever (refused before anything starts).
  std::vector<std::string> gangs_that_never_fit(int max_running = 0) const;

 private:
  bool take_room(const state::Manifest& m, size_t index, std::vector<const plan::Resources*>& refused);
  void index_asks(const state::Manifest& m);

  launch::NodePool pool_;
  // The packed steps by name (read from the step: the plans outlive the run); each asks
  // what its program says, or what alone_asks_ holds for it.
  using Packed = NameTable<const plan::Step*>;
  static std::string_view step_name(const plan::Step* s) { return s->name; }
  Packed packed_;
  std::unordered_map<const plan::Step*, plan::Resources> alone_asks_;  // asks that differ from their step's (run alone)
  std::vector<const plan::Resources*> ask_of_;                         // ask() by manifest index (null: not packed)
  bool only_packed_ = false;                                           // every entity is packed and waits on nothing
  std::map<std::string, std::vector<std::string>> gangs_;              // ensemble -> its members
  std::map<std::string, std::string> gang_of_;                         // member -> its gang
};

}  // namespace ssim::engine
