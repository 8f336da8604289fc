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
// "host:port" -> {host, port}; "unix:/path" -> {/path, 0}. Throws ConnectionError.
std::pair<std::string, int> split_address(const std::string& address);

class Router {
 public:
  // `addresses`: "host:port[,host:port...]". Connects to the first that answers.
  Router(const std::string& addresses, std::string password, std::chrono::milliseconds timeout);

  bool is_cluster() const { return cluster_; }
  Connection& for_key(std::string_view key);
  Connection& at(const std::string& address);  // connects on first use
  // Connections to `address` go to `instead` (a shard's own Unix socket, for a program
  // on its node). Before the first connection to `address`.
  void connect_via(const std::string& address, const std::string& instead) { via_[address] = instead; }
  std::vector<Connection*> masters();
  // The address of the server that holds `key` (the one server when not a cluster).
  std::string address_for_key(std::string_view key);
  // Every master's address.
  std::vector<std::string> master_addresses();
  // True when slot `slot` is served by `address`.
  bool serves(const std::string& address, uint16_t slot) const { return !cluster_ || slots_[slot] == address; }
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
  std::map<std::string, std::string> via_;
  std::string single_;  // address of the one server, when not a cluster
  std::array<std::string, 16384> slots_;
  int ask_slot_ = -1;
  std::string ask_address_;
};

}  // namespace ssim::client
