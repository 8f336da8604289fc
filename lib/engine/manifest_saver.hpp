#pragma once
// When the run writes its manifest. Each start is on disk at once anyway (the start
// journal) and the status files hold each end, so a reader from another shell is exact
// whatever the manifest's age: while entities come and go it is saved at most every
// second, spending at most a thirtieth of the time on it (the manifest of 100,000 members
// takes half a second to write; at a tenth, saving was the engine's largest cost in a
// large ensemble). A manifest that cannot be written (full disk, quota) is reported once
// and the run goes on from memory: losing the record must not lose the outcomes.
#include <chrono>

#include "lib/engine/run_context.hpp"

namespace ssim::engine {

class ManifestSaver {
 public:
  void save(RunContext& run);
  void save_soon(RunContext& run);  // marks it changed; saves when the pace allows

 private:
  bool failed_ = false;
  std::chrono::steady_clock::duration cost_{};  // how long the last save took
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace ssim::engine
