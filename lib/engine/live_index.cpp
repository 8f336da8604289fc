#include "lib/engine/live_index.hpp"

#include <algorithm>

namespace ssim::engine {

using state::Status;

void LiveIndex::update(const state::Manifest& m) {
  if (stale_ || made_of_ != m.entities.size()) {
    started_.clear();
    waiting_.clear();
    front_ = 0;
    for (size_t i = 0; i < m.entities.size(); ++i) {
      const auto& e = m.entities[i];
      if (e.status == Status::New)
        waiting_.push_back(i);
      else if (!ended_for_good_(e))
        started_.push_back(i);
    }
    made_of_ = m.entities.size();
    stale_ = false;
    return;
  }
  // A retried entity is New again: a candidate in waiting_, no longer in started_.
  std::erase_if(started_, [&](size_t i) {
    const auto& e = m.entities[i];
    return e.status == Status::New || ended_for_good_(e);
  });
  // Members start in order, so those that started are passed over from the front, and
  // erased once they are half the list (erasing them at every tick moved a million
  // entries a tick). One held back at the front (after:, --only) would keep the rest in:
  // once as many have started as half the list, the whole list is swept (a sweep per that
  // many starts: still O(1) each).
  while (front_ < waiting_.size() && m.entities[waiting_[front_]].status != Status::New) ++front_;
  const bool sweep = left_waiting_ * 2 > waiting_.size() - front_;
  if (front_ * 2 > waiting_.size() || sweep) {  // (passed over, an entry retried since is listed again after)
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(front_));
    front_ = 0;
  }
  if (sweep) {
    std::erase_if(waiting_, [&](size_t i) { return m.entities[i].status != Status::New; });
    left_waiting_ = 0;
  }
}

void LiveIndex::started_now(size_t i) {
  started_.push_back(i);
  ++left_waiting_;
}

void LiveIndex::new_again(size_t i) {
  // waiting_ is in order; it may still hold i if it started out of order.
  const auto from = waiting_.begin() + static_cast<std::ptrdiff_t>(front_);
  if (const auto at = std::lower_bound(from, waiting_.end(), i); at == waiting_.end() || *at != i)
    waiting_.insert(at, i);
}

}  // namespace ssim::engine
