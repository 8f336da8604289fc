#pragma once
// Pipelined bulk operations over the router: many SETs, or many GETs read straight
// into their destinations, grouped per shard, one writev per shard. Every reply is read
// before an error is thrown, so connections stay in step.
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "lib/client/router.hpp"

namespace ssim::client {

class SetBatch {
 public:
  explicit SetBatch(Router& router) : router_(router) {}
  // The value is the concatenation of `pieces`, which must stay alive until run().
  void set(std::string key, std::vector<std::string_view> pieces);
  // Any command answered by a status or an integer (DEL, HSET), in the same pipeline;
  // `argv` is copied.
  void add(std::string key, const std::vector<std::string_view>& argv);
  void run();

 private:
  Router& router_;
  std::deque<std::string> keys_;
  std::vector<std::pair<Connection*, Pipeline>> per_node_;
};

struct ChunkRead {
  std::string key;
  char* dst;  // nullptr: read and discard
  uint64_t bytes;
};
// GETs every chunk into its destination; a missing or wrong-sized chunk throws.
void read_chunks(Router& router, const std::vector<ChunkRead>& chunks);

}  // namespace ssim::client
