#pragma once
#include "launchers/launcher.hpp"
#include "launchers/mpi_command.hpp"

namespace ssim::launchers {

// Runs each job on this machine under ssim-supervise, which leads the job's process
// group and writes <run_dir>/.ssim-status.json when the program starts and ends. Status
// is read from those files, so it needs no live ssim process.
class LocalLauncher : public Launcher {
 public:
  explicit LocalLauncher(std::string supervisor = default_supervisor());
  std::string name() const override { return "local"; }
  std::vector<std::string> command(const plan::Step& step) const override;
  JobRef start(const LaunchRequest& request) override;
  std::vector<JobStatus> poll(std::span<const JobRef> jobs) override;
  void cancel(std::span<const JobRef> jobs, bool force) override;

  // ssim-supervise beside the running ssim binary, or $SSIM_SUPERVISE.
  static std::string default_supervisor();

 private:
  std::string supervisor_;
  HostFacts host_;
};

// Files the supervisor and `cancel` leave in a run directory.
std::string status_file(const std::string& run_dir);
std::string cancel_marker(const std::string& run_dir);

}  // namespace ssim::launchers
