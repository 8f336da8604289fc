#include "lib/client/rank_info.hpp"

#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace ssim {

namespace {

std::optional<int> integer(const char* text) {
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 1 << 24) return std::nullopt;
  return static_cast<int>(v);
}

// One launcher's names: rank, world size, local rank, local size ("" when it has none).
struct Names {
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
};

constexpr Names kLaunchers[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},  // ssim itself, torchrun
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"PALS_RANKID", "PMI_SIZE", "PALS_LOCAL_RANKID", "PMI_LOCAL_SIZE"},  // Cray PALS (aprun's successor)
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},      // MPICH's Hydra (and PMI_LOCAL_* below)
    {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", ""},
    {"JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_LOCAL_RANK", "JSM_NAMESPACE_LOCAL_SIZE"},
    {"ALPS_APP_PE", "PMI_SIZE", "", ""},
    {"PMIX_RANK", "", "", ""},  // last: it says no size (srun --mpi=pmix sets it beside SLURM_PROCID)
};

// What launcher `n` says of the tasks on this node, 0 when it does not say.
int local_size_said(const Names& n, const EnvLookup& env) {
  int local = *n.local_size ? integer(env(n.local_size)).value_or(0) : 0;
  if (std::string(n.rank) == "SLURM_PROCID")
    if (const char* per = env("SLURM_STEP_TASKS_PER_NODE"))
      local = slurm_tasks_on_node(per, integer(env("SLURM_NODEID")).value_or(0));
  // Cray PALS and MPICH also say PMI_LOCAL_SIZE.
  return local ? local : integer(env("PMI_LOCAL_SIZE")).value_or(0);
}

EnvLookup or_getenv(const EnvLookup& lookup) {
  return lookup ? lookup : EnvLookup([](const char* n) { return std::getenv(n); });
}

}  // namespace

int launcher_local_size(const EnvLookup& lookup) {
  const EnvLookup env = or_getenv(lookup);
  for (const auto& n : kLaunchers)
    if (&n != &kLaunchers[0] && integer(env(n.rank))) return local_size_said(n, env);
  return 0;
}

int slurm_tasks_on_node(const std::string& per_node, int node) {
  int at = 0;
  size_t i = 0;
  while (i < per_node.size()) {
    size_t end = i;
    while (end < per_node.size() && std::isdigit(static_cast<unsigned char>(per_node[end]))) ++end;
    if (end == i) return 0;
    const int tasks = std::atoi(per_node.substr(i, end - i).c_str());
    int times = 1;
    if (per_node.compare(end, 2, "(x") == 0) {
      const size_t close = per_node.find(')', end);
      if (close == std::string::npos) return 0;
      times = std::atoi(per_node.substr(end + 2, close - end - 2).c_str());
      end = close + 1;
    }
    if (node < at + times) return tasks;
    at += times;
    if (end < per_node.size() && per_node[end] != ',') return 0;
    i = end + 1;
  }
  return 0;
}

RankInfo rank_info(const EnvLookup& lookup) {
  const EnvLookup env = or_getenv(lookup);
  auto get = [&](const char* name) -> std::optional<int> { return *name ? integer(env(name)) : std::nullopt; };
  RankInfo info;
  for (const auto& n : kLaunchers) {
    const auto rank = get(n.rank);
    if (!rank) continue;
    info.source = n.rank;
    info.rank = *rank;
    info.size = get(n.size).value_or(0);
    info.local_rank = get(n.local_rank).value_or(-1);
    info.local_size = local_size_said(n, env);
    if (std::string(n.rank) == "SLURM_PROCID" && !info.size) info.size = get("SLURM_NTASKS").value_or(0);
    // Cray PALS and MPICH also say PMI_LOCAL_RANK.
    if (info.local_rank < 0) info.local_rank = get("PMI_LOCAL_RANK").value_or(-1);
    break;
  }
  // What a launcher did not say: alone on its node, or one of `size` there.
  if (info.size <= info.rank) info.size = info.rank + 1;
  if (info.local_rank < 0) info.local_rank = info.source.empty() || info.size == 1 ? 0 : info.rank;
  if (info.local_size <= info.local_rank)
    info.local_size = info.local_rank == info.rank ? info.size : info.local_rank + 1;
  return info;
}

RankInfo launcher_rank_info(const EnvLookup& lookup) {
  const EnvLookup env = or_getenv(lookup);
  const Names& own = kLaunchers[0];
  return rank_info([&](const char* name) -> const char* {
    for (const char* n : {own.rank, own.size, own.local_rank, own.local_size})
      if (std::string_view(name) == n) return nullptr;
    return env(name);
  });
}

}  // namespace ssim
