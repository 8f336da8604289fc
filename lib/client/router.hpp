#pragma once
// Which connection serves a key: the one server, or for a Redis cluster the shard that
// owns the key's hash slot (from CLUSTER SLOTS, refreshed on MOVED).
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/client/connection.hpp"

namespace ssim::client {

// "a,b,,c" -> {a, b, c}: SSDB's addresses, SSKEYIN's names.
std::vector<std::string> split_list(const std::string& text);

class Router {
 public:
  // `addresses`: "host:port[,host:port...]". Connects to the first that answers.
  Router(const std::string& addresses, std::string password, std::chrono::milliseconds timeout);

  bool is_cluster() const { return cluster_; }
  Connection& for_key(std::string_view key);
  Connection& at(const std::string& address);  // connects on first use
  std::vector<Connection*> masters();
  // Re-reads the slot map (after MOVED).
  void refresh();
  // After ASK (a slot being migrated): until end_ask(), keys of `slot` go to the
  // importing node `address`, each command preceded by ASKING.
  void begin_ask(int slot, const std::string& address);
  void end_ask();
  bool asking(std::string_view key) const;
  // A small command for `key`, with ASKING first when the key's slot is being asked.
  Reply command(std::string_view key, const std::vector<std::string_view>& argv);
  // Testing: pretend every slot lives on the first node, so requests meet MOVED.
  void scramble_for_tests();

 private:
  std::string password_;
  std::chrono::milliseconds timeout_;
  bool cluster_ = false;
  std::map<std::string, std::unique_ptr<Connection>> conns_;
  std::string single_;  // address of the one server, when not a cluster
  std::array<std::string, 16384> slots_;
  int ask_slot_ = -1;
  std::string ask_address_;
};

}  // namespace ssim::client
