#include "apps/ssim/claim.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "launchers/registry.hpp"
#include "lib/engine/refresh.hpp"
#include "lib/util/errors.hpp"

namespace ssim::app {

namespace fs = std::filesystem;

state::RunLock claim_experiment(const plan::Plan& plan, generate::Existing mode, const std::string& role) {
  const fs::path root = plan.path;
  std::error_code ec;
  if (!fs::exists(root / ".ssim", ec)) {
    generate::check_target(plan, generate::Existing::Refuse);
    fs::create_directories(root, ec);
    if (ec) throw EnvironmentError("cannot create " + root.string() + ": " + ec.message());
    if (::mkdir((root / ".ssim").c_str(), 0755) != 0) {
      if (errno == EEXIST) throw UsageError("experiment " + plan.path + " is being created by another ssim run");
      throw EnvironmentError("cannot create " + (root / ".ssim").string() + ": " + std::strerror(errno));
    }
    auto lock = state::RunLock::try_acquire(plan.path, role);
    if (!lock) throw EnvironmentError("cannot lock " + plan.path + "/.ssim/lock");
    return std::move(*lock);
  }
  if (mode == generate::Existing::Refuse) state::refuse_if_running(plan.path);
  generate::check_target(plan, mode);  // before the lock file is created in someone else's folder
  auto lock = state::RunLock::try_acquire(plan.path, role);
  if (!lock) state::refuse_if_running(plan.path);
  if (!lock) throw EnvironmentError("cannot lock " + plan.path + "/.ssim/lock");
  return std::move(*lock);
}

namespace {
void undo_claim(const plan::Plan& plan) {
  std::error_code ec;
  fs::remove_all(fs::path(plan.path) / ".ssim", ec);
  for (const auto& s : plan.steps) fs::remove_all(s.run_dir, ec);
  if (plan.database) fs::remove_all(plan.database->run_dir, ec);
  for (const auto& s : plan.steps)
    if (!s.ensemble.empty()) fs::remove(fs::path(s.run_dir).parent_path(), ec);  // only when empty
  fs::remove(plan.path, ec);  // only when empty
}
}  // namespace

generate::GenerateResult generate_claimed(const plan::Plan& plan, generate::Existing mode) {
  try {
    return generate::generate(plan, mode);
  } catch (...) {
    if (mode == generate::Existing::Refuse) undo_claim(plan);
    throw;
  }
}

void refuse_if_still_alive(state::Manifest& previous) {
  auto launcher = launchers::make_launcher(previous.launcher);
  engine::refresh(previous, *launcher);
  for (const auto& e : previous.entities) {
    if (e.job_id.empty() || state::is_terminal(e.status) || e.type == "batch") continue;
    if (e.status != state::Status::Running && e.status != state::Status::Pending) continue;
    throw UsageError("cannot resume " + previous.path + ": " + e.name + " from the earlier run is still " +
                     to_string(e.status) + " (job " + e.job_id + (e.pid ? ", pid " + std::to_string(e.pid) : "") +
                     "); wait for it to end, or end it with: ssim stop " + previous.path);
  }
}

}  // namespace ssim::app
