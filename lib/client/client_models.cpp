// Models and scripts: stored in the database as one hash each (model_record.hpp), run by
// the inference service beside the shard that holds the first input (docs/inference.md).
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "lib/client/client.hpp"
#include "lib/client/client_internal.hpp"
#include "lib/client/model_record.hpp"

namespace ssim::client {

namespace {

// A run can take as long as the model does; a service that died is seen at once (the
// socket closes), one that hangs after this.
constexpr std::chrono::hours kServiceIoTimeout{1};

std::string read_whole_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ClientError(std::string("cannot read the ") + what + " file \"" + path + "\"");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string new_version() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  return std::to_string(random());
}

// "ERR model ..." -> "model ...".
std::string reason(const std::string& text) { return text.rfind("ERR ", 0) == 0 ? text.substr(4) : text; }

}  // namespace

// ---- storing ----------------------------------------------------------------

void Client::store_model(const std::string& name, ModelRecord& record) {
  record.device = normalise_device(record.device);
  record.version = new_version();
  const std::string key = model_key(put_key(name, model_prefix_));
  std::vector<std::string> storage;
  std::vector<std::string_view> argv = {"HSET", key};
  for (auto f : model_fields(record, storage)) argv.push_back(f);
  with_redirects([&] {
    router_->command(key, {"DEL", key});
    return router_->command(key, argv);
  });
  forget_everywhere(key, "changed");
}

// Services keep loaded models: every one there is drops `key`'s (a shard without a
// service has nothing cached).
void Client::forget_everywhere(const std::string& key, const std::string& what) {
  for (const auto& shard : router_->master_addresses()) {
    try {
      service_beside(shard);
    } catch (const InferenceError&) {
      continue;
    }
    call_service(shard, {"FORGET", key}, "telling it that " + key + " " + what);
  }
}

void Client::set_model(const std::string& name, const std::string& model, const std::string& backend,
                       const std::string& device, int batch_size, int min_batch_size, int min_batch_timeout,
                       const std::string& tag, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs) {
  std::string b;
  for (char c : backend) b += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (b != "TORCH") throw ClientError("backend \"" + backend + "\": ssim runs TorchScript models only (backend TORCH)");
  if (model.empty()) throw ClientError("model \"" + name + "\" is empty");
  if (batch_size < 0 || min_batch_size < 0 || min_batch_timeout < 0 || min_batch_size > batch_size)
    throw ClientError("model \"" + name +
                      "\": batch_size, min_batch_size and min_batch_timeout must be >= 0, "
                      "and min_batch_size at most batch_size");
  ModelRecord r;
  r.kind = ModelKind::Model;
  r.blob = model;
  r.device = device;
  r.batch_size = batch_size;
  r.min_batch_size = min_batch_size;
  r.min_batch_timeout_ms = min_batch_timeout;
  r.tag = tag;
  r.inputs = inputs;
  r.outputs = outputs;
  store_model(name, r);
}

void Client::set_model_from_file(const std::string& name, const std::string& path, const std::string& backend,
                                 const std::string& device, int batch_size, int min_batch_size, int min_batch_timeout,
                                 const std::string& tag, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs) {
  set_model(name, read_whole_file(path, "model"), backend, device, batch_size, min_batch_size, min_batch_timeout, tag,
            inputs, outputs);
}

void Client::set_script(const std::string& name, const std::string& device, const std::string& script) {
  if (script.empty()) throw ClientError("script \"" + name + "\" is empty");
  ModelRecord r;
  r.kind = ModelKind::Script;
  r.blob = script;
  r.device = device;
  store_model(name, r);
}

void Client::set_script_from_file(const std::string& name, const std::string& device, const std::string& path) {
  set_script(name, device, read_whole_file(path, "script"));
}

// ---- reading and deleting ---------------------------------------------------

std::string Client::read_model_blob(const std::string& name, const char* what) {
  const std::string key = model_key(put_key(name, model_prefix_));
  Reply r = with_redirects([&] { return router_->command(key, {"HGET", key, "blob"}); });
  if (r->type != REDIS_REPLY_STRING) throw KeyNotFound(std::string(what) + " \"" + name + "\" is not stored");
  return std::string(r->str, r->len);
}

std::string Client::get_model(const std::string& name) { return read_model_blob(name, "model"); }
std::string Client::get_script(const std::string& name) { return read_model_blob(name, "script"); }

