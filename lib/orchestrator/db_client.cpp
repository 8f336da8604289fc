#include "lib/orchestrator/db_client.hpp"

#include <hiredis/hiredis.h>

namespace ssim::orchestrator {

DbConnection::DbConnection(const std::string& host, int port, const std::string& password,
                           std::chrono::milliseconds timeout)
    : where_(host + ":" + std::to_string(port)) {
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  ctx_ = redisConnectWithTimeout(host.c_str(), port, tv);
  if (!ctx_ || ctx_->err) {
    const std::string why = ctx_ ? ctx_->errstr : "out of memory";
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
    throw DbError("cannot connect to " + where_ + ": " + why);
  }
  redisSetTimeout(ctx_, tv);
  if (!password.empty()) command({"AUTH", password});
}

DbConnection::~DbConnection() {
  if (ctx_) redisFree(ctx_);
}

std::string DbConnection::command(const std::vector<std::string>& argv) {
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data()));
  if (!reply) throw DbError(where_ + ": " + (ctx_->errstr[0] ? ctx_->errstr : "connection lost"));
  std::string out;
  const int type = reply->type;
  if (type == REDIS_REPLY_INTEGER) out = std::to_string(reply->integer);
  else if (reply->str) out.assign(reply->str, reply->len);
  freeReplyObject(reply);
  if (type == REDIS_REPLY_ERROR) throw DbError(where_ + ": " + argv[0] + ": " + out);
  return out;
}

}  // namespace ssim::orchestrator
