#pragma once
// <path>/.ssim/stop-requests/ID.json: how `ssim stop` asks the process that runs an
// experiment (ssim run, or its detached monitor) to stop some or all of it. One shared
// mechanism for every case where the stopper cannot do it alone: named entities (the
// runner would otherwise start pending members again), and a runner on another host
// (a login node cannot signal a process inside a job; the experiment directory is on
// a shared file system). The runner acts on each request and removes its file; the
// stopper waits for that.
#include <string>
#include <vector>

namespace ssim::state {

struct StopRequest {
  std::string id;                  // the file's name, unique
  std::vector<std::string> names;  // entities or ensembles; empty: everything
  std::string host;                // who asked, for the log
  double time = 0;
};

std::string stop_request_dir(const std::string& experiment_path);

// Writes a request atomically and returns its id.
std::string post_stop_request(const std::string& experiment_path, const std::vector<std::string>& names);

// The requests waiting, oldest first (unreadable ones are dropped). Cheap when none.
std::vector<StopRequest> pending_stop_requests(const std::string& experiment_path);

// Removes a request once acted upon; the stopper sees it gone.
void acknowledge_stop_request(const std::string& experiment_path, const std::string& id);
bool stop_request_pending(const std::string& experiment_path, const std::string& id);

}  // namespace ssim::state
