#include "lib/state/launch_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "lib/util/file_tail.hpp"
#include "lib/util/experiment_dir.hpp"
#include "lib/state/status_file.hpp"

namespace ssim::state {

namespace {
// This process's key for its base environment: its pid and when it first wrote.
const std::string& base_key() {
  static const std::string key = std::to_string(::getpid()) + "." +
                                 std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                    std::chrono::system_clock::now().time_since_epoch())
                                                    .count());
  return key;
}

std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}
}  // namespace

std::string launch_log_path(const std::string& experiment_path) {
  return ssim_dir(experiment_path) + "/launches.ndjson";
}

namespace {
// The log's descriptor, kept open for the next launches of this process (a large
// ensemble starts a member at a time: an open each would be a metadata operation per
// member on a parallel file system); `fresh` when opened now.
int log_descriptor(const std::string& log, bool& fresh) {
  static std::map<std::string, int> open_logs;
  fresh = false;
  if (const auto it = open_logs.find(log); it != open_logs.end()) return it->second;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) open_logs[log] = fd, fresh = true;
  return fd;
}
}  // namespace

std::vector<long> append_launches(const std::string& log, const std::vector<std::string>& base,
                                  const std::vector<LaunchEntry>& jobs) {
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  bool fresh = false;
  const int fd = log_descriptor(log, fresh);
  if (fd < 0) throw std::runtime_error("cannot write " + log + ": " + std::strerror(errno));
  std::string text;
  if (fresh) text += dump({{"base", base_key()}, {"env", base}});
  std::vector<long> at;  // each job's line, from the start of `text`
  for (const auto& j : jobs) {
    nlohmann::json env = nlohmann::json::array();
    for (const auto& [k, v] : j.additions) env.push_back({k, v});
    nlohmann::json rest = {{"argv", j.argv}, {"env", env}, {"base", base_key()}};
    if (j.time_limit > 0) rest["time_limit"] = j.time_limit;
    if (!j.job.empty()) rest["job"] = j.job;
    at.push_back(static_cast<long>(text.size()));
    text += "{\"run_dir\":" + status_json_string(j.run_dir) + "," + dump(rest).substr(1);
  }
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("cannot write " + log + ": " + std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  // O_APPEND: the descriptor's offset is where this write ended, whoever else appends.
  const off_t end = ::lseek(fd, 0, SEEK_CUR);
  if (end < 0) throw std::runtime_error("cannot write " + log + ": " + std::strerror(errno));
  const long start = static_cast<long>(end) - static_cast<long>(text.size());
  for (auto& offset : at) offset += start;
  return at;
}

std::vector<std::string> this_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::string launched_job_id(const std::string& log, long launch) {
  if (launch < 0) return "";
  const int fd = ::open(log.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string line;
  char buf[4096];
  for (off_t at = launch;;) {  // to the end of its line: one line, a few KB at most
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n <= 0) break;
    const char* nl = static_cast<const char*>(std::memchr(buf, '\n', static_cast<size_t>(n)));
    line.append(buf, nl ? static_cast<size_t>(nl - buf) : static_cast<size_t>(n));
    if (nl) break;
    at += n;
  }
  ::close(fd);
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("run_dir")) return "";
  const auto job = j.find("job");
  return job != j.end() && job->is_string() ? job->get<std::string>() : "";
}

std::optional<JobFile> find_launch(const std::string& log, const std::string& run_dir) {
  const auto text = read_run_file(log);
  if (!text) return std::nullopt;
  // Only the lines that may be about it are parsed: bases, and lines naming its folder.
  const std::string named = nlohmann::json(run_dir).dump();
  std::map<std::string, std::vector<std::string>> bases;
  std::optional<nlohmann::json> last;
  for (size_t at = 0; at < text->size();) {
    const size_t nl = std::min(text->find('\n', at), text->size());
    const std::string_view line(text->data() + at, nl - at);
    at = nl + 1;
    const bool base = line.rfind("{\"base\":", 0) == 0;
    if (!base && line.find(named) == std::string_view::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    if (base && j.value("env", nlohmann::json()).is_array())
      bases[j.value("base", "")] = j["env"].get<std::vector<std::string>>();
    else if (j.value("run_dir", "") == run_dir && j.contains("argv") && j["argv"].is_array())
      last = std::move(j);
  }
  if (!last) return std::nullopt;
  JobFile job;
  try {
    job.argv = (*last)["argv"].get<std::vector<std::string>>();
    std::vector<std::pair<std::string, std::string>> additions;
    for (const auto& kv : last->value("env", nlohmann::json::array()))
      additions.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    job.env = merged_environment(bases[last->value("base", "")], additions);
    job.time_limit = last->value("time_limit", 0L);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (job.argv.empty()) return std::nullopt;
  return job;
}

}  // namespace ssim::state
