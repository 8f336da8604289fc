#pragma once
// One SmartRedis connection to the door: RedisAI's commands served over ssim's store
// (tensors in ssim's format, models and scripts run by the inference service), plain
// Redis commands passed to the shard that holds their key with the database's password.
// The commands SmartRedis sends and RedisAI's replies are in docs/coming-from-smartsim.md
// and tests/fixtures/smartredis/.
#include <memory>
#include <string>
#include <vector>

#include "lib/client/client.hpp"
#include "lib/client/resp_server.hpp"

namespace ssim::door {

struct DoorContext {
  std::string database;  // SSDB as ssim gave it: the real shards
  std::string password;  // the database's, which SmartRedis cannot send
  std::string address;   // the door's own "127.0.0.1:port", for CLUSTER SLOTS
};

class DoorSession : public resp::Session {
 public:
  explicit DoorSession(const DoorContext& context) : context_(context) {}
  resp::Reply handle(std::vector<std::string>& argv) override;

 private:
  std::string dispatch(const std::string& command, const std::vector<std::string>& argv);  // command: upper case
  std::string tensor_set(const std::vector<std::string>& argv);
  resp::Reply tensor_get(const std::vector<std::string>& argv);
  std::string model_store(const std::vector<std::string>& argv);
  std::string model_get(const std::vector<std::string>& argv);
  std::string model_delete(const std::vector<std::string>& argv, bool script);
  std::string script_store(const std::vector<std::string>& argv, bool deprecated_form);
  std::string script_get(const std::vector<std::string>& argv);
  std::string execute(const std::vector<std::string>& argv, const std::string& command);
  std::string config(const std::vector<std::string>& argv);
  std::string info(const std::vector<std::string>& argv);
  std::string remove(const std::vector<std::string>& argv);
  std::string rename(const std::vector<std::string>& argv);
  std::string count_per_key(const std::vector<std::string>& argv);
  std::string cluster(const std::vector<std::string>& argv);
  std::string pass_on(const std::string& command, const std::vector<std::string>& argv);
  client::Client& db();

  const DoorContext& context_;
  std::unique_ptr<client::Client> db_;  // this connection's own: a Client is not shared between threads
};

}  // namespace ssim::door
