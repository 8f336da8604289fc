#pragma once
// IBM Spectrum LSF's part of the batch layer: bsub/bjobs/bkill command lines and their
// answers, the job's hosts from LSB_MCPU_HOSTS (or LSB_DJOB_HOSTFILE). On CSM systems
// (Summit, Lassen: jsrun exists) steps are jsrun resource sets, the launch node is not a
// compute node and jobs ask for -nnodes; elsewhere steps start with mpirun.
#include "launchers/batch/scheduler.hpp"

namespace ssim::launchers::lsf {
using namespace ssim::launch;

class LsfScheduler : public Scheduler {
 public:
  explicit LsfScheduler(bool csm) : csm_(csm) {}
  std::string name() const override { return "lsf"; }
  std::string script_extension() const override { return "lsf"; }
  std::string submit_program() const override { return "bsub"; }
  std::optional<Allocation> current_allocation(const Getenv& getenv, const ReadText& read) const override;
  std::string render_script(const BatchJob& job) const override;
  SubmitCommand submit_command(const std::string& script_path) const override;
  std::string job_id_from_submit_output(const CommandResult& r) const override;
  std::vector<std::string> status_command(const std::vector<std::string>& ids) const override;
  std::optional<std::map<std::string, JobStatus>> parse_status_output(
      const CommandResult& r, const std::vector<std::string>& ids) const override;
  std::vector<std::string> cancel_command(const std::vector<std::string>& ids) const override;
  bool cancel_output_ok(const CommandResult& r) const override;
  // Node agents through one mpirun on the job's nodes (docs/launchers.md, "Agents").
  std::optional<std::vector<std::string>> agent_command(const std::string& job_id,
                                                        const std::vector<std::string>& nodes,
                                                        const std::vector<std::string>& program) const override;
  std::string allocation_hint() const override {
    return "run ssim inside an LSF job (bsub -Is bash, or a job script), submit the whole experiment with "
           "ssim run --batch, or give every entity a batch: section";
  }
  RankLauncher default_rank_launcher(const plan::Resources&) const override {
    return csm_ ? RankLauncher::Jsrun : RankLauncher::Mpirun;
  }

 private:
  bool csm_;
};

}  // namespace ssim::launchers::lsf
