#pragma once
#include <string>

namespace ssim::state {

// SPEC.md's status values (also the JSON strings).
enum class Status { New, Pending, Running, Completed, Failed, Cancelled, Unknown };

std::string to_string(Status s);
Status status_from_string(const std::string& s);  // unknown strings -> Unknown
bool is_terminal(Status s);                       // completed, failed, cancelled

}  // namespace ssim::state
