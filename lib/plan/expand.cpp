#include "lib/plan/expand.hpp"

namespace ssim::plan {

namespace {
// splitmix64: tiny, and the same sequence on every platform and standard library,
// unlike std::uniform_int_distribution. A seed must give the same members everywhere.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};
}  // namespace

std::vector<Combination> combinations(const spec::Entity& e) {
  const auto& params = e.params;
  if (params.empty()) return {Combination{}};
  std::vector<Combination> out;
  switch (e.strategy) {
    case spec::Strategy::AllPerm: {
      std::vector<size_t> index(params.size(), 0);
      while (true) {
        Combination c;
        for (size_t p = 0; p < params.size(); ++p) c.emplace_back(params[p].name, params[p].values[index[p]]);
        out.push_back(std::move(c));
        size_t p = params.size();
        while (p > 0) {
          --p;
          if (++index[p] < params[p].values.size()) break;
          index[p] = 0;
          if (p == 0) return out;
        }
      }
    }
    case spec::Strategy::Step: {
      for (size_t i = 0; i < params.front().values.size(); ++i) {
        Combination c;
        for (const auto& p : params) c.emplace_back(p.name, p.values[i]);
        out.push_back(std::move(c));
      }
      return out;
    }
    case spec::Strategy::Random: {
      SplitMix64 rng{e.seed.value_or(0)};
      for (int s = 0; s < e.samples.value_or(1); ++s) {
        Combination c;
        for (const auto& p : params) c.emplace_back(p.name, p.values[rng.next() % p.values.size()]);
        out.push_back(std::move(c));
      }
      return out;
    }
  }
  return out;
}

}  // namespace ssim::plan
