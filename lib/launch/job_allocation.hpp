#pragma once
// The allocation a launcher's steps run in: a scheduler job, either the one ssim runs
// inside or one ssim requested for `allocation:` (and releases). A role of its own, as
// batch submission is: the local launcher has none.
#include <optional>
#include <string>

namespace ssim::launch {

class JobAllocation {
 public:
  virtual ~JobAllocation() = default;
  // The scheduler's id of the allocation; "" when the steps need none (every one a
  // batch job of its own) or before Launcher::prepare.
  virtual std::string id() const = 0;
  // ssim requested it, so ssim releases it at the end of the run.
  virtual bool owned() const = 0;
  // The nodes the plan placed step `name` on (whole-node and pinned steps, database
  // shards), "" when placement is the pool's or the scheduler's.
  virtual std::string placed_nodes(const std::string& name) const = 0;
  // Cancels allocation `id`: this run's, or one a manifest recorded (ssim stop from
  // another shell, which never prepared one).
  virtual void release(const std::string& id) = 0;
  // Once the scheduler says the allocation itself ended under the run (cancelled by its
  // owner, its time limit, its nodes failed): what it said, as the reason its entities
  // end ("the allocation 12 ended: CANCELLED by 0"), and when (epoch seconds, 0 when it
  // does not say). Asked only once nodes are lost: a query, not a cheap call.
  struct Ended {
    std::string reason;
    double at = 0;
  };
  virtual std::optional<Ended> ended() const { return std::nullopt; }
  // The same for job `id`, which a manifest recorded (a reader on the login node, after
  // the run inside it died): ended when the scheduler says so, or no longer knows it
  // (PBS without job history: "Unknown Job Id"). nullopt while it runs or when the
  // scheduler cannot be asked.
  virtual std::optional<Ended> ended_job(const std::string& id) const {
    (void)id;
    return std::nullopt;
  }
};

}  // namespace ssim::launch
