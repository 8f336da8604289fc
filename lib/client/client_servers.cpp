// ssim::Client's raw keys and server commands (SmartRedis's key_exists, poll_key,
// get_db_node_info, config_get/config_set, save, flush_db).
#include <functional>
#include <sstream>

#include "lib/client/client.hpp"
#include "lib/client/client_internal.hpp"
#include "lib/client/resp_writer.hpp"
#include "lib/client/router.hpp"

namespace ssim::client {

bool Client::key_exists(const std::string& key) {
  return with_redirects([&] { return router_->command(key, {"EXISTS", key})->integer == 1; });
}

bool Client::poll_key(const std::string& key, int interval_ms, int tries) {
  return poll_until([&] { return key_exists(key); }, interval_ms, tries);
}

namespace {
std::string as_resp(const std::function<Reply()>& send) {
  std::string out;
  try {
    const Reply r = send();
    resp::append_reply(out, r.get());
  } catch (const ReplyError& e) {
    if (e.moved() || e.ask()) throw;  // with_redirects follows these
    resp::append_error(out, e.text);
  }
  return out;
}
}  // namespace

std::string Client::forward(std::string_view key, const std::vector<std::string_view>& argv) {
  return with_redirects([&] { return as_resp([&] { return router_->command(key, argv); }); });
}

std::string Client::forward_to_first(const std::vector<std::string_view>& argv) {
  return as_resp([&] { return router_->masters().front()->command(argv); });
}

bool Client::same_shard(std::string_view a, std::string_view b) {
  return !router_->is_cluster() || router_->address_for_key(a) == router_->address_for_key(b);
}

std::vector<std::string> Client::db_addresses() {
  std::vector<std::string> out;
  for (Connection* c : router_->masters()) out.push_back(c->address());
  return out;
}

namespace {
std::vector<Connection*> servers(Router& router, const std::vector<std::string>& addresses) {
  if (addresses.empty()) return router.masters();
  std::vector<Connection*> out;
  for (const auto& a : addresses) out.push_back(&router.at(a));
  return out;
}
}  // namespace

std::map<std::string, std::string> Client::get_db_node_info(const std::string& address) {
  const Reply r = router_->at(address).command({"INFO", "everything"});
  std::map<std::string, std::string> fields;
  std::istringstream lines(std::string(r->str, r->len));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    fields[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return fields;
}

std::map<std::string, std::string> Client::config_get(const std::string& expression, const std::string& address) {
  const Reply r = router_->at(address).command({"CONFIG", "GET", expression});
  std::map<std::string, std::string> out;
  for (size_t i = 0; i + 1 < r->elements; i += 2)
    out[std::string(r->element[i]->str, r->element[i]->len)] =
        std::string(r->element[i + 1]->str, r->element[i + 1]->len);
  return out;
}

void Client::config_set(const std::string& parameter, const std::string& value, const std::string& address) {
  router_->at(address).command({"CONFIG", "SET", parameter, value});
}

void Client::save(const std::vector<std::string>& addresses) {
  for (Connection* c : servers(*router_, addresses)) c->command({"SAVE"});
}

void Client::flush_db(const std::vector<std::string>& addresses) {
  for (Connection* c : servers(*router_, addresses)) c->command({"FLUSHDB"});
}

}  // namespace ssim::client
