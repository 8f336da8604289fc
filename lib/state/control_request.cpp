#include "lib/state/control_request.hpp"
#include "lib/util/experiment_dir.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/file_tail.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/random_hex.hpp"

namespace ssim::state {

std::string request_dir(const std::string& experiment_path, RequestKind kind) {
  return ssim_dir(experiment_path) + (kind == RequestKind::Stop ? "/stop-requests" : "/start-requests");
}

std::string post_request(const std::string& experiment_path, RequestKind kind, const std::vector<std::string>& names) {
  const std::string dir = request_dir(experiment_path, kind);
  std::filesystem::create_directories(dir);
  const std::string id = random_hex(8, "a request id");
  const nlohmann::json j = {{"names", names}, {"host", host_name()}, {"time", now_seconds()}};
  write_file_atomically(dir + "/" + id + ".json", j.dump() + "\n");
  return id;
}

std::vector<ControlRequest> pending_requests(const std::string& experiment_path, RequestKind kind) {
  std::vector<ControlRequest> out;
  const std::string dir = request_dir(experiment_path, kind);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* entry = ::readdir(d)) {
    const std::string file = entry->d_name;
    if (file.size() <= 5 || file.compare(file.size() - 5, 5, ".json") != 0) continue;  // also skips temporaries
    const std::string id = file.substr(0, file.size() - 5);
    // Only a small regular file of this user's, opened without blocking: a FIFO or a
    // stranger's file in the folder must neither hang the runner nor steer it.
    const auto text = read_regular_file(dir + "/" + file, 64 * 1024, true);
    if (!text) continue;
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object() || !j.contains("names") || !j["names"].is_array()) {
      ::unlink((dir + "/" + file).c_str());
      continue;
    }
    ControlRequest r{id, {}, j.value("host", ""), j.value("time", 0.0)};
    for (const auto& n : j["names"])
      if (n.is_string()) r.names.push_back(n.get<std::string>());
    out.push_back(std::move(r));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const ControlRequest& a, const ControlRequest& b) { return a.time < b.time; });
  return out;
}

void acknowledge_request(const std::string& experiment_path, RequestKind kind, const std::string& id,
                         const std::string& refusal) {
  const std::string base = request_dir(experiment_path, kind) + "/" + id;
  if (!refusal.empty()) {
    try {
      write_file_atomically(base + ".answer", refusal + "\n");
    } catch (const std::exception&) {
      // The asker then reports the request as done; the runner's log has the refusal.
    }
  }
  ::unlink((base + ".json").c_str());
}

bool request_pending(const std::string& experiment_path, RequestKind kind, const std::string& id) {
  return ::access((request_dir(experiment_path, kind) + "/" + id + ".json").c_str(), F_OK) == 0;
}

std::optional<std::string> take_refusal(const std::string& experiment_path, RequestKind kind, const std::string& id) {
  const std::string file = request_dir(experiment_path, kind) + "/" + id + ".answer";
  auto text = read_regular_file(file, 64 * 1024, true);
  if (!text) return std::nullopt;
  ::unlink(file.c_str());
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return text;
}

}  // namespace ssim::state
