#pragma once
#include <string>
#include <utility>
#include <vector>

#include "lib/spec/spec.hpp"

namespace ssim::plan {

using Combination = std::vector<std::pair<std::string, spec::Text>>;

// The parameter combinations of an entity, in member order (before replicas):
// all_perm: cartesian product, the last parameter varying fastest; step: the lists
// zipped; random: `samples` draws, one value per parameter each, deterministic for a
// seed. A model, or an ensemble without params, has one (possibly empty) combination.
std::vector<Combination> combinations(const spec::Entity& entity);

}  // namespace ssim::plan
