#include "lib/client/resp_writer.hpp"

namespace ssim::resp {

namespace {
void append_line(std::string& out, char type, std::string_view text) {
  out += type;
  for (char c : text) out += (c == '\r' || c == '\n') ? ' ' : c;
  out += "\r\n";
}
}  // namespace

void append_simple(std::string& out, std::string_view text) { append_line(out, '+', text); }
void append_error(std::string& out, std::string_view text) { append_line(out, '-', text); }

void append_integer(std::string& out, int64_t value) {
  out += ':';
  out += std::to_string(value);
  out += "\r\n";
}

void append_bulk(std::string& out, std::string_view bytes) {
  out += '$';
  out += std::to_string(bytes.size());
  out += "\r\n";
  out.append(bytes.data(), bytes.size());
  out += "\r\n";
}

void append_nil(std::string& out) { out += "$-1\r\n"; }

void append_array(std::string& out, size_t elements) {
  out += '*';
  out += std::to_string(elements);
  out += "\r\n";
}

void append_reply(std::string& out, const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS:
      append_simple(out, std::string_view(r->str, r->len));
      return;
    case REDIS_REPLY_ERROR:
      append_error(out, std::string_view(r->str, r->len));
      return;
    case REDIS_REPLY_INTEGER:
      append_integer(out, r->integer);
      return;
    case REDIS_REPLY_NIL:
      append_nil(out);
      return;
    case REDIS_REPLY_ARRAY:
      append_array(out, r->elements);
      for (size_t i = 0; i < r->elements; ++i) append_reply(out, r->element[i]);
      return;
    default:
      append_bulk(out, std::string_view(r->str, r->len));
      return;
  }
}

}  // namespace ssim::resp
