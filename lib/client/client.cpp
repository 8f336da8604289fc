#include "lib/client/client.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "lib/client/bulk.hpp"
#include "lib/client/client_internal.hpp"
#include "lib/client/router.hpp"
#include "lib/client/wire_format.hpp"

namespace ssim::client {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string dims_text(const std::vector<uint64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

}  // namespace

std::chrono::milliseconds connect_timeout() {
  const std::string s = env("SSIM_CONNECT_TIMEOUT");
  return std::chrono::milliseconds(static_cast<long>((s.empty() ? 10.0 : std::atof(s.c_str())) * 1000));
}

// SSIM_DATABASE first: behind the SmartRedis door (smartredis: true) SSDB is the door's,
// and ssim's own client goes to the database directly.
Client::Client() : Client(env("SSIM_DATABASE").empty() ? env("SSDB") : env("SSIM_DATABASE"), env("SSDB_PASSWORD")) {}

Client::Client(const std::string& address, const std::string& password)
    : router_(std::make_unique<Router>(address, password, connect_timeout())),
      password_(password),
      chunk_bytes_(kDefaultChunkBytes) {
  out_prefix_ = env("SSKEYOUT");
  sources_ = split_list(env("SSKEYIN"));
  source_ = sources_.empty() ? out_prefix_ : sources_.front();
}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;

bool Client::is_cluster() const { return router_->is_cluster(); }
void Client::scramble_slot_map_for_tests() { router_->scramble_for_tests(); }
void Client::connect_via(const std::string& address, const std::string& instead) {
  router_->connect_via(address, instead);
}

void Client::set_data_source(const std::string& source) {
  bool known = source == out_prefix_ && !source.empty();
  for (const auto& s : sources_) known = known || s == source;
  if (!known)
    throw ClientError("data source \"" + source + "\" is neither in SSKEYIN (" + env("SSKEYIN") + ") nor SSKEYOUT (" +
                      out_prefix_ + ")");
  source_ = source;
}

std::string Client::put_key(const std::string& name, bool on) const {
  return on && !out_prefix_.empty() ? out_prefix_ + "." + name : name;
}

std::string Client::get_key(const std::string& name, bool on) const {
  return on && !source_.empty() ? source_ + "." + name : name;
}

// ---- tensors ----------------------------------------------------------------

void Client::put_tensor_key(const std::string& key, const void* data, const std::vector<uint64_t>& dims, DType dtype) {
  if (dims.size() > kMaxRank) throw TypeMismatch("tensors have at most " + std::to_string(kMaxRank) + " dimensions");
  TensorHeader h;
  h.dtype = dtype;
  h.dims = dims;
  h.payload_bytes = payload_size(dtype, dims);
  h.chunk_bytes = chunk_bytes_;
  const char* bytes = static_cast<const char*>(data);
  with_redirects([&] {
    if (h.payload_bytes <= chunk_bytes_) {
      h.chunks = 0;
      const std::string header = encode_header(h);
      SetBatch batch(*router_);
      batch.set(key, {header, std::string_view(bytes, h.payload_bytes)});
      batch.run();
      return;
    }
    h.chunks = static_cast<uint32_t>((h.payload_bytes + chunk_bytes_ - 1) / chunk_bytes_);
    SetBatch chunks(*router_);
    for (uint32_t i = 0; i < h.chunks; ++i) {
      const uint64_t off = static_cast<uint64_t>(i) * chunk_bytes_;
      chunks.set(chunk_key(key, i),
                 {std::string_view(bytes + off, std::min<uint64_t>(chunk_bytes_, h.payload_bytes - off))});
    }
    chunks.run();
    // The header last: a reader that finds it finds every chunk.
    const std::string header = encode_header(h);
    SetBatch head(*router_);
    head.set(key, {header});
    head.run();
  });
}

namespace {
// Reads one GET reply holding a tensor: the header, then the inline payload straight
// into allocate(header) (nullptr: discard). For a chunked tensor returns the chunk reads
// still to do. Always consumes the whole reply before throwing.
std::vector<ChunkRead> read_tensor_reply(Connection& c, const std::string& key,
                                         const std::function<void*(const TensorHeader&)>& allocate) {
  const auto len = c.read_bulk_length();
  if (!len) throw KeyNotFound("no tensor \"" + key + "\" in the database");
  std::string head(kHeaderFixed, '\0');
  if (*len < kHeaderFixed) {
    c.read_bytes(nullptr, *len);
    c.end_bulk();
    throw TypeMismatch("\"" + key + "\" does not hold an ssim tensor");
  }
  c.read_bytes(head.data(), kHeaderFixed);
  const size_t full = std::min<uint64_t>(header_size(head), *len);
  head.resize(full);
  c.read_bytes(head.data() + kHeaderFixed, full - kHeaderFixed);
  TensorHeader h;
  try {
    h = decode_header(head, *len, key);
  } catch (...) {
    c.read_bytes(nullptr, *len - full);
    c.end_bulk();
    throw;
  }
  char* dst = static_cast<char*>(allocate(h));
  if (h.chunks == 0) {
    c.read_bytes(dst, h.payload_bytes);  // straight into the destination
    c.end_bulk();
    return {};
  }
  c.read_bytes(nullptr, *len - full);
  c.end_bulk();
  std::vector<ChunkRead> reads;
  for (uint32_t i = 0; i < h.chunks; ++i) {
    const uint64_t off = static_cast<uint64_t>(i) * h.chunk_bytes;
    reads.push_back(
        {chunk_key(key, i), dst ? dst + off : nullptr, std::min<uint64_t>(h.chunk_bytes, h.payload_bytes - off)});
  }
  return reads;
}
}  // namespace

void Client::get_tensor_key(const std::string& key, const std::function<void*(const TensorHeader&)>& allocate) {
  with_redirects([&] {
    Connection& c = router_->for_key(key);
    Pipeline p;
    const bool asking = router_->asking(key);
    if (asking) p.add({"ASKING"});
    p.add({"GET", key});
    c.send(p);
    if (asking) c.read_status();
    const auto chunks = read_tensor_reply(c, key, allocate);
    if (!chunks.empty()) read_chunks(*router_, chunks);
  });
}

void Client::put_tensors(const std::vector<TensorRef>& tensors) {
  with_redirects([&] {
    SetBatch batch(*router_);
    std::vector<std::string> headers;
    headers.reserve(tensors.size());
    for (const auto& t : tensors) {
      TensorHeader h;
      h.dtype = t.dtype;
      h.dims = t.dims;
      h.payload_bytes = payload_size(t.dtype, t.dims);
      h.chunk_bytes = chunk_bytes_;
      if (h.payload_bytes > chunk_bytes_) {  // big ones go the chunked way, on their own
        put_tensor(t.name, t.data, t.dims, t.dtype);
        continue;
      }
      headers.push_back(encode_header(h));
      batch.set(put_key(t.name, tensor_prefix_),
                {headers.back(), std::string_view(static_cast<const char*>(t.data), h.payload_bytes)});
    }
    batch.run();
  });
}

std::vector<Tensor> Client::get_tensors(const std::vector<std::string>& names) {
  return with_redirects([&] {
    std::vector<std::string> keys;
    std::vector<std::pair<Connection*, Pipeline>> per_node;
    std::vector<Connection*> conn_of;
    for (const auto& n : names) {
      keys.push_back(get_key(n, tensor_prefix_));
      Connection* c = &router_->for_key(keys.back());
      conn_of.push_back(c);
      auto it = std::find_if(per_node.begin(), per_node.end(), [&](const auto& p) { return p.first == c; });
      if (it == per_node.end()) {
        per_node.emplace_back(c, Pipeline{});
        it = per_node.end() - 1;
      }
      if (router_->asking(keys.back())) it->second.add({"ASKING"});
      it->second.add({"GET", keys.back()});
    }
    for (auto& [c, p] : per_node) c->send(p);
    std::vector<Tensor> out(names.size());
    std::vector<ChunkRead> chunked;
    std::exception_ptr first;
    // Replies come back per connection in the order sent.
    for (auto& [c, p] : per_node) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (conn_of[i] != c) continue;
        try {
          if (router_->asking(keys[i])) c->read_status();  // ASKING's +OK
          auto more = read_tensor_reply(*c, keys[i], [&](const TensorHeader& h) {
            out[i] = Tensor(h.dtype, h.dims);
            return out[i].data();
          });
          chunked.insert(chunked.end(), more.begin(), more.end());
        } catch (...) {
          if (!first) first = std::current_exception();
        }
      }
    }
    if (first) std::rethrow_exception(first);
    if (!chunked.empty()) read_chunks(*router_, chunked);
    return out;
  });
}

