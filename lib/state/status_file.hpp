#pragma once
// <run_dir>/.ssim-status.json: how one job stands, written by whatever watches the
// program (the supervisor, the batch layer's wrapper inside a job, or ssim itself when it
// recovers an outcome) and read by the launchers, even after `ssim run` is gone. The one
// owner of the format: a JSON object on one line,
//   {"format":1, "state":"running"|"exited", "start", "end", "pid", "pid_start_ticks",
//    "supervisor_pid", "supervisor_start_ticks", "node", "host", "exit_code", "signal",
//    "error", "time_limit_reached", "recovered_by", "agent_lost"}
// where null and absent mean "not known". Readers ignore fields they do not know.
#include <optional>
#include <string>
#include <string_view>

namespace ssim::state {

inline constexpr int kStatusFileVersion = 1;

struct StatusFile {
  bool exited = false;  // "state": running until the program has ended
  double start = 0;     // when the watcher took the job (seconds since the epoch)
  double end = 0;
  int pid = 0;                  // the program, leader of its process group
  std::string pid_start_ticks;  // field 22 of its /proc/PID/stat: never a later process with its pid
  int supervisor_pid = 0;       // the watcher
  std::string supervisor_start_ticks;
  std::string node;  // where the program runs (the scheduler's name for the node)
  std::string host;  // whose process table the pids are in
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string error;  // why it could not start, or how the outcome was lost
  bool time_limit_reached = false;
  std::string recovered_by;  // who wrote the outcome when its watcher could not
  // Its watcher (a node agent's keeper) ended the program because the agent was lost:
  // died, or silent as long as ssim waits before it gives up on the node.
  bool agent_lost = false;
  // Read from a keeper's journal: the launch it records (lib/state/launch_log.hpp); -1
  // from a status file. Not written by encode_status_file: the journal's line holds it.
  long launch = -1;
  int version = kStatusFileVersion;
};

std::string status_file_path(const std::string& run_dir);
// The marker ssim leaves when it asks a job to stop (its end then reads cancelled): one
// name for the launchers that write it and for `--batch --resume`, which clears it.
std::string cancel_marker_path(const std::string& run_dir);
// One line, newline-terminated. Written without a JSON library, so the supervisor stays small.
std::string encode_status_file(const StatusFile& s);
// `s` as a JSON string, quotes included (the status records' and the launch log's one
// spelling of a run directory, so that their texts compare as they are).
std::string status_json_string(const std::string& s);
// nullopt for a text that is not a status object (absent, cut short, damaged).
std::optional<StatusFile> decode_status_file(std::string_view text);

}  // namespace ssim::state
