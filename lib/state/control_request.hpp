#pragma once
// <path>/.ssim/stop-requests/ID.json and <path>/.ssim/start-requests/ID.json: how
// `ssim stop` and `ssim start` ask the process that runs an experiment (ssim run, or its
// detached monitor) to stop or start some or all of it. One shared mechanism for every
// case where the asker cannot do it alone: named entities (the runner would otherwise
// start pending members again, or holds them until asked), and a runner on another
// host (a login node cannot signal a process inside a job; the experiment directory is
// on a shared file system). The runner acts on each request and removes its file,
// leaving ID.answer beside it when it refused; the asker waits for that.
#include <optional>
#include <string>
#include <vector>

namespace ssim::state {

enum class RequestKind { Stop, Start };

// `ssim stop` of everything on the runner's own host is a SIGTERM, as Ctrl-C is a SIGINT;
// sent with sigqueue carrying this value, so that the runner tells it from any other
// SIGTERM and records "stopped by ssim stop", one reason for the whole stop.
inline constexpr int kStopSignalValue = 0x5353494d;  // "SSIM"

struct ControlRequest {
  std::string id;                  // the file's name, unique
  std::vector<std::string> names;  // entities or ensembles; empty: everything
  std::string host;                // who asked, for the log
  double time = 0;
};

std::string request_dir(const std::string& experiment_path, RequestKind kind);

// Writes a request atomically and returns its id.
std::string post_request(const std::string& experiment_path, RequestKind kind, const std::vector<std::string>& names);

// The requests waiting, oldest first (unreadable ones are dropped). Cheap when none.
std::vector<ControlRequest> pending_requests(const std::string& experiment_path, RequestKind kind);

// Removes a request once acted upon; the asker sees it gone. A non-empty `refusal`
// (one line: why it was not done) is left for the asker in ID.answer.
void acknowledge_request(const std::string& experiment_path, RequestKind kind, const std::string& id,
                         const std::string& refusal = "");
bool request_pending(const std::string& experiment_path, RequestKind kind, const std::string& id);
// The runner's refusal of a request it acknowledged, removed once read; nullopt when it
// was done.
std::optional<std::string> take_refusal(const std::string& experiment_path, RequestKind kind, const std::string& id);

}  // namespace ssim::state
