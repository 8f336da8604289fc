#pragma once
// What the loops of every tick walk, by index, so that a tick costs what runs, not every
// entity (100,000 members: issue 43): the entities started and not ended for good
// (running, or failed with retries left), and those not started yet, in order (the
// schedule's candidates; entries that started meanwhile are passed over from the front,
// and skipped by every reader).
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::engine {

class LiveIndex {
 public:
  // Whether an entity ended and nothing in this run starts it again by itself.
  using EndedForGood = std::function<bool(const state::EntityRecord&)>;
  explicit LiveIndex(EndedForGood ended_for_good) : ended_for_good_(std::move(ended_for_good)) {}

  bool ended_for_good(const state::EntityRecord& r) const { return ended_for_good_(r); }
  // At the top of each tick: what ended for good leaves, what started leaves the waiting.
  void update(const state::Manifest& m);
  const std::vector<size_t>& started() const { return started_; }
  std::span<const size_t> waiting() const { return std::span<const size_t>(waiting_).subspan(front_); }
  // Entity `i` started now: polled from now on.
  void started_now(size_t i);
  // Entity `i` is new again (a retry): a candidate again, in order.
  void new_again(size_t i);
  // An entity that had ended runs again (ssim start): the lists are made anew.
  void make_anew() { stale_ = true; }

 private:
  EndedForGood ended_for_good_;
  std::vector<size_t> started_;
  std::vector<size_t> waiting_;
  size_t front_ = 0;         // waiting_'s entries before it have started (erased once they are half of it)
  size_t left_waiting_ = 0;  // started since waiting_ was last swept whole
  size_t made_of_ = 0;       // how many entities there were when the lists were made
  bool stale_ = true;
};

}  // namespace ssim::engine
