#pragma once
// RESP2 replies written by hand (what a Redis server sends), and a reply read by hiredis
// written back out byte for byte: the SmartRedis door answers in RedisAI's shapes and
// passes the database's own replies on unchanged.
#include <hiredis/hiredis.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ssim::resp {

void append_simple(std::string& out, std::string_view text);  // +text
void append_error(std::string& out, std::string_view text);   // -text (one line)
void append_integer(std::string& out, int64_t value);         // :value
void append_bulk(std::string& out, std::string_view bytes);   // $len bytes
void append_nil(std::string& out);                            // $-1
void append_array(std::string& out, size_t elements);         // *n, the elements follow
// The reply as the server sent it (RESP2 types; hiredis keeps everything needed).
void append_reply(std::string& out, const redisReply* reply);

}  // namespace ssim::resp
