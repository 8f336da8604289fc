#include "lib/state/job_file.hpp"

#include <cstdlib>

namespace ssim::state {

std::vector<std::string> merged_environment(const std::vector<std::string>& base,
                                            const std::vector<std::pair<std::string, std::string>>& additions) {
  std::vector<std::string> env;
  env.reserve(base.size() + additions.size());
  for (const auto& kv : base) {
    const std::string key = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const auto& [k, v] : additions) replaced = replaced || k == key;
    if (!replaced) env.push_back(kv);
  }
  for (size_t i = 0; i < additions.size(); ++i) {
    bool later = false;  // later entries win
    for (size_t j = i + 1; j < additions.size(); ++j) later = later || additions[j].first == additions[i].first;
    if (!later) env.push_back(additions[i].first + "=" + additions[i].second);
  }
  return env;
}

std::string encode_job_file(const JobFile& job) {
  std::string out = std::to_string(job.argv.size()) + '\0';
  for (const auto& a : job.argv) out += a + '\0';
  out += std::to_string(job.env.size()) + '\0';
  for (const auto& e : job.env) out += e + '\0';
  out += std::string("format") + '\0' + std::to_string(job.version) + '\0';
  if (job.time_limit > 0) out += std::string("time_limit") + '\0' + std::to_string(job.time_limit) + '\0';
  return out;
}

std::optional<JobFile> decode_job_file(const std::string& text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\0', i);
    if (j == std::string::npos) j = text.size();
    words.emplace_back(text, i, j - i);
    i = j + 1;
  }
  size_t k = 0;
  auto take = [&](std::vector<std::string>& into) {
    if (k >= words.size()) return false;
    char* end = nullptr;
    const long n = std::strtol(words[k].c_str(), &end, 10);
    if (words[k].empty() || *end != '\0' || n < 0 || k + 1 + static_cast<size_t>(n) > words.size()) return false;
    ++k;
    into.assign(words.begin() + static_cast<long>(k), words.begin() + static_cast<long>(k) + n);
    k += static_cast<size_t>(n);
    return true;
  };
  JobFile job;
  job.version = 0;  // a file from before the version was written
  if (!take(job.argv) || !take(job.env) || job.argv.empty()) return std::nullopt;
  for (; k + 1 < words.size(); k += 2) {
    if (words[k] == "time_limit") job.time_limit = std::strtol(words[k + 1].c_str(), nullptr, 10);
    if (words[k] == "format") job.version = static_cast<int>(std::strtol(words[k + 1].c_str(), nullptr, 10));
  }
  return job;
}

std::optional<std::string> job_variable(const JobFile& job, const std::string& key) {
  std::optional<std::string> value;
  for (const auto& e : job.env)
    if (e.size() > key.size() && e.compare(0, key.size(), key) == 0 && e[key.size()] == '=')
      value = e.substr(key.size() + 1);
  return value;
}

}  // namespace ssim::state
