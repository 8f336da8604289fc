#include "lib/state/status.hpp"

namespace ssim::state {

std::string to_string(Status s) {
  switch (s) {
    case Status::New:
      return "new";
    case Status::Pending:
      return "pending";
    case Status::Running:
      return "running";
    case Status::Completed:
      return "completed";
    case Status::Failed:
      return "failed";
    case Status::Cancelled:
      return "cancelled";
    case Status::Unknown:
      return "unknown";
  }
  return "unknown";
}

Status status_from_string(const std::string& s) {
  for (Status v : {Status::New, Status::Pending, Status::Running, Status::Completed, Status::Failed, Status::Cancelled})
    if (to_string(v) == s) return v;
  return Status::Unknown;
}

bool is_terminal(Status s) { return s == Status::Completed || s == Status::Failed || s == Status::Cancelled; }

}  // namespace ssim::state
