#include "lib/client/redisai_command.hpp"

#include <strings.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lib/client/resp_writer.hpp"

namespace ssim::client::redisai {

namespace {

bool is(std::string_view word, const char* keyword) {
  return word.size() == std::strlen(keyword) && ::strncasecmp(word.data(), keyword, word.size()) == 0;
}

[[noreturn]] void refuse(const std::string& text) { throw CommandError(text); }

void need_arguments(const std::vector<std::string>& argv, size_t at_least, const char* command) {
  if (argv.size() < at_least) refuse(std::string("ERR wrong number of arguments for '") + command + "' command");
}

// A whole non-negative decimal number, or nothing.
std::optional<int64_t> count_of(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

int64_t number(std::string_view text, const char* what) {
  const auto v = count_of(text);
  if (!v) refuse(std::string("ERR Invalid argument for ") + what);
  return *v;
}

// `count` names after argv[at] (the count itself), returned; `at` moves past them.
std::vector<std::string> counted(const std::vector<std::string>& argv, size_t& at, const char* what) {
  const auto n = at < argv.size() ? count_of(argv[at]) : std::nullopt;
  if (!n || at + 1 + static_cast<size_t>(*n) > argv.size()) refuse(std::string("ERR Invalid argument for ") + what);
  std::vector<std::string> out(argv.begin() + static_cast<long>(at) + 1,
                               argv.begin() + static_cast<long>(at) + 1 + static_cast<long>(*n));
  at += 1 + static_cast<size_t>(*n);
  return out;
}

template <class T>
void pack(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// One VALUES element, packed as `dtype`; false when the text is not a number of it.
bool pack_value(std::string& out, DType dtype, const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  if (dtype == DType::F32 || dtype == DType::F64) {
    const double v = std::strtod(text.c_str(), &end);
    if (*end || errno) return false;
    dtype == DType::F32 ? pack(out, static_cast<float>(v)) : pack(out, v);
    return true;
  }
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end || errno) return false;
  switch (dtype) {
    case DType::I8:
      pack(out, static_cast<int8_t>(v));
      break;
    case DType::I16:
      pack(out, static_cast<int16_t>(v));
      break;
    case DType::I32:
      pack(out, static_cast<int32_t>(v));
      break;
    case DType::I64:
      pack(out, static_cast<int64_t>(v));
      break;
    case DType::U8:
      pack(out, static_cast<uint8_t>(v));
      break;
    case DType::U16:
      pack(out, static_cast<uint16_t>(v));
      break;
    case DType::Bool:
      if (v != 0 && v != 1) refuse("ERR BOOL tensor elements must be 0 or 1");
      pack(out, static_cast<uint8_t>(v));
      break;
    default:
      return false;
  }
  return true;
}

template <class T>
void append_values(std::string& out, const void* data, uint64_t count, bool floating) {
  const auto* p = static_cast<const T*>(data);
  for (uint64_t i = 0; i < count; ++i) {
    if (floating) {
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", static_cast<double>(p[i]));
      resp::append_bulk(out, text);
    } else {
      resp::append_integer(out, static_cast<int64_t>(p[i]));
    }
  }
}

void append_tensor_values(std::string& out, const Tensor& t) {
  uint64_t count = 1;
  for (uint64_t d : t.dims()) count *= d;
  resp::append_array(out, count);
  switch (t.dtype()) {
    case DType::F32:
      append_values<float>(out, t.data(), count, true);
      break;
    case DType::F64:
      append_values<double>(out, t.data(), count, true);
      break;
    case DType::I8:
      append_values<int8_t>(out, t.data(), count, false);
      break;
    case DType::I16:
      append_values<int16_t>(out, t.data(), count, false);
      break;
    case DType::I32:
      append_values<int32_t>(out, t.data(), count, false);
      break;
    case DType::I64:
      append_values<int64_t>(out, t.data(), count, false);
      break;
    case DType::U8:
    case DType::Bool:
      append_values<uint8_t>(out, t.data(), count, false);
      break;
    case DType::U16:
      append_values<uint16_t>(out, t.data(), count, false);
      break;
    default:
      break;  // refused before
  }
}

}  // namespace

std::optional<DType> redisai_type(std::string_view name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"FLOAT", DType::F32}, {"DOUBLE", DType::F64}, {"INT8", DType::I8},
      {"INT16", DType::I16}, {"INT32", DType::I32},  {"INT64", DType::I64},
      {"UINT8", DType::U8},  {"UINT16", DType::U16}, {"BOOL", DType::Bool}};
  for (const auto& [word, dtype] : kNames)
    if (is(name, word)) return dtype;
  return std::nullopt;
}

