// The unit tests name launchers (option checks, the registry's rules): registered before
// any test runs, as ssim's main does. Part of the test program itself, so never dropped.
#include "launchers/registry.hpp"

namespace {
const bool registered = (ssim::launchers::register_launchers(), true);
}  // namespace
