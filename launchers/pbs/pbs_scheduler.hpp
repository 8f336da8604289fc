#pragma once
// PBS Pro / OpenPBS's part of the batch layer: qsub/qstat/qdel command lines and their
// answers, PBS_NODEFILE. Steps inside a job start with mpirun on their placed hosts
// (PBS does not track steps; their supervisors do). `allocation:` is refused with the
// alternatives: PBS has no salloc --no-shell to hold nodes for another process.
#include "launchers/batch/scheduler.hpp"

namespace ssim::launchers::pbs {
using namespace ssim::launch;

class PbsScheduler : public Scheduler {
 public:
  std::string name() const override { return "pbs"; }
  std::string script_extension() const override { return "pbs"; }
  std::string submit_program() const override { return "qsub"; }
  std::optional<Allocation> current_allocation(const Getenv& getenv, const ReadText& read) const override;
  std::optional<std::vector<std::string>> allocation_detail_command(const Allocation& a) const override;
  void refine_allocation(Allocation& a, const CommandResult& r) const override;
  std::string job_hostfile_variable() const override { return "PBS_NODEFILE"; }
  std::string render_script(const BatchJob& job) const override;
  SubmitCommand submit_command(const std::string& script_path) const override;
  std::string job_id_from_submit_output(const CommandResult& r) const override;
  std::vector<std::string> status_command(const std::vector<std::string>& ids) const override;
  std::optional<std::map<std::string, JobStatus>> parse_status_output(
      const CommandResult& r, const std::vector<std::string>& ids) const override;
  std::vector<std::string> cancel_command(const std::vector<std::string>& ids) const override;
  bool switch_status_source(const CommandResult& r) override;
  bool cancel_output_ok(const CommandResult& r) const override;
  std::optional<std::vector<std::string>> cpus_per_node_command(const spec::BatchSettings& settings) const override;
  int parse_cpus_per_node(const CommandResult& r) const override;
  // Node agents through one mpirun on the job's nodes (docs/launchers.md, "Agents").
  std::optional<std::vector<std::string>> agent_command(const std::string& job_id,
                                                        const std::vector<std::string>& nodes,
                                                        const std::vector<std::string>& program) const override;
  std::string allocation_hint() const override {
    return "run ssim inside a PBS job (qsub -I, or a job script), submit the whole experiment with "
           "ssim run --batch, or give every entity a batch: section";
  }
  RankLauncher default_rank_launcher(const plan::Resources&) const override { return RankLauncher::Mpirun; }

 private:
  // Job history on (qstat -x lists finished jobs too) until qstat says it is off, the
  // OpenPBS default; then running and queued jobs are asked without -x, and a job's end
  // comes from the status file its supervisor writes.
  bool history_ = true;
};

}  // namespace ssim::launchers::pbs
