// A "simulation" in C++ that asks the trained surrogate for sin(x) on its grid: put the
// grid, run the model beside the database, read the answer. No Python here.
#include <cmath>
#include <cstdio>
#include <vector>

#include "lib/client/client.hpp"  // installed: <ssim/client.hpp>

int main() {
  constexpr int n = 64;
  ssim::Client client;  // SSDB and SSDB_PASSWORD come from ssim
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(-M_PI + 2 * M_PI * i / (n - 1));
  client.put_tensor("grid", x.data(), {n, 1}, ssim::client::DType::F32);
  client.run_model("surrogate", {"grid"}, {"answer"});
  client.unpack_tensor("answer", y.data(), {n, 1}, ssim::client::DType::F32);
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max<double>(worst, std::fabs(y[i] - std::sin(x[i])));
  std::printf("c++: largest error of the surrogate against sin(x): %.5f\n", worst);
  return worst > 0.1 ? 1 : 0;
}