std::string redisai_type_name(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "FLOAT";
    case DType::F64:
      return "DOUBLE";
    case DType::I8:
      return "INT8";
    case DType::I16:
      return "INT16";
    case DType::I32:
      return "INT32";
    case DType::I64:
      return "INT64";
    case DType::U8:
      return "UINT8";
    case DType::U16:
      return "UINT16";
    case DType::Bool:
      return "BOOL";
    default:
      return "";
  }
}

TensorSet parse_tensorset(const std::vector<std::string>& argv) {
  need_arguments(argv, 4, "AI.TENSORSET");
  TensorSet out;
  out.key = argv[1];
  const auto dtype = redisai_type(argv[2]);
  if (!dtype) refuse("ERR invalid data type");
  out.dtype = *dtype;
  size_t at = 3;
  uint64_t count = 1;
  for (; at < argv.size() && !is(argv[at], "BLOB") && !is(argv[at], "VALUES"); ++at) {
    const auto dim = count_of(argv[at]);
    if (!dim || *dim <= 0) refuse("ERR invalid or negative value found in tensor shape");
    out.dims.push_back(static_cast<uint64_t>(*dim));
    count *= static_cast<uint64_t>(*dim);
  }
  const uint64_t bytes = count * dtype_size(out.dtype);
  if (at == argv.size()) {  // no data: zeros, as RedisAI allocates
    out.values.assign(bytes, '\0');
    return out;
  }
  if (is(argv[at], "BLOB")) {
    if (at + 2 != argv.size())
      refuse("ERR a single binary string should come after the BLOB argument in 'AI.TENSORSET' command");
    if (argv[at + 1].size() != bytes) refuse("ERR data length does not match tensor shape and type");
    out.blob = argv[at + 1];
    return out;
  }
  if (argv.size() - at - 1 != count) refuse("ERR wrong number of values was given in 'AI.TENSORSET' command");
  out.values.reserve(bytes);
  for (size_t i = at + 1; i < argv.size(); ++i)
    if (!pack_value(out.values, out.dtype, argv[i])) refuse("ERR invalid value");
  return out;
}

TensorGet parse_tensorget(const std::vector<std::string>& argv) {
  if (argv.size() < 2 || argv.size() > 4) refuse("ERR wrong number of arguments for 'AI.TENSORGET' command");
  TensorGet out;
  out.key = argv[1];
  if (argv.size() == 2) {
    out.meta = out.blob = true;
    return out;
  }
  for (size_t i = 2; i < argv.size(); ++i) {
    if (is(argv[i], "BLOB"))
      out.blob = true;
    else if (is(argv[i], "VALUES"))
      out.values = true;
    else if (is(argv[i], "META"))
      out.meta = true;
    else
      refuse("ERR unsupported data format");
  }
  if (out.blob && out.values) refuse("ERR both BLOB and VALUES specified");
  return out;
}

