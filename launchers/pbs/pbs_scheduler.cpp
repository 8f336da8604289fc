#include "launchers/pbs/pbs_scheduler.hpp"

#include "launchers/batch/output_lines.hpp"
#include "launchers/pbs/pbs_script.hpp"
#include "launchers/pbs/qstat_json.hpp"

namespace ssim::launchers::pbs {

std::optional<Allocation> PbsScheduler::current_allocation(const Getenv& getenv, const ReadText& read) const {
  const char* id = getenv("PBS_JOBID");
  if (!id || !*id) return std::nullopt;
  const char* nodefile = getenv("PBS_NODEFILE");
  const auto text = nodefile && *nodefile ? read(nodefile) : std::nullopt;
  return allocation_from_host_lines(id, text.value_or(""));
}

std::string PbsScheduler::render_script(const BatchJob& job) const { return pbs_script(job); }

SubmitCommand PbsScheduler::submit_command(const std::string& script_path) const {
  // -f: no background qsub daemon (it would keep ssim's inherited descriptors open).
  return {{"qsub", "-f", script_path}, ""};
}

std::string PbsScheduler::job_id_from_submit_output(const CommandResult& r) const {
  if (r.exit_code != 0) return "";
  return first_line(r.out);  // "<seq>.<server>", kept whole
}

std::vector<std::string> PbsScheduler::status_command(const std::vector<std::string>& ids) const {
  // With several ids, OpenPBS's -F json prints only the first job (openpbs#2672, seen on
  // 23.06.06): ask for every job and keep ours, still one call.
  if (ids.size() == 1) return {"qstat", "-x", "-f", "-F", "json", ids[0]};
  return {"qstat", "-x", "-f", "-F", "json"};
}

std::optional<std::map<std::string, JobStatus>> PbsScheduler::parse_status_output(
    const CommandResult& r, const std::vector<std::string>& ids) const {
  return parse_qstat_json(r.out, r.err, ids);
}

std::vector<std::string> PbsScheduler::cancel_command(const std::vector<std::string>& ids) const {
  std::vector<std::string> argv = {"qdel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  return argv;
}

bool PbsScheduler::cancel_output_ok(const CommandResult& r) const {
  return r.exit_code == 0 || (r.exit_code > 0 && every_line_matches(r.err, {"Job has finished", "Unknown Job Id"}));
}

}  // namespace ssim::launchers::pbs
