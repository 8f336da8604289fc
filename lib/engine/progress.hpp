#pragma once
// What the engine tells the person watching (ninja's Status idea): the engine reports
// events and counts; the terminal or plain-text implementation decides how to show them.
#include <map>
#include <string>
#include <vector>

#include "lib/engine/event.hpp"
#include "lib/state/status.hpp"

namespace ssim::engine {

// Where a run stands: entities by status (the database not counted), and per ensemble
// how many members have ended out of how many.
struct Tally {
  std::map<state::Status, int> counts;
  struct Ensemble {
    std::string name;
    int ended = 0, total = 0;
  };
  std::vector<Ensemble> ensembles;
};

class Progress {
 public:
  virtual ~Progress() = default;
  // Something happened (event.hpp); to_text(e) is the line a person reads.
  virtual void event(const Event& e) = 0;
  // Where the run stands; called once per engine tick.
  virtual void counts(const Tally& tally) = 0;
  // The engine is done; clear any live display.
  virtual void finish() = 0;
};

class SilentProgress : public Progress {
 public:
  void event(const Event&) override {}
  void counts(const Tally&) override {}
  void finish() override {}
};

}  // namespace ssim::engine