ReplyPieces tensorget_reply(const TensorGet& form, const Tensor& t) {
  const std::string name = redisai_type_name(t.dtype());
  ReplyPieces out;
  if (name.empty()) {
    resp::append_error(out.head, "ERR unsupported dtype");
    return out;
  }
  const std::string_view bytes(static_cast<const char*>(t.data()), t.bytes());
  auto blob = [&] {  // "$N\r\n" then the bytes, then "\r\n"
    out.head += '$' + std::to_string(bytes.size()) + "\r\n";
    out.payload = bytes;
    out.tail = "\r\n";
  };
  if (!form.meta && form.blob) {
    blob();
    return out;
  }
  if (!form.meta && form.values) {
    append_tensor_values(out.head, t);
    return out;
  }
  resp::append_array(out.head, (form.blob || form.values) ? 6 : 4);
  resp::append_bulk(out.head, "dtype");
  resp::append_bulk(out.head, name);
  resp::append_bulk(out.head, "shape");
  resp::append_array(out.head, t.dims().size());
  for (uint64_t d : t.dims()) resp::append_integer(out.head, static_cast<int64_t>(d));
  if (form.blob) {
    resp::append_bulk(out.head, "blob");
    blob();
  } else if (form.values) {
    resp::append_bulk(out.head, "values");
    append_tensor_values(out.head, t);
  }
  return out;
}

ModelStore parse_modelstore(const std::vector<std::string>& argv) {
  need_arguments(argv, 4, "AI.MODELSTORE");
  ModelStore out;
  out.key = argv[1];
  out.backend = argv[2];
  out.device = argv[3];
  if (!is(out.backend, "TF") && !is(out.backend, "TFLITE") && !is(out.backend, "TORCH") && !is(out.backend, "ONNX"))
    refuse("ERR unsupported backend");
  size_t at = 4;
  while (at < argv.size() && !is(argv[at], "BLOB")) {
    const std::string& word = argv[at];
    if (is(word, "TAG") && at + 1 < argv.size()) {
      out.tag = argv[at + 1];
      at += 2;
    } else if (is(word, "BATCHSIZE") && at + 1 < argv.size()) {
      out.batch_size = static_cast<int>(number(argv[at + 1], "BATCHSIZE"));
      at += 2;
    } else if (is(word, "MINBATCHSIZE") && at + 1 < argv.size()) {
      out.min_batch_size = static_cast<int>(number(argv[at + 1], "MINBATCHSIZE"));
      at += 2;
    } else if (is(word, "MINBATCHTIMEOUT") && at + 1 < argv.size()) {
      out.min_batch_timeout = static_cast<int>(number(argv[at + 1], "MINBATCHTIMEOUT"));
      at += 2;
    } else if (is(word, "INPUTS")) {
      ++at;
      out.inputs = counted(argv, at, "input_count");
    } else if (is(word, "OUTPUTS")) {
      ++at;
      out.outputs = counted(argv, at, "output_count");
    } else {
      refuse("ERR Invalid argument: " + word);
    }
  }
  if (at + 1 >= argv.size()) refuse("ERR Insufficient arguments, missing model BLOB");
  for (size_t i = at + 1; i < argv.size(); ++i) out.blob += argv[i];
  return out;
}

namespace {
ScriptStore script_head(const std::vector<std::string>& argv, const char* command) {
  need_arguments(argv, 4, command);
  ScriptStore out;
  out.key = argv[1];
  out.device = argv[2];
  return out;
}
// The SOURCE argument at `at` (after an optional TAG): the last word of the command.
void script_source(const std::vector<std::string>& argv, size_t at, ScriptStore& out) {
  if (at + 2 != argv.size() || !is(argv[at], "SOURCE")) refuse("ERR Insufficient arguments, missing script SOURCE");
  out.source = argv[at + 1];
}
}  // namespace

ScriptStore parse_scriptset(const std::vector<std::string>& argv) {
  ScriptStore out = script_head(argv, "AI.SCRIPTSET");
  size_t at = 3;
  if (at + 1 < argv.size() && is(argv[at], "TAG")) {
    out.tag = argv[at + 1];
    at += 2;
  }
  script_source(argv, at, out);
  return out;
}

ScriptStore parse_scriptstore(const std::vector<std::string>& argv) {
  ScriptStore out = script_head(argv, "AI.SCRIPTSTORE");
  size_t at = 3;
  if (at + 1 < argv.size() && is(argv[at], "TAG")) {
    out.tag = argv[at + 1];
    at += 2;
  }
  if (at >= argv.size() || !is(argv[at], "ENTRY_POINTS")) refuse("ERR Insufficient arguments, missing ENTRY_POINTS");
  ++at;
  out.entry_points = counted(argv, at, "entry points count");
  script_source(argv, at, out);
  return out;
}

