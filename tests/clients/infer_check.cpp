// The C++ client's model and script calls against a real inference service (driven by
// tests/integration/test_inference.py):
//   infer_check_cpp MODEL_FILE   stores the model, runs it on x_cpp (4 x 8,
//   x[i][j] = 0.1 (i + j)), prints y_cpp (4 x 2), one value per line; runs a script;
//   checks the errors. Exits 1 on a failure.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "lib/client/client.hpp"

using namespace ssim::client;

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "failed: " << what << "\n";
    ++failures;
  }
}
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InferenceError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: infer_check_cpp MODEL_FILE\n";
    return 2;
  }
  Client c;
  c.set_model_from_file("mlp_cpp", argv[1], "TORCH", "CPU");
  check(c.model_exists("mlp_cpp"), "model_exists");
  std::vector<float> x(32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) x[i * 8 + j] = 0.1f * static_cast<float>(i + j);
  c.put_tensor("x_cpp", x.data(), {4, 8}, DType::F32);
  c.run_model("mlp_cpp", {"x_cpp"}, {"y_cpp"});
  std::vector<float> y(8);
  c.unpack_tensor("y_cpp", y.data(), {4, 2}, DType::F32);
  for (float v : y) std::printf("%.6f\n", v);

  c.set_script("plus_one_cpp", "CPU", "def add_one(a):\n    return a + 1\n");
  c.run_script("plus_one_cpp", "add_one", {"x_cpp"}, {"z_cpp"});
  Tensor z = c.get_tensor("z_cpp");
  check(z.as<float>()[31] == x[31] + 1.0f, "script result");
  const std::string bytes = c.get_model("mlp_cpp");
  check(bytes.size() > 100, "get_model");
  c.set_model("mlp_cpp_bytes", bytes, "TORCH", "CPU");
  check(c.poll_model("mlp_cpp_bytes", 10, 3), "poll_model");
  c.run_model("mlp_cpp_bytes", {"x_cpp"}, {"y2_cpp"});
  std::vector<float> y2(8);
  c.unpack_tensor("y2_cpp", y2.data(), {4, 2}, DType::F32);
  check(y2 == y, "the same model from its bytes");
  c.delete_model("mlp_cpp_bytes");
  const std::string script_file = std::string(argv[1]) + ".script.py";
  if (FILE* f = std::fopen(script_file.c_str(), "w")) {
    std::fputs("def times_two(a):\n    return a * 2\n", f);
    std::fclose(f);
  }
  c.set_script_from_file("from_file_cpp", "CPU", script_file);
  c.run_script("from_file_cpp", "times_two", {"x_cpp"}, {"t_cpp"});
  check(c.get_tensor("t_cpp").as<float>()[31] == x[31] * 2, "script from a file");
  c.delete_script("from_file_cpp");

  check(error_of([&] { c.run_model("no_such_model", {"x_cpp"}, {"y_cpp"}); }).find("not stored") != std::string::npos,
        "unknown model error");
  std::vector<float> bad(12, 1.0f);
  c.put_tensor("bad_cpp", bad.data(), {4, 3}, DType::F32);
  check(error_of([&] { c.run_model("mlp_cpp", {"bad_cpp"}, {"y_cpp"}); }).find("shapes cannot be multiplied") !=
            std::string::npos,
        "wrong shape error");
  c.delete_model("mlp_cpp");
  check(!c.model_exists("mlp_cpp"), "deleted");
  c.delete_script("plus_one_cpp");
  return failures ? 1 : 0;
}
