#pragma once
// Slurm's part of the batch layer: sbatch/sacct/scancel/salloc command lines and their
// answers. Steps inside an allocation are srun steps that record their own JOB.STEP.
#include "launchers/batch/scheduler.hpp"

namespace ssim::launchers::slurm {
using namespace ssim::launch;

class SlurmScheduler : public Scheduler, public AllocationRequests, public NodeHealth {
 public:
  std::string name() const override { return "slurm"; }
  std::string script_extension() const override { return "sbatch"; }
  std::string submit_program() const override { return "sbatch"; }
  std::optional<Allocation> current_allocation(const Getenv& getenv, const ReadText& read) const override;
  MpirunNodes mpirun_nodes() const override;
  std::string node_variable() const override { return "SLURMD_NODENAME"; }
  std::optional<std::vector<std::string>> agent_command(const std::string& job_id,
                                                        const std::vector<std::string>& nodes,
                                                        const std::vector<std::string>& program) const override;
  std::vector<std::string> agent_node_variables() const override;
  plan::Env agent_task_env() const override;
  std::string render_script(const BatchJob& job) const override;
  SubmitCommand submit_command(const std::string& script_path) const override;
  std::string job_id_from_submit_output(const CommandResult& r) const override;
  std::vector<std::string> status_command(const std::vector<std::string>& ids) const override;
  std::optional<std::map<std::string, JobStatus>> parse_status_output(
      const CommandResult& r, const std::vector<std::string>& ids) const override;
  bool switch_status_source(const CommandResult& r) override;
  std::vector<std::string> cancel_command(const std::vector<std::string>& ids) const override;
  bool cancel_output_ok(const CommandResult& r) const override;
  const AllocationRequests* allocation_requests() const override { return this; }
  const NodeHealth* node_health() const override { return this; }
  std::vector<std::string> allocation_command(const std::string& name, const spec::BatchSettings& settings,
                                              int nodes) const override;
  std::string allocation_id_from_output(const CommandResult& r) const override;
  std::vector<std::string> allocation_hosts_command(const std::string& id) const override;
  Allocation parse_allocation(const std::string& id, const CommandResult& r) const override;
  std::optional<std::vector<std::string>> cpus_per_node_command(const spec::BatchSettings& settings) const override;
  int parse_cpus_per_node(const CommandResult& r) const override;
  std::vector<std::string> node_state_command(const std::vector<std::string>& nodes) const override;
  std::map<std::string, std::string> parse_out_of_use(const CommandResult& r) const override;
  std::string allocation_hint() const override {
    return "run ssim inside salloc or sbatch, give the experiment an allocation: section, or give every "
           "entity a batch: section";
  }
  RankLauncher default_rank_launcher(const plan::Resources&) const override { return RankLauncher::Srun; }
  std::optional<StepIdRecipe> step_id_recipe() const override {
    return StepIdRecipe{"{SLURM_JOB_ID}.{SLURM_STEP_ID}", "SLURM_PROCID"};
  }

  bool accounting_off() const { return accounting_off_; }

 private:
  bool accounting_off_ = false;  // sacct says accounting is disabled: squeue instead
};

}  // namespace ssim::launchers::slurm
