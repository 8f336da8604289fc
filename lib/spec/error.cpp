#include "lib/spec/error.hpp"

namespace ssim::spec {

namespace {
std::string format(const std::string& file, Loc loc, const std::string& field,
                   const std::string& message) {
  std::string out = file;
  if (loc.line > 0) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  out += ": ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}
}  // namespace

SpecError::SpecError(std::string file, Loc loc, std::string field, std::string message)
    : std::runtime_error(format(file, loc, field, message)),
      file_(std::move(file)),
      loc_(loc),
      field_(std::move(field)),
      message_(std::move(message)) {}

}  // namespace ssim::spec
