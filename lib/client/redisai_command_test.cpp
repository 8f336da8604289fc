#include "lib/client/redisai_command.hpp"

#include <catch2/catch.hpp>
#include <cstring>

using namespace ssim::client;
using namespace ssim::client::redisai;

namespace {
std::vector<std::string> words(std::initializer_list<std::string> w) { return w; }
std::string blob_of(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}
}  // namespace

TEST_CASE("redisai: AI.TENSORSET as SmartRedis sends it, and what RedisAI refuses") {
  const std::string blob = blob_of({0, 1, 2, 3, 4, 5});
  const auto argv = words({"AI.TENSORSET", "x", "FLOAT", "2", "3", "BLOB", blob});  // the blob is a view into it
  const auto set = parse_tensorset(argv);
  CHECK(set.key == "x");
  CHECK(set.dtype == DType::F32);
  CHECK(set.dims == std::vector<uint64_t>{2, 3});
  CHECK(set.data() == blob);

  const auto values = parse_tensorset(words({"AI.TENSORSET", "v", "int16", "3", "VALUES", "1", "-2", "3"}));
  CHECK(values.dtype == DType::I16);
  REQUIRE(values.data().size() == 6);
  int16_t got[3];
  std::memcpy(got, values.data().data(), 6);
  CHECK(got[1] == -2);

  CHECK_THROWS_WITH(parse_tensorset(words({"AI.TENSORSET", "x", "HALF", "2", "BLOB", "ab"})), "ERR invalid data type");
  CHECK_THROWS_WITH(parse_tensorset(words({"AI.TENSORSET", "x", "FLOAT", "2", "BLOB", "abc"})),
                    "ERR data length does not match tensor shape and type");
  CHECK_THROWS_WITH(parse_tensorset(words({"AI.TENSORSET", "x", "FLOAT", "-2", "BLOB", "abcdefgh"})),
                    "ERR invalid or negative value found in tensor shape");
  CHECK_THROWS_WITH(parse_tensorset(words({"AI.TENSORSET", "x", "INT8", "2", "VALUES", "1"})),
                    "ERR wrong number of values was given in 'AI.TENSORSET' command");
  CHECK_THROWS_WITH(parse_tensorset(words({"AI.TENSORSET", "x"})),
                    "ERR wrong number of arguments for 'AI.TENSORSET' command");
}

TEST_CASE("redisai: AI.TENSORGET replies in RedisAI's shapes") {
  const std::vector<float> v{0, 1, 2, 3, 4, 5};
  const Tensor t(DType::F32, {2, 3}, v.data());
  // META BLOB: what SmartRedis asks for.
  const auto pieces = tensorget_reply(parse_tensorget(words({"AI.TENSORGET", "x", "META", "BLOB"})), t);
  CHECK(pieces.payload.data() == t.data());  // the bytes are written from the tensor, not copied
  const std::string meta_blob = pieces.joined();
  CHECK(meta_blob == "*6\r\n$5\r\ndtype\r\n$5\r\nFLOAT\r\n$5\r\nshape\r\n*2\r\n:2\r\n:3\r\n$4\r\nblob\r\n$24\r\n" +
                         blob_of(v) + "\r\n");
  // No format: META and BLOB, as RedisAI.
  CHECK(tensorget_reply(parse_tensorget(words({"AI.TENSORGET", "x"})), t).joined() == meta_blob);
  CHECK(tensorget_reply(parse_tensorget(words({"AI.TENSORGET", "x", "BLOB"})), t).joined() ==
        "$24\r\n" + blob_of(v) + "\r\n");
  CHECK(tensorget_reply(parse_tensorget(words({"AI.TENSORGET", "x", "VALUES"})), t)
            .joined()
            .rfind("*6\r\n$1\r\n0\r\n$1\r\n1\r\n", 0) == 0);
  const std::vector<int32_t> iv{7, -1};
  CHECK(tensorget_reply(parse_tensorget(words({"AI.TENSORGET", "i", "META", "VALUES"})),
                        Tensor(DType::I32, {2}, iv.data()))
            .joined() ==
        "*6\r\n$5\r\ndtype\r\n$5\r\nINT32\r\n$5\r\nshape\r\n*1\r\n:2\r\n$6\r\nvalues\r\n*2\r\n:7\r\n:-1\r\n");
  CHECK_THROWS_WITH(parse_tensorget(words({"AI.TENSORGET", "x", "BLOB", "VALUES"})),
                    "ERR both BLOB and VALUES specified");
  CHECK_THROWS_WITH(parse_tensorget(words({"AI.TENSORGET", "x", "JSON"})), "ERR unsupported data format");
  // A type RedisAI has no name for is said, not sent as something else.
  const uint32_t u[1] = {1};
  CHECK(tensorget_reply(parse_tensorget(words({"AI.TENSORGET", "u"})), Tensor(DType::U32, {1}, u)).joined() ==
        "-ERR unsupported dtype\r\n");
}