Execute parse_modelexecute(const std::vector<std::string>& argv) {
  need_arguments(argv, 2, "AI.MODELEXECUTE");
  Execute out;
  out.key = argv[1];
  size_t at = 2;
  if (at >= argv.size() || !is(argv[at], "INPUTS")) refuse("ERR INPUTS not specified");
  ++at;
  out.inputs = counted(argv, at, "input_count");
  if (at >= argv.size() || !is(argv[at], "OUTPUTS")) refuse("ERR OUTPUTS not specified");
  ++at;
  out.outputs = counted(argv, at, "output_count");
  if (at < argv.size()) {
    if (!is(argv[at], "TIMEOUT")) refuse("ERR Invalid argument: " + argv[at]);
    if (at + 2 != argv.size()) refuse("ERR No value provided for TIMEOUT");
    if (!count_of(argv[at + 1])) refuse("ERR Invalid value for TIMEOUT");
  }
  return out;
}

namespace {
// The deprecated forms: INPUTS and OUTPUTS lists without counts, each running to the
// next keyword; a TIMEOUT may sit anywhere after the fixed words.
void uncounted_lists(const std::vector<std::string>& argv, size_t at, Execute& out) {
  std::vector<std::string>* list = nullptr;
  for (; at < argv.size(); ++at) {
    if (is(argv[at], "INPUTS")) {
      list = &out.inputs;
    } else if (is(argv[at], "OUTPUTS")) {
      list = &out.outputs;
    } else if (is(argv[at], "TIMEOUT")) {
      if (at + 1 >= argv.size()) refuse("ERR No value provided for TIMEOUT");
      if (!count_of(argv[++at])) refuse("ERR Invalid value for TIMEOUT");
      list = nullptr;
    } else if (argv[at] == "$") {
      continue;  // RedisAI's marker of a variadic input list: the same inputs follow
    } else if (list) {
      list->push_back(argv[at]);
    } else {
      refuse("ERR Invalid argument: " + argv[at]);
    }
  }
}
}  // namespace

Execute parse_modelrun(const std::vector<std::string>& argv) {
  need_arguments(argv, 2, "AI.MODELRUN");
  Execute out;
  out.key = argv[1];
  uncounted_lists(argv, 2, out);
  if (out.inputs.empty() && out.outputs.empty()) refuse("ERR Insufficient arguments, INPUTS and OUTPUTS not specified");
  return out;
}

Execute parse_scriptrun(const std::vector<std::string>& argv) {
  need_arguments(argv, 3, "AI.SCRIPTRUN");
  Execute out;
  out.key = argv[1];
  out.function = argv[2];
  uncounted_lists(argv, 3, out);
  return out;
}

Execute parse_scriptexecute(const std::vector<std::string>& argv) {
  need_arguments(argv, 3, "AI.SCRIPTEXECUTE");
  Execute out;
  out.key = argv[1];
  out.function = argv[2];
  for (size_t at = 3; at < argv.size();) {
    const std::string& word = argv[at++];
    if (is(word, "KEYS")) {
      counted(argv, at, "keys count in AI.SCRIPTEXECUTE");  // for RedisAI's shard checks only
    } else if (is(word, "INPUTS")) {
      out.inputs = counted(argv, at, "inputs count in AI.SCRIPTEXECUTE");
    } else if (is(word, "OUTPUTS")) {
      out.outputs = counted(argv, at, "outputs count in AI.SCRIPTEXECUTE");
    } else if (is(word, "ARGS")) {
      refuse("ERR ssim runs script functions on tensors only: ARGS is not supported");
    } else if (is(word, "TIMEOUT")) {
      if (at >= argv.size()) refuse("ERR No value provided for TIMEOUT");
      if (!count_of(argv[at++])) refuse("ERR Invalid value for TIMEOUT");
    } else {
      refuse("ERR Invalid AI.SCRIPTEXECUTE command. Unexpected argument: " + word);
    }
  }
  return out;
}

}  // namespace ssim::client::redisai
