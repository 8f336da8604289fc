#include "lib/state/rank_ends.hpp"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "lib/state/setup_failure.hpp"
#include "lib/state/step_ends.hpp"
#include "lib/util/file_tail.hpp"
#include "lib/util/split.hpp"
#include "lib/util/utf8.hpp"

namespace ssim::state {

std::string encode_rank_end(const RankEnd& e) {
  std::string said = e.said.size() > 1000 ? e.said.substr(0, 1000) : e.said;
  nlohmann::json j = {{"rank", e.rank}, {"exit", e.exit_code}, {"signal", e.signal},
                      {"end", e.end},   {"host", e.host},      {"said", sanitized_utf8(said, false)}};
  if (e.asked) j["asked"] = true;
  return j.dump() + "\n";
}

std::vector<RankEnd> parse_rank_ends(const std::string& text) {
  std::vector<RankEnd> out;
  for (const auto& line : split(text, '\n')) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("rank") || !j["rank"].is_number_integer()) continue;
    RankEnd e;
    e.rank = j["rank"].get<int>();
    e.exit_code = j.value("exit", 0);
    e.signal = j.value("signal", 0);
    e.end = j.value("end", 0.0);
    e.host = j.value("host", "");
    e.said = j.value("said", "");
    e.asked = j.value("asked", false);
    const auto same = std::find_if(out.begin(), out.end(), [&](const RankEnd& o) { return o.rank == e.rank; });
    if (same != out.end())
      *same = std::move(e);
    else
      out.push_back(std::move(e));
  }
  return out;
}

namespace {
// A rank that only lost its peer, or was being ended by its launcher: what it says follows
// another rank's failure (clocks of different nodes may stamp it first).
bool lost_its_peer(const RankEnd& e) {
  if (e.asked) return true;
  for (const char* p : {"Connection closed by peer", "Connection reset by peer", "Broken pipe",
                        "remote process exited or there was a network error", "ECONNRESET"})
    if (e.said.find(p) != std::string::npos) return true;
  return false;
}
}  // namespace

std::optional<RankEnd> first_failed_rank(const std::vector<RankEnd>& ends) {
  // The earliest failure that is a rank's own error; only when every failed rank merely
  // lost its peer, the earliest of those.
  std::optional<RankEnd> first, first_own;
  for (const auto& e : ends) {
    if (e.clean()) continue;
    if (!first || e.end < first->end) first = e;
    if (!lost_its_peer(e) && (!first_own || e.end < first_own->end)) first_own = e;
  }
  return first_own ? first_own : first;
}

std::optional<RankEnd> failed_before(const std::vector<RankEnd>& ends, double time) {
  const auto first = first_failed_rank(ends);
  if (first && first->end < time) return first;
  return std::nullopt;
}

namespace {
// "(exit 3, on n2)"
std::string how_it_ended(const RankEnd& e) {
  if (e.asked)
    return "(sent signal " + std::to_string(e.signal) + " by its launcher" + (e.host.empty() ? "" : ", on " + e.host) +
           ")";
  return "(" + (e.signal ? "signal " + std::to_string(e.signal) : "exit " + std::to_string(e.exit_code)) +
         (e.host.empty() ? "" : ", on " + e.host) + ")";
}
}  // namespace

std::string describe_rank_end(const RankEnd& e) {
  return "rank " + std::to_string(e.rank) + " " + how_it_ended(e) + (e.said.empty() ? "" : ": " + e.said);
}

std::string describe_rank_failure(const std::vector<RankEnd>& ends) {
  const auto first = first_failed_rank(ends);
  if (!first || ends.size() < 2) return "";
  std::string s = "rank " + std::to_string(first->rank) + " failed first " + how_it_ended(*first);
  if (!first->said.empty()) s += ": " + first->said;
  std::vector<int> after;
  for (const auto& e : ends)
    if (!e.clean() && e.rank != first->rank) after.push_back(e.rank);
  std::sort(after.begin(), after.end());
  if (!after.empty()) {
    std::string list;
    for (size_t i = 0; i < after.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(after[i]);
    if (after.size() > 8) list += " and " + std::to_string(after.size() - 8) + " more";
    s += "; rank" + std::string(after.size() > 1 ? "s " : " ") + list + " ended after rank " +
         std::to_string(first->rank) + " failed";
  }
  return s;
}

std::vector<RankEnd> read_rank_ends(const std::string& run_dir) {
  return parse_rank_ends(read_regular_file(run_dir + "/" + kRankEndsFile, 4 << 20, true).value_or(""));
}

void forget_last_attempt(const std::string& run_dir) {
  for (const std::string name : {kRankEndsFile, kRankZeroFile, kSetupFailedFile})
    ::unlink((run_dir + "/" + name).c_str());
  ::unlink(step_ends_path(run_dir).c_str());
}

}  // namespace ssim::state
