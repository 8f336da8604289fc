#pragma once
// What the data client throws. All derive from ClientError.
#include <stdexcept>

namespace ssim::client {

struct ClientError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The database cannot be reached (refused, timed out, lost), naming the address.
struct ConnectionError : ClientError {
  using ClientError::ClientError;
};
// The password is missing or wrong.
struct AuthError : ClientError {
  using ClientError::ClientError;
};
// No such tensor, dataset or list entry.
struct KeyNotFound : ClientError {
  using ClientError::ClientError;
};
// The stored value does not match what the caller asked for (dtype, shape, format).
struct TypeMismatch : ClientError {
  using ClientError::ClientError;
};

// A model or script call failed in the inference service: the model threw (a wrong input
// shape), ran out of memory, is not stored, or wants a device the node lacks.
struct InferenceError : ClientError {
  using ClientError::ClientError;
};

}  // namespace ssim::client
