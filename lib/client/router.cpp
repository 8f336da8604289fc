#include "lib/client/router.hpp"

#include "lib/client/hash_slot.hpp"

namespace ssim::client {

std::pair<std::string, int> split_address(const std::string& a) {
  if (a.rfind("unix:", 0) == 0) {
    if (a.size() == 5) throw ConnectionError("bad database address \"" + a + "\" (expected unix:/path)");
    return {a.substr(5), 0};
  }
  const size_t colon = a.rfind(':');
  if (colon == std::string::npos) throw ConnectionError("bad database address \"" + a + "\" (expected host:port)");
  return {a.substr(0, colon), std::stoi(a.substr(colon + 1))};
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

Router::Router(const std::string& addresses, std::string password, std::chrono::milliseconds timeout)
    : password_(std::move(password)), timeout_(timeout) {
  const std::vector<std::string> list = split_list(addresses);
  if (list.empty()) throw ConnectionError("no database address (is SSDB set?)");
  std::string errors;
  for (const auto& a : list) {
    try {
      at(a);
      single_ = a;
      break;
    } catch (const AuthError&) {
      throw;
    } catch (const ConnectionError& e) {
      errors += std::string(errors.empty() ? "" : "; ") + e.what();
    }
  }
  if (single_.empty()) throw ConnectionError(errors);
  const Reply info = at(single_).command({"INFO", "cluster"});
  cluster_ = std::string(info->str, info->len).find("cluster_enabled:1") != std::string::npos;
  if (cluster_) refresh();
}

Connection& Router::at(const std::string& address) {
  auto it = conns_.find(address);
  // A connection left out of step by a failed read is dropped, never reused: a fresh one
  // answers the next call, not what the previous call left unread. at() is called before
  // an operation sends anything, never between its send and its reads.
  if (it != conns_.end() && !it->second->in_step()) it = conns_.erase(it), it = conns_.end();
  if (it != conns_.end()) return *it->second;
  const auto via = via_.find(address);
  const auto [host, port] = split_address(via == via_.end() ? address : via->second);
  auto conn = std::make_unique<Connection>(host, port, password_, timeout_);
  return *conns_.emplace(address, std::move(conn)).first->second;
}

void Router::refresh() {
  // CLUSTER SLOTS: [[start, end, [host, port, id], replicas...], ...]
  Reply r;
  for (auto& [address, conn] : conns_) {
    try {
      r = conn->command({"CLUSTER", "SLOTS"});
      break;
    } catch (const ConnectionError&) {
    }
  }
  if (!r || r->type != REDIS_REPLY_ARRAY) throw ConnectionError("cannot read the cluster's slot map");
  for (size_t i = 0; i < r->elements; ++i) {
    const redisReply* range = r->element[i];
    if (range->elements < 3) continue;
    const redisReply* master = range->element[2];
    std::string host(master->element[0]->str, master->element[0]->len);
    if (host.empty()) host = single_.substr(0, single_.rfind(':'));
    const std::string address = host + ":" + std::to_string(master->element[1]->integer);
    for (long long s = range->element[0]->integer; s <= range->element[1]->integer; ++s)
      slots_[static_cast<size_t>(s)] = address;
  }
}

void Router::begin_ask(int slot, const std::string& address) {
  ask_slot_ = slot;
  ask_address_ = address;
}

void Router::end_ask() { ask_slot_ = -1; }

bool Router::asking(std::string_view key) const { return cluster_ && ask_slot_ >= 0 && hash_slot(key) == ask_slot_; }

Reply Router::command(std::string_view key, const std::vector<std::string_view>& argv) {
  Connection& c = for_key(key);
  if (asking(key)) c.command({"ASKING"});
  return c.command(argv);
}

Connection& Router::for_key(std::string_view key) {
  if (!cluster_) return at(single_);
  if (asking(key)) return at(ask_address_);
  const std::string& address = slots_[hash_slot(key)];
  if (address.empty()) throw ConnectionError("no shard serves slot " + std::to_string(hash_slot(key)));
  return at(address);
}

std::vector<Connection*> Router::masters() {
  if (!cluster_) return {&at(single_)};
  std::vector<Connection*> out;
  std::map<std::string, bool> seen;
  for (const auto& a : slots_)
    if (!a.empty() && !seen[a]) {
      seen[a] = true;
      out.push_back(&at(a));
    }
  return out;
}

std::string Router::address_for_key(std::string_view key) {
  if (!cluster_) return single_;
  if (asking(key)) return ask_address_;
  return slots_[hash_slot(key)];
}

std::vector<std::string> Router::master_addresses() {
  std::vector<std::string> out;
  for (Connection* c : masters()) out.push_back(c->address());
  return out;
}

void Router::scramble_for_tests() {
  if (!cluster_) return;
  const std::string first = slots_[0];
  slots_.fill(first);
}

}  // namespace ssim::client
