#include "apps/ssim-door/door_session.hpp"

#include <strings.h>

#include <algorithm>
#include <cstdlib>

#include "lib/client/connection.hpp"
#include "lib/client/errors.hpp"
#include "lib/client/redisai_command.hpp"
#include "lib/client/resp_writer.hpp"

namespace ssim::door {

namespace redisai = client::redisai;

namespace {

constexpr const char* kNoTensor = "ERR tensor key is empty or in a different shard";
constexpr const char* kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";

std::string upper(const std::string& word) {
  std::string out = word;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

std::string ok() { return "+OK\r\n"; }

std::string error(const std::string& text) {
  std::string out;
  resp::append_error(out, text);
  return out;
}

std::string bulk(std::string_view bytes) {
  std::string out;
  resp::append_bulk(out, bytes);
  return out;
}

std::vector<std::string_view> views(const std::vector<std::string>& argv, size_t from = 0) {
  return {argv.begin() + static_cast<long>(from), argv.end()};
}

// The integer of a reply the database wrote (":N"), or 0.
int64_t integer_of(const std::string& reply) {
  return reply.size() > 1 && reply[0] == ':' ? std::strtoll(reply.c_str() + 1, nullptr, 10) : 0;
}

// The first line of an ssim error, in RedisAI's shape ("ERR ...").
std::string as_redis_error(const std::exception& e) {
  std::string text = e.what();
  text = text.substr(0, text.find('\n'));
  return text.rfind("ERR ", 0) == 0 || text.rfind("WRONGTYPE", 0) == 0 ? text : "ERR " + text;
}

}  // namespace

client::Client& DoorSession::db() {
  if (!db_) {
    db_ = std::make_unique<client::Client>(context_.database, context_.password);
    // SmartRedis sends whole keys, already prefixed by its own SSKEYOUT / SSKEYIN rules.
    db_->use_tensor_prefix(false);
    db_->use_dataset_prefix(false);
    db_->use_list_prefix(false);
    db_->use_model_ensemble_prefix(false);
  }
  return *db_;
}

resp::Reply DoorSession::handle(std::vector<std::string>& argv) {
  resp::Reply reply;
  reply.raw = true;
  try {
    const std::string command = upper(argv[0]);
    if (command == "AI.TENSORGET") return tensor_get(argv);  // a reply in pieces: the tensor's bytes as they lie
    reply.text = dispatch(command, argv);
  } catch (const redisai::CommandError& e) {
    reply.text = error(e.what());
  } catch (const client::ConnectionError& e) {
    reply.text = error(as_redis_error(e));
    db_.reset();  // the next command connects again
  } catch (const std::exception& e) {
    reply.text = error(as_redis_error(e));
  }
  return reply;
}

std::string DoorSession::dispatch(const std::string& command, const std::vector<std::string>& argv) {
  if (command == "PING") return argv.size() > 1 ? bulk(argv[1]) : "+PONG\r\n";
  if (command == "AUTH" || command == "SELECT" || command == "CLIENT" || command == "READONLY") return ok();
  if (command == "QUIT") return ok();
  if (command == "AI.TENSORSET") return tensor_set(argv);
  if (command == "AI.MODELSTORE" || command == "AI.MODELSET") return model_store(argv);
  if (command == "AI.MODELGET") return model_get(argv);
  if (command == "AI.MODELDEL") return model_delete(argv, false);
  if (command == "AI.SCRIPTDEL") return model_delete(argv, true);
  if (command == "AI.SCRIPTSET") return script_store(argv, true);
  if (command == "AI.SCRIPTSTORE") return script_store(argv, false);
  if (command == "AI.SCRIPTGET") return script_get(argv);
  if (command == "AI.MODELEXECUTE" || command == "AI.MODELRUN" || command == "AI.SCRIPTEXECUTE" ||
      command == "AI.SCRIPTRUN")
    return execute(argv, command);
  if (command == "AI.CONFIG") return config(argv);
  if (command == "AI.INFO") return info(argv);
  if (command.rfind("AI.", 0) == 0)
    return error("ERR ssim does not serve " + command + " (the RedisAI commands SmartRedis sends are served)");
  if (command == "DEL" || command == "UNLINK") return remove(argv);
  if (command == "RENAME") return rename(argv);
  if (command == "EXISTS" || command == "TOUCH") return count_per_key(argv);
  if (command == "CLUSTER") return cluster(argv);
  if (command == "FLUSHDB" || command == "FLUSHALL")
    return error(
        "ERR ssim keeps its own records in the experiment's database (inference services, metrics): "
        "delete your keys instead of flushing it");
  return pass_on(command, argv);
}

std::string DoorSession::tensor_set(const std::vector<std::string>& argv) {
  const auto set = redisai::parse_tensorset(argv);
  db().put_tensor(set.key, set.data().data(), set.dims, set.dtype);
  return ok();
}

// The tensor's bytes go out from where they were read in, with no copy between.
resp::Reply DoorSession::tensor_get(const std::vector<std::string>& argv) {
  const auto form = redisai::parse_tensorget(argv);
  resp::Reply reply;
  reply.raw = true;
  try {
    auto tensor = std::make_shared<const client::Tensor>(db().get_tensor(form.key));
    auto pieces = redisai::tensorget_reply(form, *tensor);
    reply.text = std::move(pieces.head);
    reply.payload = pieces.payload;
    reply.tail = std::move(pieces.tail);
    reply.keep = std::move(tensor);
  } catch (const client::KeyNotFound&) {
    reply.text = error(kNoTensor);
  } catch (const client::TypeMismatch&) {
    reply.text = error(kWrongType);
  }
  return reply;
}

std::string DoorSession::model_store(const std::vector<std::string>& argv) {
  const auto store = redisai::parse_modelstore(argv);
  if (strcasecmp(store.backend.c_str(), "TORCH") != 0)
    return error("ERR Backend not loaded: " + upper(store.backend) +
                 " (ssim runs TorchScript models only, in its inference service: store the model with backend TORCH)");
  db().set_model(store.key, store.blob, "TORCH", store.device, store.batch_size, store.min_batch_size,
                 store.min_batch_timeout, store.tag, store.inputs, store.outputs);
  return ok();
}

std::string DoorSession::model_get(const std::vector<std::string>& argv) {
  if (argv.size() < 2) throw redisai::CommandError("ERR wrong number of arguments for 'AI.MODELGET' command");
  if (!db().model_exists(argv[1])) return error("ERR model key is empty");
  const std::string blob = db().get_model(argv[1]);
  const bool meta = std::any_of(argv.begin() + 2, argv.end(), [](const auto& w) { return upper(w) == "META"; });
  const bool with_blob =
      argv.size() == 2 || std::any_of(argv.begin() + 2, argv.end(), [](const auto& w) { return upper(w) == "BLOB"; });
  if (!meta) return bulk(blob);
  std::string out;
  resp::append_array(out, with_blob ? 18 : 16);
  for (const char* field : {"backend", "TORCH", "device", "CPU", "tag", "", "batchsize"}) resp::append_bulk(out, field);
  resp::append_integer(out, 0);
  resp::append_bulk(out, "minbatchsize");
  resp::append_integer(out, 0);
  resp::append_bulk(out, "inputs");
  resp::append_array(out, 0);
  resp::append_bulk(out, "outputs");
  resp::append_array(out, 0);
  resp::append_bulk(out, "minbatchtimeout");
  resp::append_integer(out, 0);
  if (with_blob) {
    resp::append_bulk(out, "blob");
    resp::append_bulk(out, blob);
  }
  return out;
}

std::string DoorSession::model_delete(const std::vector<std::string>& argv, bool script) {
  if (argv.size() != 2)
    throw redisai::CommandError(std::string("ERR wrong number of arguments for '") +
                                (script ? "AI.SCRIPTDEL" : "AI.MODELDEL") + "' command");
  try {
    script ? db().delete_script(argv[1]) : db().delete_model(argv[1]);
  } catch (const client::KeyNotFound&) {
    return error(script ? "ERR script key is empty" : "ERR model key is empty");
  }
  return ok();
}

std::string DoorSession::script_store(const std::vector<std::string>& argv, bool deprecated_form) {
  const auto store = deprecated_form ? redisai::parse_scriptset(argv) : redisai::parse_scriptstore(argv);
  db().set_script(store.key, store.device, store.source);
  return ok();
}

std::string DoorSession::script_get(const std::vector<std::string>& argv) {
  if (argv.size() < 2) throw redisai::CommandError("ERR wrong number of arguments for 'AI.SCRIPTGET' command");
  if (!db().model_exists(argv[1])) return error("ERR script key is empty");
  return bulk(db().get_script(argv[1]));
}

std::string DoorSession::execute(const std::vector<std::string>& argv, const std::string& command) {
  const bool script = command.find("SCRIPT") != std::string::npos;
  const redisai::Execute run = command == "AI.MODELEXECUTE" ? redisai::parse_modelexecute(argv)
                               : command == "AI.MODELRUN"   ? redisai::parse_modelrun(argv)
                               : command == "AI.SCRIPTRUN"  ? redisai::parse_scriptrun(argv)
                                                            : redisai::parse_scriptexecute(argv);
  try {
    script ? db().run_script(run.key, run.function, run.inputs, run.outputs)
           : db().run_model(run.key, run.inputs, run.outputs);
  } catch (const client::ClientError& e) {
    // RedisAI's words for the common case, ssim's reason for every other.
    if (!db().model_exists(run.key)) return error(script ? "ERR script key is empty" : "ERR model key is empty");
    return error(as_redis_error(e));
  }
  return ok();
}

std::string DoorSession::config(const std::vector<std::string>& argv) {
  if (argv.size() >= 3 && upper(argv[1]) == "GET") {
    if (upper(argv[2]) == "MODEL_CHUNK_SIZE") return ":" + std::to_string(redisai::kModelChunkSize) + "\r\n";
    if (upper(argv[2]) == "BACKENDSPATH") return "$-1\r\n";
    return error("ERR unsupported subcommand");
  }
  if (argv.size() >= 2 && (upper(argv[1]) == "MODEL_CHUNK_SIZE" || upper(argv[1]) == "BACKENDSPATH")) return ok();
  if (argv.size() >= 3 && upper(argv[1]) == "LOADBACKEND")
    return upper(argv[2]) == "TORCH" ? ok() : error("ERR error loading backend (ssim serves TORCH models only)");
  return error("ERR unsupported subcommand");
}

std::string DoorSession::info(const std::vector<std::string>& argv) {
  if (argv.size() < 2) throw redisai::CommandError("ERR wrong number of arguments for 'AI.INFO' command");
  if (!db().model_exists(argv[1])) return error("ERR cannot find run info for key");
  std::string out;
  resp::append_array(out, 18);
  for (const auto& field :
       {std::string("key"), argv[1], std::string("type"), std::string("MODEL"), std::string("backend"),
        std::string("TORCH"), std::string("device"), std::string("CPU"), std::string("tag"), std::string("")})
    resp::append_bulk(out, field);
  for (const char* counter : {"duration", "samples", "calls", "errors"}) {
    resp::append_bulk(out, counter);
    resp::append_integer(out, 0);
  }
  return out;
}

// DEL and UNLINK: a key that holds a chunked ssim tensor goes with its chunks.
std::string DoorSession::remove(const std::vector<std::string>& argv) {
  int64_t removed = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto chunks = db().stored_chunks(argv[i]);
    if (chunks && *chunks > 0) {
      db().delete_tensor(argv[i]);
      ++removed;
    } else {
      removed += integer_of(db().forward(argv[i], {argv[0], argv[i]}));
    }
  }
  return ":" + std::to_string(removed) + "\r\n";
}

std::string DoorSession::rename(const std::vector<std::string>& argv) {
  if (argv.size() != 3) throw redisai::CommandError("ERR wrong number of arguments for 'rename' command");
  const auto chunks = db().stored_chunks(argv[1]);
  const bool same = db().same_shard(argv[1], argv[2]);
  if (chunks && (*chunks > 0 || !same)) {
    db().rename_tensor(argv[1], argv[2]);  // the chunks follow; across shards, a copy
    return ok();
  }
  if (same) return db().forward(argv[1], views(argv));
  // Across shards (SmartRedis believes it talks to one server): move the value itself.
  const std::string dumped = db().forward(argv[1], {"DUMP", argv[1]});
  if (dumped.rfind("$-1", 0) == 0) return error("ERR no such key");
  const size_t start = dumped.find("\r\n") + 2;
  const std::string payload = dumped.substr(start, dumped.size() - start - 2);
  const std::string restored = db().forward(argv[2], {"RESTORE", argv[2], "0", payload, "REPLACE"});
  if (restored[0] == '-') return restored;
  db().forward(argv[1], {"DEL", argv[1]});
  return ok();
}

// EXISTS and TOUCH over keys that may live on several shards: the counts added.
std::string DoorSession::count_per_key(const std::vector<std::string>& argv) {
  if (argv.size() == 2) return db().forward(argv[1], views(argv));
  int64_t count = 0;
  for (size_t i = 1; i < argv.size(); ++i) count += integer_of(db().forward(argv[i], {argv[0], argv[i]}));
  return ":" + std::to_string(count) + "\r\n";
}

// The door is a one-node cluster that owns every slot: a program built with
// Client(cluster=True) sends everything here, and the door routes it.
std::string DoorSession::cluster(const std::vector<std::string>& argv) {
  if (argv.size() >= 2 && upper(argv[1]) == "SLOTS") {
    const size_t colon = context_.address.rfind(':');
    std::string out;
    resp::append_array(out, 1);
    resp::append_array(out, 3);
    resp::append_integer(out, 0);
    resp::append_integer(out, 16383);
    resp::append_array(out, 3);
    resp::append_bulk(out, context_.address.substr(0, colon));
    resp::append_integer(out, std::atoi(context_.address.c_str() + colon + 1));
    resp::append_bulk(out, std::string(40, '0'));
    return out;
  }
  return db().forward_to_first(views(argv));
}

// Every other command: to the shard of its first key, or the first shard when it has none.
std::string DoorSession::pass_on(const std::string& command, const std::vector<std::string>& argv) {
  static const char* kKeyless[] = {"INFO",   "CONFIG", "DBSIZE", "TIME",      "SAVE", "BGSAVE", "LASTSAVE", "COMMAND",
                                   "MEMORY", "SCAN",   "KEYS",   "RANDOMKEY", "ECHO", "WAIT",   "LATENCY",  "SLOWLOG"};
  const bool keyless = argv.size() < 2 || std::any_of(std::begin(kKeyless), std::end(kKeyless),
                                                      [&](const char* word) { return command == word; });
  return keyless ? db().forward_to_first(views(argv)) : db().forward(argv[1], views(argv));
}

}  // namespace ssim::door