bool Client::model_exists(const std::string& name) {
  const std::string key = model_key(put_key(name, model_prefix_));
  Reply r = with_redirects([&] { return router_->command(key, {"EXISTS", key}); });
  return r->integer > 0;
}

bool Client::poll_model(const std::string& name, int interval_ms, int tries) {
  return poll_until([&] { return model_exists(name); }, interval_ms, tries);
}

void Client::delete_model_key(const std::string& name, const char* what) {
  const std::string key = model_key(put_key(name, model_prefix_));
  Reply r = with_redirects([&] { return router_->command(key, {"DEL", key}); });
  if (r->integer == 0) throw KeyNotFound(std::string(what) + " \"" + name + "\" is not stored");
  forget_everywhere(key, "was deleted");
}

void Client::delete_model(const std::string& name) { delete_model_key(name, "model"); }
void Client::delete_script(const std::string& name) { delete_model_key(name, "script"); }

// ---- running ----------------------------------------------------------------

Connection& Client::service_beside(const std::string& shard) {
  auto it = services_.find(shard);
  if (it != services_.end() && it->second->in_step()) return *it->second;
  services_.erase(shard);
  const std::string key = inference_registry_key([&](uint16_t slot) { return router_->serves(shard, slot); });
  Reply r = router_->at(shard).command({"GET", key});
  if (r->type != REDIS_REPLY_STRING)
    throw InferenceError("no inference service runs beside the database at " + shard +
                         ": turn it on with `inference: true` in the orchestrator section (docs/inference.md)");
  // "host:port", then " unix:/path" when the service also listens on a Unix socket: the
  // faster way from its own node (elsewhere the path is absent or refuses).
  const std::string value(r->str, r->len);
  const size_t space = value.find(' ');
  const std::string tcp = value.substr(0, space);
  std::vector<std::string> ways;
  if (space != std::string::npos) ways.push_back(value.substr(space + 1));
  ways.push_back(tcp);
  std::string why;
  for (const auto& way : ways) {
    try {
      const auto [host, port] = split_address(way);
      auto c = std::make_unique<Connection>(host, port, password_, connect_timeout(), kServiceIoTimeout);
      return *services_.emplace(shard, std::move(c)).first->second;
    } catch (const ConnectionError& e) {
      why = e.what();
    }
  }
  throw ConnectionError("cannot reach the inference service beside the database at " + shard + " (registered at " +
                        tcp + "): it may have died; see inference.log in the shard's run directory (" + why + ")");
}

void Client::call_service(const std::string& shard, const std::vector<std::string_view>& argv,
                          const std::string& what) {
  // A connection kept from an earlier call may lead to a service that has since died and
  // been started again elsewhere: such a call is tried once more through the registry.
  // (Requests are idempotent: a model run again writes the same outputs.)
  for (int attempt = 0;; ++attempt) {
    const bool kept = services_.count(shard) > 0;
    Connection& c = service_beside(shard);
    try {
      c.command(argv);
      return;
    } catch (const ReplyError& e) {
      throw InferenceError(reason(e.text));
    } catch (const ConnectionError& e) {
      services_.erase(shard);
      if (kept && attempt == 0) continue;
      throw ConnectionError("lost the inference service beside the database at " + shard + " while " + what +
                            ": it may have died (see inference.log in the shard's run directory); " + e.what());
    }
  }
}

void Client::run_call(std::vector<std::string> head, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& outputs, const std::string& what) {
  if (inputs.empty() || outputs.empty()) throw ClientError(what + " needs inputs and outputs");
  std::vector<std::string> args = std::move(head);
  args.push_back(std::to_string(inputs.size()));
  for (const auto& i : inputs) args.push_back(get_key(i, tensor_prefix_));
  args.push_back(std::to_string(outputs.size()));
  for (const auto& o : outputs) args.push_back(put_key(o, tensor_prefix_));
  const std::string first_input = args[args.size() - outputs.size() - inputs.size() - 1];
  const std::vector<std::string_view> argv(args.begin(), args.end());
  call_service(router_->address_for_key(first_input), argv, what);
}

void Client::run_model(const std::string& name, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs) {
  run_call({"RUNMODEL", model_key(get_key(name, model_prefix_))}, inputs, outputs, "running model \"" + name + "\"");
}

void Client::run_script(const std::string& name, const std::string& function, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
  run_call({"RUNSCRIPT", model_key(get_key(name, model_prefix_)), function}, inputs, outputs,
           "running script \"" + name + "\" function \"" + function + "\"");
}

}  // namespace ssim::client
