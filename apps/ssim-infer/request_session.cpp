#include "apps/ssim-infer/request_session.hpp"

#include <chrono>
#include <new>

#include "apps/ssim-infer/service_error.hpp"
#include "apps/ssim-infer/torch_tensors.hpp"

namespace ssim::infer {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// libtorch's messages run to many lines (the TorchScript traceback); the last one says
// what went wrong ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x5 and 4x2)").
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "an error without a message";
  const size_t start = text.find_last_of('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// "NAME failed: WHY", or that it ran out of memory (libtorch's allocators say so in words).
std::string model_failed(const std::string& name, const std::string& why) {
  for (const char* words : {"not enough memory", "can't allocate memory", "out of memory"})
    if (why.find(words) != std::string::npos)
      return "\"" + name + "\" ran out of memory in the inference service: " + why;
  return "\"" + name + "\" failed: " + why;
}

bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

client::Client& RequestSession::db() {
  if (!db_) {
    db_ = std::make_unique<client::Client>(context_.local.empty() ? context_.db : context_.local, context_.password);
    if (!context_.local.empty()) db_->connect_via(context_.db, context_.local);
    db_->use_tensor_prefix(false);  // callers send whole keys
  }
  return *db_;
}

Reply RequestSession::handle(std::vector<std::string>& argv) {
  const std::string verb = upper(argv[0]);
  if (verb == "AUTH") {
    if (argv.size() != 2) return {true, "ERR AUTH takes one argument"};
    authenticated_ = context_.password.empty() || same_secret(argv[1], context_.password);
    return authenticated_ ? Reply{false, "OK"} : Reply{true, "WRONGPASS invalid password"};
  }
  if (!context_.password.empty() && !authenticated_) return {true, "NOAUTH Authentication required."};
  if (verb == "PING") return {false, "PONG"};
  if (verb == "RUNMODEL") return run(argv, false);
  if (verb == "RUNSCRIPT") return run(argv, true);
  if (verb == "FORGET" && argv.size() == 2) {
    context_.models->forget(argv[1]);
    return {false, "OK"};
  }
  if (verb == "STATS") return {false, context_.stats->to_json().dump(), true};
  return {true, "ERR unknown request \"" + argv[0] + "\""};
}

// RUNMODEL KEY N IN... M OUT...   RUNSCRIPT KEY FUNCTION N IN... M OUT...
Reply RequestSession::run(const std::vector<std::string>& argv, bool script) {
  const auto started = std::chrono::steady_clock::now();
  const size_t head = script ? 3 : 2;
  const std::string name = client::model_name(argv.size() > 1 ? argv[1] : "");
  bool ok = false, stored = false;  // calls of models that are not stored are not counted
  Reply reply;
  try {
    size_t n_in = 0, n_out = 0;
    if (argv.size() <= head) throw ServiceError("malformed request");
    n_in = std::stoul(argv[head]);
    if (argv.size() <= head + 1 + n_in) throw ServiceError("malformed request");
    n_out = std::stoul(argv[head + 1 + n_in]);
    if (argv.size() != head + 2 + n_in + n_out) throw ServiceError("malformed request");
    auto model = context_.models->get(argv[1]);
    stored = true;
    if ((model->kind == client::ModelKind::Script) != script)
      throw ServiceError("\"" + name + "\" is a " + (script ? "model" : "script") + ": use run_" +
                         (script ? "model" : "script"));
    Tensors inputs;
    for (size_t i = 0; i < n_in; ++i) inputs.push_back(read_tensor(db(), argv[head + 1 + i]));
    Tensors outputs;
    if (model->batcher) {
      outputs = model->batcher->submit(std::move(inputs));
    } else {
      outputs = model->run(inputs, script ? argv[2] : "");
      context_.stats->batch(name, inputs.empty() || inputs[0].dim() == 0 ? 1 : inputs[0].size(0));
    }
    if (outputs.size() != n_out)
      throw ServiceError("\"" + name + "\" returned " + std::to_string(outputs.size()) + " tensor" +
                         (outputs.size() == 1 ? "" : "s") + ", and " + std::to_string(n_out) + " output name" +
                         (n_out == 1 ? " was" : "s were") + " given");
    for (size_t i = 0; i < n_out; ++i) write_tensor(db(), argv[head + 2 + n_in + i], outputs[i]);
    ok = true;
    reply = {false, "OK"};
  } catch (const ServiceError& e) {
    reply = {true, e.what()};
  } catch (const c10::Error& e) {
    reply = {true, model_failed(name, last_line(e.what_without_backtrace()))};
  } catch (const std::bad_alloc&) {
    reply = {true, "\"" + name + "\" ran out of memory in the inference service"};
  } catch (const client::ClientError& e) {
    db_.reset();  // a fresh connection for the next request
    reply = {true, std::string("the database: ") + e.what()};
  } catch (const std::exception& e) {  // what the TorchScript interpreter raises (with its traceback)
    reply = {true, model_failed(name, last_line(e.what()))};
  }
  if (stored)
    context_.stats->call(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), ok);
  return reply;
}

}  // namespace ssim::infer
