#pragma once
// What the engine tells the person watching (ninja's Status idea): the engine reports
// events and counts; the terminal or plain-text implementation decides how to show them.
#include <map>
#include <string>

#include "lib/engine/event.hpp"
#include "lib/state/status.hpp"

namespace ssim::engine {

class Progress {
 public:
  virtual ~Progress() = default;
  // Something happened (event.hpp); to_text(e) is the line a person reads.
  virtual void event(const Event& e) = 0;
  // The current number of entities in each status; called once per engine tick.
  virtual void counts(const std::map<state::Status, int>& counts) = 0;
  // The engine is done; clear any live display.
  virtual void finish() = 0;
};

class SilentProgress : public Progress {
 public:
  void event(const Event&) override {}
  void counts(const std::map<state::Status, int>&) override {}
  void finish() override {}
};

}  // namespace ssim::engine
