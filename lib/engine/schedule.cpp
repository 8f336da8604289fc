#include "lib/engine/schedule.hpp"

#include <algorithm>
#include <climits>
#include <set>

namespace ssim::engine {

using state::Status;

namespace {

// One task of one CPU and no device: when that does not fit, no packed step does.
bool is_smallest(const plan::Resources& r) {
  return r.ntasks <= 1 && r.cpus_per_task <= 1 && r.gpus_per_task == 0 && r.node_cpus == 0 && r.nodes <= 1;
}

// "waiting for 2 CPUs; 1 free", "waiting for 2 CPUs and 1 GPU; 3 CPUs and 0 GPUs free".
std::string waiting_note(const plan::Resources& r, const launch::NodePool& pool) {
  const int tasks = std::max(1, r.ntasks);
  const int cpus = tasks * launch::cpus_per_task(r) + r.node_cpus, gpus = tasks * r.gpus_per_task;
  auto n = [](int k, const char* what) { return std::to_string(k) + " " + what + (k == 1 ? "" : "s"); };
  if (gpus == 0) return "waiting for " + n(cpus, "CPU") + "; " + std::to_string(pool.free_cpus()) + " free";
  return "waiting for " + n(cpus, "CPU") + " and " + n(gpus, "GPU") + "; " + n(pool.free_cpus(), "CPU") + " and " +
         n(pool.free_gpus(), "GPU") + " free";
}

// The pool's holder name for what a waiting entity keeps of the free room during a pass.
std::string hold_of(const std::string& name) { return "\x01hold:" + name; }

bool same_ask(const plan::Resources& a, const plan::Resources& b) {
  return a.ntasks == b.ntasks && a.cpus_per_task == b.cpus_per_task && a.gpus_per_task == b.gpus_per_task &&
         a.tasks_per_node == b.tasks_per_node && a.nodes == b.nodes && a.node_cpus == b.node_cpus;
}

// Whether `r` may start as far as what it waits for goes; `blocked_by` names what it
// waited for that ended otherwise than completed (it is then cancelled).
bool ready(const state::Manifest& m, const state::EntityRecord& r, std::string& blocked_by) {
  bool ok = true;
  for (const auto& a : r.extra().after) {
    const auto* dep = m.find(a);
    if (!dep) continue;
    if (dep->status == Status::Completed && dep->exit_code == 0) continue;
    ok = false;
    if (state::is_terminal(dep->status)) blocked_by = a + " " + to_string(dep->status);
  }
  for (const auto& a : r.extra().after_any) {  // run regardless: only that they have ended
    const auto* dep = m.find(a);
    if (dep && !state::is_terminal(dep->status)) ok = false;
  }
  return ok;
}

}  // namespace

std::string Schedule::add_step(const plan::Step& s, bool packs) {
  if (s.program->gang && !s.ensemble.empty() && !gang_of_.count(s.name)) {
    gangs_[s.ensemble].push_back(s.name);
    gang_of_[s.name] = s.ensemble;
  }
  const plan::Step* known = nullptr;
  if (pool_.empty() || !packs || packed_.find(s.name, step_name, known) == Packed::Found::Yes) return "";
  ask_of_.clear();  // the manifest's index is made again
  // Most ask what the step says (pointed at, not copied: 100,000 members).
  packed_.insert(s.name, &s, step_name);
  if (pool_.nodes().size() != 1 || pool_.never_fits(s.program->res).empty()) return "";
  // Bigger than the whole machine (the local launcher; an allocation refuses it before
  // anything starts): it runs alone, on all of it.
  plan::Resources ask = s.program->res;
  ask.gpus_per_task *= std::max(1, ask.ntasks);
  ask.ntasks = 1, ask.tasks_per_node = 0, ask.nodes = 0, ask.node_cpus = 0;
  ask.cpus_per_task = std::max(1, pool_.nodes()[0].cpus);
  alone_asks_[&s] = ask;
  return s.name + " asks for more CPUs than the " + std::to_string(pool_.nodes()[0].cpus) + " here: it runs alone";
}

const plan::Resources* Schedule::ask(const std::string& name) const {
  const plan::Step* s = nullptr;
  if (packed_.find(name, step_name, s) != Packed::Found::Yes) return nullptr;
  const auto alone = alone_asks_.find(s);
  return alone == alone_asks_.end() ? &s->program->res : &alone->second;
}

// What each entity asks, by its place in the manifest: no lookup by name per entity and
// pass (100,000 members wait at once).
void Schedule::index_asks(const state::Manifest& m) {
  if (ask_of_.size() == m.entities.size()) return;
  ask_of_.clear();
  only_packed_ = gangs_.empty();
  for (const auto& e : m.entities) {
    ask_of_.push_back(ask(e.name));
    if (!is_database(e) && !is_outer_batch(e))
      only_packed_ = only_packed_ && ask_of_.back() && e.extra().after.empty() && e.extra().after_any.empty();
  }
}

// `refused`: asks that did not fit in this pass; one of the same size does not either,
// so a full pool costs one try per kind of member, not one per waiting member.
bool Schedule::take_room(const state::Manifest& m, size_t index, std::vector<const plan::Resources*>& refused) {
  const plan::Resources* asked = ask_of_[index];
  if (!asked) return true;
  for (const auto* no : refused)
    if (same_ask(*no, *asked)) return false;
  if (pool_.take(m.entities[index].name, *asked)) return true;
  refused.push_back(asked);
  return false;
}

Pass Schedule::next(const state::Manifest& m, double now, int max_running, int running,
                    std::optional<std::span<const size_t>> among) {
  index_asks(m);
  Pass pass;
  const int room = max_running > 0 ? max_running : INT_MAX;
  std::vector<const plan::Resources*> refused;  // asks the pool said no to in this pass
  // What entities that wait for room keep of the free room, for this pass: an entity that
  // needs several CPUs is not passed by a sweep of one-CPU members listed after it.
  std::vector<std::string> holds;
  std::set<std::string> gangs_seen;
  std::map<std::string, size_t> index_of;  // for gangs only
  auto started = [&] { return running + static_cast<int>(pass.start.size()); };
  const size_t count = among ? among->size() : m.entities.size();
  for (size_t at = 0; at < count; ++at) {
    const size_t i = among ? (*among)[at] : at;
    const auto& r = m.entities[i];
    if (r.status != Status::New || r.held || is_database(r) || is_outer_batch(r)) continue;
    if (r.retry_at > now) continue;  // a retry waiting out its backoff
    std::string blocked_by;
    const bool is_ready = ready(m, r, blocked_by);
    if (!blocked_by.empty()) {
      pass.cancel.emplace_back(i, "not started: after " + blocked_by);
      continue;
    }
    if (!is_ready) continue;
    if (const auto g = gang_of_.find(r.name); g != gang_of_.end()) {
      if (!gangs_seen.insert(g->second).second) continue;
      // The gang's members not started yet, all at once or none.
      if (index_of.empty())
        for (size_t k = 0; k < m.entities.size(); ++k) index_of[m.entities[k].name] = k;
      std::vector<size_t> members;
      bool all_ready = true;
      for (const auto& name : gangs_.at(g->second)) {
        const auto it = index_of.find(name);
        if (it == index_of.end() || m.entities[it->second].status != Status::New) continue;
        const auto& e = m.entities[it->second];
        std::string blocked;
        all_ready = all_ready && !e.held && e.retry_at <= now && ready(m, e, blocked) && blocked.empty();
        members.push_back(it->second);
      }
      const std::string of = std::to_string(members.size()) + " members of " + g->second;
      std::string why;
      if (!all_ready)
        why = "waiting to start together with the other " + of;
      else if (started() + static_cast<int>(members.size()) > room)
        why = "waiting to start together: the " + of + " need " + std::to_string(members.size()) +
              " of experiment.max_running's " + std::to_string(room) + " slots at once";
      std::vector<size_t> taken;
      for (size_t k = 0; why.empty() && k < members.size(); ++k) {
        const plan::Resources* asked = ask_of_[members[k]];
        if (!asked || pool_.take(m.entities[members[k]].name, *asked))
          taken.push_back(members[k]);
        else
          why = "waiting for room for all " + of + " to start together (gang: true)";
      }
      if (why.empty()) {
        pass.start.insert(pass.start.end(), members.begin(), members.end());
        continue;
      }
      for (size_t k : taken) pool_.release(m.entities[k].name);  // none holds room while they wait
      if (why.rfind("waiting for room", 0) == 0)                 // ...but later members do not take it meanwhile
        for (size_t k : members)
          if (const plan::Resources* asked = ask_of_[k]) {
            holds.push_back(hold_of(m.entities[k].name));
            pool_.hold_free(holds.back(), *asked);
          }
      pass.throttled = true;
      pass.throttled_by_room = pass.throttled_by_room || why.rfind("waiting for room", 0) == 0;
      for (size_t k : members) pass.wait.emplace_back(k, why);
      continue;
    }
    if (started() >= room) {
      pass.throttled = true;  // waits for a free slot
      continue;
    }
    const size_t refused_before = refused.size();
    if (!take_room(m, i, refused)) {
      pass.throttled = pass.throttled_by_room = true;  // waits for CPUs or GPUs
      if (refused.size() > refused_before) {           // the first of its kind to wait: says why, keeps the room
        pass.wait.emplace_back(i, waiting_note(*refused.back(), pool_));
        holds.push_back(hold_of(r.name));
        pool_.hold_free(holds.back(), *refused.back());
      }
      // Not even one CPU is free, and every entity is a packed one that waits on
      // nothing: nothing further can start or be cancelled in this pass.
      if (only_packed_ && is_smallest(*refused.back())) break;
      continue;
    }
    pass.start.push_back(i);
  }
  for (const auto& h : holds) pool_.release(h);
  return pass;
}

std::vector<std::string> Schedule::gang_mates_left(const state::Manifest& m, const std::string& failed) const {
  std::vector<std::string> left;
  const auto g = gang_of_.find(failed);
  if (g == gang_of_.end()) return left;
  for (const auto& name : gangs_.at(g->second))
    if (const auto* r = m.find(name); r && name != failed && !state::is_terminal(r->status)) left.push_back(name);
  return left;
}

std::vector<std::string> Schedule::gangs_that_never_fit(int max_running) const {
  std::vector<std::string> out;
  for (const auto& [gang, members] : gangs_) {
    if (max_running > 0 && static_cast<int>(members.size()) > max_running) {
      out.push_back("ensemble " + gang + " has gang: true, so its " + std::to_string(members.size()) +
                    " members start together, but experiment.max_running is " + std::to_string(max_running) +
                    ": raise it, or ask for fewer members");
      continue;
    }
    if (pool_.empty()) continue;
    launch::NodePool trial = pool_;
    int cpus = 0, gpus = 0;
    bool fits = true;
    for (const auto& name : members) {
      const plan::Resources* a = ask(name);
      if (!a) continue;
      cpus += std::max(1, a->ntasks) * std::max(1, a->cpus_per_task);
      gpus += std::max(1, a->ntasks) * a->gpus_per_task;
      fits = fits && trial.take(name, *a);
    }
    if (fits) continue;
    int have_cpus = 0, have_gpus = 0;
    for (const auto& n : pool_.nodes()) {
      have_cpus += n.cpus;
      have_gpus += n.gpus ? static_cast<int>(n.gpus->size()) : 0;
    }
    std::string need = std::to_string(cpus) + " CPUs" + (gpus ? " and " + std::to_string(gpus) + " GPUs" : "");
    out.push_back("ensemble " + gang + " has gang: true, so its " + std::to_string(members.size()) +
                  " members start together, but together they need " + need + " and there are " +
                  std::to_string(have_cpus) + " CPUs" + (gpus ? " and " + std::to_string(have_gpus) + " GPUs" : "") +
                  " to pack them on: ask for fewer (replicas, run.ntasks, run.cpus_per_task), more nodes, "
                  "or experiment.oversubscribe: true (local)");
  }
  return out;
}

}  // namespace ssim::engine
