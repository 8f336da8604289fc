#pragma once
// What a launcher with a batch scheduler does while a run goes, and the local launcher
// does not: it asks the scheduler (counted; beside the engine, never in its way), says
// which nodes are out of use, reports its retries and notes to the run's log, and lets
// go of its node agents at the end. A role of its own, as JobAllocation and
// BatchSubmission are (Launcher::scheduling).
#include <functional>
#include <map>
#include <string>

namespace ssim::launch {

class BatchScheduling {
 public:
  using Report = std::function<void(const std::string&)>;
  virtual ~BatchScheduling() = default;
  // Where to report scheduler command failures and retries (the engine's log), and
  // what it did of note that is no problem (node agents started).
  virtual void set_log(Report log) = 0;
  virtual void set_notes(Report notes) = 0;
  // Scheduler commands issued by Launcher::poll so far.
  virtual int scheduler_queries() const = 0;
  // Nodes out of use now, each with why, said after "node N is": "lost (its ssim agent
  // ...)", or taken out by the scheduler ("drained by slurm (REASON)"). The engine places
  // nothing more there until a node leaves this list (resumed); what runs there is judged
  // by poll() as usual (a drained node's jobs run on).
  virtual std::map<std::string, std::string> lost_nodes() const = 0;
  // Scheduler queries beside the caller (the engine of a run: a slow scheduler never
  // holds up launching; the last answer stands meanwhile) rather than in line (the
  // default: a one-shot reader such as ssim status waits for the answer it reports).
  virtual void set_queries_in_background(bool background) = 0;
  // The run has ended (every job with it): lets go of what the launcher started for
  // itself (node agents). Only the process that ran the jobs calls it.
  virtual void finish() = 0;
};

}  // namespace ssim::launch
