#pragma once
// One caller's connection to the service: AUTH, PING, RUNMODEL, RUNSCRIPT, FORGET, STATS
// (the requests are listed in lib/client/WIRE_FORMAT.md, "The inference service").
#include <memory>
#include <string>

#include "apps/ssim-infer/model_cache.hpp"
#include "lib/client/resp_server.hpp"
#include "apps/ssim-infer/service_stats.hpp"
#include "lib/client/client.hpp"

namespace ssim::infer {

using resp::Reply;
using resp::Session;

struct ServiceContext {
  std::string db;        // the shard beside which the service runs ("host:port")
  std::string local;     // "unix:/path" of that shard's socket, or "": the way to it
  std::string password;  // the database's, which callers must give too
  ModelCache* models;
  ServiceStats* stats;
};

class RequestSession : public Session {
 public:
  explicit RequestSession(const ServiceContext& context) : context_(context) {}
  Reply handle(std::vector<std::string>& argv) override;

 private:
  Reply run(const std::vector<std::string>& argv, bool script);
  client::Client& db();

  const ServiceContext& context_;
  bool authenticated_ = false;
  std::unique_ptr<client::Client> db_;  // this connection's own: a Client is not shared between threads
};

}  // namespace ssim::infer
