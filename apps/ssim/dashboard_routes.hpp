#pragma once
// What `ssim dashboard` answers, apart from the socket: every request needs the token
// (?token= or "Authorization: Bearer"); experiments are only those it serves.
//   /                      the page (dashboard_page.cpp)
//   /api/experiments       [experiment_summary, ...]
//   /api/status?exp=PATH   ssim status --json's document, refreshed, plus "running"
//   /api/logs?exp=PATH&entity=NAME&stream=out|err&offset=N
//                          {"data", "offset", "ended"}: what was written since offset (64 KiB at most)
//   /report?exp=PATH       the ssim report page
#include <map>
#include <string>
#include <vector>

namespace ssim::app {

struct Dashboard {
  std::string token;
  std::vector<std::string> experiments;  // served paths; empty: every one in the history
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// "/a/b?x=1&y=%2F" -> path "/a/b", query {x: 1, y: /}.
struct Target {
  std::string path;
  std::map<std::string, std::string> query;
};
Target parse_target(const std::string& target);
std::string url_decode(const std::string& text);

// The request carries the dashboard's token (checked before anything else is done).
bool shows_token(const Dashboard& d, const Target& t, const std::string& authorization);

HttpReply handle_request(const Dashboard& d, const std::string& method, const std::string& target,
                         const std::string& authorization);

// The page (dashboard_page.cpp).
const std::string& dashboard_page();

}  // namespace ssim::app
