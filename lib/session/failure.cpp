#include "lib/session/failure.hpp"

#include <filesystem>
#include <new>

#include "lib/generate/generate.hpp"
#include "lib/spec/error.hpp"
#include "lib/spec/suggest.hpp"
#include "lib/util/errors.hpp"

namespace ssim::session {

Failure describe_failure(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const spec::SpecError& e) {
    return {2, e.what(), true};
  } catch (const generate::GenerateError& e) {
    return {2, e.what()};
  } catch (const UsageError& e) {
    return {2, e.what()};
  } catch (const EnvironmentError& e) {
    return {3, spec::printable(e.what(), 4000, true)};
  } catch (const std::filesystem::filesystem_error& e) {
    // The file system refused something (full, read-only, permissions): the environment.
    return {3, spec::printable(e.what(), 2000)};
  } catch (const std::bad_alloc&) {
    return {3, "out of memory"};
  } catch (const std::exception& e) {
    return {3, "internal error: " + spec::printable(e.what(), 2000)};
  } catch (...) {
    return {3, "internal error: an unknown exception"};
  }
}

}  // namespace ssim::session
