#pragma once
// A small synchronous connection to one database server over hiredis, for the
// orchestrator's own commands (AUTH, PING, CLUSTER, SHUTDOWN). The data client for
// tensors is lib/client.
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct redisContext;

namespace ssim::orchestrator {

struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class DbConnection {
 public:
  // Connects (and authenticates when `password` is not empty) within `timeout`.
  DbConnection(const std::string& host, int port, const std::string& password,
               std::chrono::milliseconds timeout);
  ~DbConnection();
  DbConnection(const DbConnection&) = delete;
  DbConnection& operator=(const DbConnection&) = delete;

  // Runs one command; returns the reply as text (status, string or integer). Throws
  // DbError for an error reply or a broken connection.
  std::string command(const std::vector<std::string>& argv);

 private:
  redisContext* ctx_ = nullptr;
  std::string where_;
};

}  // namespace ssim::orchestrator
