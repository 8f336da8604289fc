#include "lib/engine/failure_pointer.hpp"

#include "lib/state/entity_error.hpp"

namespace ssim::engine {

std::string failure_pointer(const state::EntityRecord& r, const std::string& experiment_path) {
  if (r.run_dir.empty() || r.type == state::EntityKind::Database) return "";
  // The program's own last line, not its MPI launcher's banner about it.
  std::string last = state::entity_last_error(r.run_dir, r.name, 1);
  if (last.size() > 160) last = last.substr(0, 157) + "...";
  for (char& c : last)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';  // no terminal control from a program's output
  const std::string command = "ssim logs " + experiment_path + " " + r.name;
  if (last.empty()) return "  (" + command + ")";
  return " | " + last + "  (" + command + " --stderr)";
}

}  // namespace ssim::engine
