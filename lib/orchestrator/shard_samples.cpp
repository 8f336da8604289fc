#include "lib/orchestrator/shard_samples.hpp"
#include "lib/util/experiment_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "lib/client/connection.hpp"
#include "lib/orchestrator/database.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/clock.hpp"

namespace ssim::orchestrator {

namespace {
constexpr off_t kMaxBytes = 2L << 20;
}

std::string samples_path(const std::string& experiment_path) {
  return ssim_dir(experiment_path) + "/db_samples.ndjson";
}

nlohmann::json sample_from_info(const std::string& info) {
  nlohmann::json s = {
      {"used_memory", 0}, {"used_memory_peak", 0}, {"connected_clients", 0}, {"ops_per_sec", 0}, {"keys", 0}};
  std::istringstream lines(info);
  long long keys = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(':');
    if (colon == std::string::npos || line[0] == '#') continue;
    const std::string k = line.substr(0, colon), v = line.substr(colon + 1);
    if (k == "used_memory" || k == "used_memory_peak" || k == "connected_clients")
      s[k] = std::atoll(v.c_str());
    else if (k == "instantaneous_ops_per_sec")
      s["ops_per_sec"] = std::atoll(v.c_str());
    else if (k.rfind("db", 0) == 0 && v.rfind("keys=", 0) == 0)
      keys += std::atoll(v.c_str() + 5);  // db0:keys=12,...
  }
  s["keys"] = keys;
  return s;
}

std::optional<nlohmann::json> sample_shard(const std::string& shard, const std::string& run_dir,
                                           const std::string& password, std::chrono::milliseconds timeout) {
  const auto a = read_address(run_dir);
  if (!a) return std::nullopt;
  try {
    client::Connection c(a->host, a->port, password, timeout, timeout);
    const client::Reply r = c.command({"INFO", "all"});
    nlohmann::json s = sample_from_info(std::string(r->str, r->len));
    s["time"] = now_seconds();
    s["shard"] = shard;
    return s;
  } catch (const client::ClientError&) {
    return std::nullopt;
  }
}

void append_samples(const std::string& experiment_path, const std::vector<nlohmann::json>& samples) {
  if (samples.empty()) return;
  const std::string path = samples_path(experiment_path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && st.st_size > kMaxBytes) {
    // Thinned, not cut: every other line goes, so the chart still spans the whole run.
    std::istringstream in(read_file(path).value_or(""));
    std::string kept;
    int i = 0;
    for (std::string line; std::getline(in, line); ++i)
      if (i % 2 == 0) kept += line + "\n";
    try {
      write_file_atomically(path, kept, 0644);
    } catch (const std::exception&) {
      return;  // a full disk: no more samples
    }
  }
  std::string text;
  for (const auto& s : samples) text += s.dump() + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (::write(fd, text.data(), text.size()) < 0) {
    // a full disk: the run goes on without samples
  }
  ::close(fd);
}

std::vector<nlohmann::json> read_samples(const std::string& experiment_path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(read_file(samples_path(experiment_path)).value_or(""));
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace ssim::orchestrator