Tensor Client::get_tensor_at(const std::string& key) {
  Tensor t;
  get_tensor_key(key, [&](const TensorHeader& h) {
    t = Tensor(h.dtype, h.dims);
    return t.data();
  });
  return t;
}

void Client::put_tensor(const std::string& name, const void* data, const std::vector<uint64_t>& dims, DType dtype) {
  put_tensor_key(put_key(name, tensor_prefix_), data, dims, dtype);
}

Tensor Client::get_tensor(const std::string& name) { return get_tensor_at(get_key(name, tensor_prefix_)); }

void Client::get_tensor_into(const std::string& name,
                             const std::function<void*(DType, const std::vector<uint64_t>&)>& allocate) {
  get_tensor_key(get_key(name, tensor_prefix_), [&](const TensorHeader& h) { return allocate(h.dtype, h.dims); });
}

void Client::unpack_tensor(const std::string& name, void* data, const std::vector<uint64_t>& dims, DType dtype) {
  const std::string key = get_key(name, tensor_prefix_);
  std::string mismatch;
  get_tensor_key(key, [&](const TensorHeader& h) -> void* {
    if (h.dtype == dtype && h.dims == dims) return data;
    mismatch = "\"" + key + "\" is " + dtype_name(h.dtype) + dims_text(h.dims) + ", the buffer is " +
               dtype_name(dtype) + dims_text(dims);
    return nullptr;  // read and discard, then report
  });
  if (!mismatch.empty()) throw TypeMismatch(mismatch);
}

