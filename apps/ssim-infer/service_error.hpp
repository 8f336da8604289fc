#pragma once
// An error the caller gets as the reply to its request (one line, no backtrace).
#include <stdexcept>
#include <string>

namespace ssim::infer {

struct ServiceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ssim::infer
