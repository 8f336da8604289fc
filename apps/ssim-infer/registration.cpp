#include "apps/ssim-infer/registration.hpp"

#include <chrono>
#include <sstream>
#include <thread>
#include <vector>

#include "lib/client/connection.hpp"
#include "lib/client/model_record.hpp"
#include "lib/client/router.hpp"

namespace ssim::infer {

namespace {

using client::Connection;

std::unique_ptr<Connection> connect_when_up(const std::string& db, const std::string& password) {
  const auto [host, port] = client::split_address(db);
  while (true) {
    try {
      auto c = std::make_unique<Connection>(host, port, password, std::chrono::seconds(2));
      c->command({"PING"});
      return c;
    } catch (const client::AuthError&) {
      throw;
    } catch (const client::ClientError&) {
      // LOADING a snapshot, or not listening yet: the database step started us with it.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string text_of(Connection& c, std::initializer_list<std::string_view> argv) {
  auto r = c.command(argv);
  return std::string(r->str ? r->str : "", r->len);
}

// The slot ranges of the "myself" line of CLUSTER NODES ("0-5460 7000 [93-<-id]").
std::vector<std::pair<int, int>> own_slots(const std::string& nodes) {
  std::istringstream lines(nodes);
  std::string line;
  std::vector<std::pair<int, int>> out;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    if (f.size() < 8 || f[2].find("myself") == std::string::npos) continue;
    for (size_t i = 8; i < f.size(); ++i) {
      if (f[i].empty() || f[i][0] == '[') continue;
      const size_t dash = f[i].find('-');
      const int a = std::stoi(f[i].substr(0, dash));
      out.emplace_back(a, dash == std::string::npos ? a : std::stoi(f[i].substr(dash + 1)));
    }
  }
  return out;
}

}  // namespace

std::string register_service(const std::string& db, const std::string& password, bool cluster,
                             const std::string& address) {
  auto c = connect_when_up(db, password);
  std::vector<std::pair<int, int>> ranges;
  while (cluster) {
    if (text_of(*c, {"CLUSTER", "INFO"}).find("cluster_state:ok") != std::string::npos) {
      ranges = own_slots(text_of(*c, {"CLUSTER", "NODES"}));
      if (!ranges.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string key = client::inference_registry_key([&](uint16_t slot) {
    if (!cluster) return true;
    for (const auto& [a, b] : ranges)
      if (slot >= a && slot <= b) return true;
    return false;
  });
  c->command({"SET", key, address});
  return key;
}

}  // namespace ssim::infer
