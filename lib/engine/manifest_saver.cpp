#include "lib/engine/manifest_saver.hpp"

#include "lib/state/start_journal.hpp"

namespace ssim::engine {

void ManifestSaver::save(RunContext& run) {
  const auto began = run.clock.steady();
  try {
    state::save_manifest(run.m);
    last_ = run.clock.steady();
    cost_ = last_ - began;
    run.dirty = false;
    state::clear_starts(run.m.path);  // the manifest holds them now
    if (failed_) run.log.info("the manifest can be written again");
    failed_ = false;
  } catch (const std::exception& e) {
    if (!failed_) {
      run.log.error("cannot save the manifest: {}", e.what());
      run.emit(
          text_event(EventKind::Error, std::string("cannot save the manifest (") + e.what() + "); the run goes on"));
    }
    failed_ = true;
  }
}

void ManifestSaver::save_soon(RunContext& run) {
  run.dirty = true;
  const auto interval = std::max<std::chrono::steady_clock::duration>(std::chrono::seconds(1), cost_ * 30);
  if (run.clock.steady() - last_ >= interval) save(run);
}

}  // namespace ssim::engine
