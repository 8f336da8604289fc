#include "lib/client/bulk.hpp"

#include <algorithm>
#include <optional>

namespace ssim::client {

namespace {
Pipeline& pipeline_for(std::vector<std::pair<Connection*, Pipeline>>& per_node, Connection* c) {
  for (auto& [conn, p] : per_node)
    if (conn == c) return p;
  per_node.emplace_back(c, Pipeline{});
  return per_node.back().second;
}
}  // namespace

void SetBatch::set(std::string key, std::vector<std::string_view> pieces) {
  keys_.push_back(std::move(key));
  Connection* c = &router_.for_key(keys_.back());
  Pipeline& p = pipeline_for(per_node_, c);
  if (router_.asking(keys_.back())) p.add({"ASKING"});  // its +OK is read like the SET's
  p.add_set(keys_.back(), pieces);
}

void SetBatch::add(std::string key, const std::vector<std::string_view>& argv) {
  keys_.push_back(std::move(key));
  Connection* c = &router_.for_key(keys_.back());
  Pipeline& p = pipeline_for(per_node_, c);
  if (router_.asking(keys_.back())) p.add({"ASKING"});
  p.add(argv);
}

void SetBatch::run() {
  for (auto& [c, p] : per_node_) c->send(p);
  std::optional<ReplyError> first;
  for (auto& [c, p] : per_node_) {
    for (size_t i = 0; i < p.size(); ++i) {
      try {
        c->read_status();
      } catch (const ReplyError& e) {
        if (!first) first = e;
      }
    }
  }
  per_node_.clear();
  keys_.clear();
  if (first) throw *first;
}

void read_chunks(Router& router, const std::vector<ChunkRead>& chunks) {
  // Group per shard (a tensor's chunks share one hash tag, so normally one shard).
  std::vector<std::pair<Connection*, std::vector<const ChunkRead*>>> per_node;
  for (const auto& ch : chunks) {
    Connection* c = &router.for_key(ch.key);
    auto it = std::find_if(per_node.begin(), per_node.end(), [&](const auto& p) { return p.first == c; });
    if (it == per_node.end()) {
      per_node.emplace_back(c, std::vector<const ChunkRead*>{});
      it = per_node.end() - 1;
    }
    it->second.push_back(&ch);
  }
  // A sliding window of GETs in flight: enough to keep the socket busy, few enough that
  // the server does not queue tens of megabytes of replies (it then writes them 64 KiB
  // per event-loop turn, ~10x slower: measured 0.36 vs 2.4 GB/s at 64 MiB).
  constexpr size_t kWindow = 4;
  std::optional<ReplyError> first;
  std::string missing;
  for (auto& [c, list] : per_node) {
    size_t sent = 0;
    auto send_upto = [&, conn = c](size_t n) {
      Pipeline p;
      for (; sent < std::min(n, list.size()); ++sent) {
        if (router.asking(list[sent]->key)) p.add({"ASKING"});
        p.add({"GET", list[sent]->key});
      }
      if (!p.empty()) conn->send(p);
    };
    send_upto(kWindow);
    for (size_t i = 0; i < list.size(); ++i) {
      const ChunkRead* ch = list[i];
      try {
        if (router.asking(ch->key)) c->read_status();  // ASKING's +OK
        const auto len = c->read_bulk_length();
        if (!len) {
          if (missing.empty()) missing = ch->key;
        } else {
          const bool fits = *len == ch->bytes;
          c->read_bytes(fits ? ch->dst : nullptr, *len);
          c->end_bulk();
          if (!fits && missing.empty()) missing = ch->key + " (wrong size)";
        }
      } catch (const ReplyError& e) {
        if (!first) first = e;
      }
      send_upto(i + 1 + kWindow);
    }
  }
  if (first) throw *first;
  if (!missing.empty())
    throw KeyNotFound("tensor chunk " + missing + " is missing: the tensor was deleted or rewritten");
}

}  // namespace ssim::client
