#pragma once
// PBS Pro / OpenPBS's part of the batch layer: qsub/qstat/qdel command lines and their
// answers, PBS_NODEFILE. Steps inside a job start with mpirun on their placed hosts
// (PBS does not track steps; their supervisors do). `allocation:` is refused with the
// alternatives: PBS has no salloc --no-shell to hold nodes for another process.
#include "launchers/batch/scheduler.hpp"

namespace ssim::launchers::pbs {

class PbsScheduler : public Scheduler {
 public:
  std::string name() const override { return "pbs"; }
  std::string script_extension() const override { return "pbs"; }
  std::string submit_program() const override { return "qsub"; }
  std::optional<Allocation> current_allocation(const Getenv& getenv, const ReadText& read) const override;
  std::string render_script(const BatchJob& job) const override;
  SubmitCommand submit_command(const std::string& script_path) const override;
  std::string job_id_from_submit_output(const CommandResult& r) const override;
  std::vector<std::string> status_command(const std::vector<std::string>& ids) const override;
  std::optional<std::map<std::string, JobStatus>> parse_status_output(
      const CommandResult& r, const std::vector<std::string>& ids) const override;
  std::vector<std::string> cancel_command(const std::vector<std::string>& ids) const override;
  bool cancel_output_ok(const CommandResult& r) const override;
  std::string allocation_hint() const override {
    return "run ssim inside a PBS job (qsub -I, or a job script), submit the whole experiment with "
           "ssim run --batch, or give every entity a batch: section";
  }
  RankLauncher default_rank_launcher(const plan::Resources&) const override { return RankLauncher::Mpirun; }
};

}  // namespace ssim::launchers::pbs
