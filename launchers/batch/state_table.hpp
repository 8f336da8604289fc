#pragma once
// A scheduler's job states as data (PSI/J's lsf.py style): each native state names the
// class it belongs to and, where the state alone says why a job ended, that reason.
// Exit codes and signals stay with each scheduler's parser: where they come from differs.
#include <optional>
#include <string_view>

#include "lib/state/status.hpp"

namespace ssim::launchers {

enum class StateClass {
  Pending,  // queued, held, suspended before running
  Running,  // running, or finishing
  Ended,    // the exit code (and the scheduler's account) says how
  Failed,   // ended for a reason the state names (time limit, node failure)
  Cancelled,
};

struct StateRow {
  std::string_view native;
  StateClass kind;
  std::string_view reason = {};  // what a person reads when the state alone explains it
};

template <std::size_t N>
std::optional<StateRow> find_state(const StateRow (&table)[N], std::string_view native) {
  for (const auto& row : table)
    if (row.native == native) return row;
  return std::nullopt;
}

}  // namespace ssim::launchers