TEST_CASE("redisai: models and scripts, new and deprecated forms") {
  const auto store = parse_modelstore(
      words({"AI.MODELSTORE", "m", "TORCH", "GPU:1",   "TAG", "v2", "BATCHSIZE", "8",    "MINBATCHSIZE", "2",
             "INPUTS",        "1", "a",     "OUTPUTS", "2",   "b",  "c",         "BLOB", "part1",        "part2"}));
  CHECK(store.device == "GPU:1");
  CHECK(store.tag == "v2");
  CHECK(store.batch_size == 8);
  CHECK(store.min_batch_size == 2);
  CHECK(store.outputs == std::vector<std::string>{"b", "c"});
  CHECK(store.blob == "part1part2");  // chunks joined
  CHECK_THROWS_WITH(parse_modelstore(words({"AI.MODELSTORE", "m", "TORCH", "CPU"})),
                    "ERR Insufficient arguments, missing model BLOB");
  CHECK_THROWS_WITH(parse_modelstore(words({"AI.MODELSTORE", "m", "JAX", "CPU", "BLOB", "x"})),
                    "ERR unsupported backend");

  const auto run = parse_modelexecute(
      words({"AI.MODELEXECUTE", "m", "INPUTS", "1", "in", "OUTPUTS", "1", "out", "TIMEOUT", "60000000"}));
  CHECK(run.inputs == std::vector<std::string>{"in"});
  CHECK(run.outputs == std::vector<std::string>{"out"});
  CHECK_THROWS_WITH(parse_modelexecute(words({"AI.MODELEXECUTE", "m", "OUTPUTS", "1", "o"})),
                    "ERR INPUTS not specified");
  const auto old = parse_modelrun(words({"AI.MODELRUN", "m", "INPUTS", "a", "b", "OUTPUTS", "c"}));
  CHECK(old.inputs == std::vector<std::string>{"a", "b"});
  CHECK(old.outputs == std::vector<std::string>{"c"});

  const auto set = parse_scriptset(words({"AI.SCRIPTSET", "s", "CPU", "SOURCE", "def f(x):\n  return x\n"}));
  CHECK(set.source == "def f(x):\n  return x\n");
  CHECK_THROWS_WITH(parse_scriptset(words({"AI.SCRIPTSET", "s", "CPU", "TAG", "t"})),
                    "ERR Insufficient arguments, missing script SOURCE");
  const auto stored =
      parse_scriptstore(words({"AI.SCRIPTSTORE", "s", "CPU", "ENTRY_POINTS", "2", "f", "g", "SOURCE", "src"}));
  CHECK(stored.entry_points == std::vector<std::string>{"f", "g"});
  const auto srun = parse_scriptrun(words({"AI.SCRIPTRUN", "s", "times_two", "INPUTS", "x", "OUTPUTS", "z"}));
  CHECK(srun.function == "times_two");
  CHECK(srun.inputs == std::vector<std::string>{"x"});
  const auto sexec = parse_scriptexecute(
      words({"AI.SCRIPTEXECUTE", "s", "f", "KEYS", "1", "x", "INPUTS", "2", "x", "y", "OUTPUTS", "1", "z"}));
  CHECK(sexec.inputs == std::vector<std::string>{"x", "y"});
  CHECK(sexec.outputs == std::vector<std::string>{"z"});
}