bool Client::tensor_exists(const std::string& name) {
  const std::string key = get_key(name, tensor_prefix_);
  return with_redirects([&] { return router_->command(key, {"EXISTS", key})->integer == 1; });
}

bool Client::poll_tensor(const std::string& name, int interval_ms, int tries) {
  return poll_until([&] { return tensor_exists(name); }, interval_ms, tries);
}

std::optional<uint32_t> Client::stored_chunks(const std::string& key) {
  try {
    return with_redirects([&]() -> std::optional<uint32_t> {
      const Reply head = router_->command(key, {"GETRANGE", key, "0", std::to_string(kHeaderFixed + 8 * kMaxRank - 1)});
      const std::string_view bytes(head->str, head->len);
      if (bytes.size() < kHeaderFixed || bytes.substr(0, 4) != "SSTN") return std::nullopt;  // other bytes
      uint32_t chunks = 0;
      std::memcpy(&chunks, bytes.data() + 8, sizeof chunks);  // WIRE_FORMAT.md: offset 8, little-endian
      return chunks;
    });
  } catch (const ReplyError& e) {
    if (e.text.rfind("WRONGTYPE", 0) == 0) return std::nullopt;  // a hash, a list...
    throw;
  }
}

void Client::delete_tensor_key(const std::string& key) {
  with_redirects([&] {
    const Reply head = router_->command(key, {"GETRANGE", key, "0", std::to_string(kHeaderFixed + 8 * kMaxRank - 1)});
    if (head->len == 0) throw KeyNotFound("no tensor \"" + key + "\" in the database");
    uint32_t chunks = 0;
    try {
      const std::string_view bytes(head->str, head->len);
      if (bytes.size() >= kHeaderFixed)
        chunks = decode_header(bytes.substr(0, header_size(bytes)), bytes.size(), key).chunks;
    } catch (const TypeMismatch&) {
      // Not a tensor or an inline one: only the key itself goes.
    }
    for (uint32_t i = 0; i < chunks; ++i) {
      const std::string ck = chunk_key(key, i);
      router_->command(ck, {"DEL", ck});
    }
    router_->command(key, {"DEL", key});
  });
}

void Client::delete_tensor(const std::string& name) { delete_tensor_key(get_key(name, tensor_prefix_)); }

void Client::copy_tensor(const std::string& source, const std::string& destination) {
  const Tensor t = get_tensor_at(get_key(source, tensor_prefix_));
  put_tensor_key(put_key(destination, tensor_prefix_), t.data(), t.dims(), t.dtype());
}

void Client::rename_tensor(const std::string& source, const std::string& destination) {
  copy_tensor(source, destination);
  delete_tensor_key(get_key(source, tensor_prefix_));
}

}  // namespace ssim::client
