#include "lib/state/stop_request.hpp"
#include "lib/util/experiment_dir.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"
#include "lib/util/proc_stat.hpp"
#include "lib/util/random_hex.hpp"

namespace ssim::state {

std::string stop_request_dir(const std::string& experiment_path) { return ssim_dir(experiment_path) + "/stop-requests"; }

std::string post_stop_request(const std::string& experiment_path, const std::vector<std::string>& names) {
  const std::string dir = stop_request_dir(experiment_path);
  std::filesystem::create_directories(dir);
  const std::string id = random_hex(8, "a stop request id");
  const nlohmann::json j = {{"names", names}, {"host", host_name()}, {"time", now_seconds()}};
  write_file_atomically(dir + "/" + id + ".json", j.dump() + "\n");
  return id;
}

std::vector<StopRequest> pending_stop_requests(const std::string& experiment_path) {
  std::vector<StopRequest> out;
  const std::string dir = stop_request_dir(experiment_path);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* entry = ::readdir(d)) {
    const std::string file = entry->d_name;
    if (file.size() <= 5 || file.compare(file.size() - 5, 5, ".json") != 0) continue;  // also skips temporaries
    const std::string id = file.substr(0, file.size() - 5);
    const auto text = read_file(dir + "/" + file);
    const auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!j.is_object() || !j.contains("names") || !j["names"].is_array()) {
      ::unlink((dir + "/" + file).c_str());
      continue;
    }
    StopRequest r{id, {}, j.value("host", ""), j.value("time", 0.0)};
    for (const auto& n : j["names"])
      if (n.is_string()) r.names.push_back(n.get<std::string>());
    out.push_back(std::move(r));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const StopRequest& a, const StopRequest& b) { return a.time < b.time; });
  return out;
}

void acknowledge_stop_request(const std::string& experiment_path, const std::string& id) {
  ::unlink((stop_request_dir(experiment_path) + "/" + id + ".json").c_str());
}

bool stop_request_pending(const std::string& experiment_path, const std::string& id) {
  return ::access((stop_request_dir(experiment_path) + "/" + id + ".json").c_str(), F_OK) == 0;
}

}  // namespace ssim::state
