#include "lib/plan/resources.hpp"

#include <charconv>

#include "lib/spec/template.hpp"
#include "lib/spec/yaml_reader.hpp"

namespace ssim::plan {

using spec::SpecError;

std::string substitute_at(const std::string& file, const std::string& field, const spec::Text& text,
                          const Lookup& lookup) {
  try {
    return spec::substitute(text.value, lookup);
  } catch (const spec::TemplateError& e) {
    throw SpecError(file, text.loc, field, e.what());
  }
}

namespace {

int to_int(const std::string& file, const std::string& field, const spec::Text& raw, const std::string& value,
           int min) {
  int n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  const std::string what = min > 0 ? "a positive integer" : "a non-negative integer";
  std::string got = "\"" + value + "\"";
  if (value != raw.value) got += " (from \"" + raw.value + "\")";
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < min)
    throw SpecError(file, raw.loc, field, "expected " + what + ", got " + got);
  return n;
}

MpiKind to_mpi(const std::string& file, const std::string& field, const spec::Text& raw, const std::string& value) {
  std::string choices;
  for (const auto& [name, kind] : mpi_kind_names()) {
    if (name == value) return kind;
    choices += (choices.empty() ? "" : " | ") + name;
  }
  throw SpecError(file, raw.loc, field, "expected one of " + choices + ", got \"" + value + "\"");
}

}  // namespace

long time_seconds(const std::string& time) {
  if (time.empty()) return 0;
  long days = 0;
  std::string rest = time;
  const size_t dash = time.find('-');
  if (dash != std::string::npos) days = std::stol(time.substr(0, dash)), rest = time.substr(dash + 1);
  std::vector<long> parts;
  size_t i = 0;
  while (i <= rest.size()) {
    const size_t j = std::min(rest.find(':', i), rest.size());
    parts.push_back(std::stol(rest.substr(i, j - i)));
    i = j + 1;
  }
  long h = 0, m = 0, sec = 0;
  if (dash != std::string::npos) {  // D-HH[:MM[:SS]]
    h = parts[0], m = parts.size() > 1 ? parts[1] : 0, sec = parts.size() > 2 ? parts[2] : 0;
  } else if (parts.size() == 1) {  // MM
    m = parts[0];
  } else if (parts.size() == 2) {  // MM:SS
    m = parts[0], sec = parts[1];
  } else {  // HH:MM:SS
    h = parts[0], m = parts[1], sec = parts[2];
  }
  return ((days * 24 + h) * 60 + m) * 60 + sec;
}

Resources resolve_resources(const std::string& file, const std::string& field, const spec::RunSettings& run,
                            const Lookup& lookup) {
  Resources res;
  bool ntasks_given = false, exclusive_given = false;
  for (const auto& [key, raw] : run.fields) {
    const std::string sub = spec::join_field(field, key);
    const std::string v = substitute_at(file, sub, raw, lookup);
    if (key == "nodes")
      res.nodes = to_int(file, sub, raw, v, 1);
    else if (key == "ntasks")
      res.ntasks = to_int(file, sub, raw, v, 1), ntasks_given = true;
    else if (key == "tasks_per_node")
      res.tasks_per_node = to_int(file, sub, raw, v, 1);
    else if (key == "cpus_per_task")
      res.cpus_per_task = to_int(file, sub, raw, v, 1);
    else if (key == "gpus_per_task")
      res.gpus_per_task = to_int(file, sub, raw, v, 0);
    else if (key == "torchrun")
      res.torchrun = to_int(file, sub, raw, v, 1);
    else if (key == "mpi")
      res.mpi = to_mpi(file, sub, raw, v);
    else if (key == "time") {
      if (!spec::is_slurm_time(v))
        throw SpecError(file, raw.loc, sub,
                        "expected a time like \"02:00:00\" or \"1-00:00:00\" (minutes and seconds up to 59), got \"" +
                            spec::printable(v) + "\"");
      res.time = v;
    } else if (key == "exclusive" || key == "agent" || key == "rank_env") {
      bool& flag = key == "agent" ? res.agent : key == "rank_env" ? res.rank_env : res.exclusive;
      exclusive_given = exclusive_given || key == "exclusive";
      if (v == "true" || v == "yes")
        flag = true;
      else if (v == "false" || v == "no")
        flag = false;
      else
        throw SpecError(file, raw.loc, sub, "expected true or false, got \"" + v + "\"");
    }
  }
  for (size_t i = 0; i < run.hosts.size(); ++i)
    res.hosts.push_back(substitute_at(file, spec::index_field(field + ".hosts", i), run.hosts[i], lookup));
  for (const auto& [key, raw] : run.launcher_args)
    res.launcher_args.emplace_back(key, substitute_at(file, field + ".launcher_args." + key, raw, lookup));
  // Whole nodes when asked for, or when `nodes:` is; otherwise packed by CPUs.
  if (!exclusive_given) res.exclusive = res.nodes > 0;
  // nodes x tasks_per_node gives ntasks when ntasks itself is not written.
  if (!ntasks_given && res.nodes > 0 && res.tasks_per_node > 0) res.ntasks = res.nodes * res.tasks_per_node;
  if (res.nodes > 0 && res.tasks_per_node > 0 && res.ntasks > res.nodes * res.tasks_per_node)
    throw SpecError(file, run.loc, field,
                    "ntasks " + std::to_string(res.ntasks) +
                        " exceeds nodes x tasks_per_node = " + std::to_string(res.nodes * res.tasks_per_node));
  return res;
}

}  // namespace ssim::plan
