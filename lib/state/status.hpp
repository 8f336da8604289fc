#pragma once
#include <string>

namespace ssim::state {

// The status values of docs/cli.md (also the JSON strings).
enum class Status { New, Pending, Running, Completed, Failed, Cancelled, Unknown };

std::string to_string(Status s);
Status status_from_string(const std::string& s);  // unknown strings -> Unknown
bool is_terminal(Status s);                       // completed, failed, cancelled

// The order summaries list them in: how it ended first, then what is still to come.
inline constexpr Status kSummaryOrder[] = {Status::Completed, Status::Failed, Status::Cancelled, Status::Running,
                                           Status::Pending,   Status::New,    Status::Unknown};

}  // namespace ssim::state
