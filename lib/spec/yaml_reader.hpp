#pragma once
// Strict reading of yaml-cpp nodes: every accessor checks the node's type and throws a
// SpecError that names FILE:LINE:COL and the field path. Mappings are checked for
// unknown keys (with a "did you mean") and for duplicated keys, which yaml-cpp 0.7
// would otherwise accept silently.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "lib/spec/spec.hpp"

namespace ssim::spec {

std::string join_field(const std::string& parent, const std::string& key);
std::string index_field(const std::string& parent, size_t index);

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  static Loc loc(const YAML::Node& node);
  [[noreturn]] void fail(Loc loc, const std::string& field, const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& field, const std::string& message) const {
    fail(loc(node), field, message);
  }

  // A mapping whose keys are all in `allowed`, none repeated. Null counts as empty.
  void expect_map(const YAML::Node& node, const std::string& field, const std::vector<std::string>& allowed) const;
  // A mapping with free-form keys (env, params, config, options), none repeated.
  void expect_free_map(const YAML::Node& node, const std::string& field) const;

  Text text(const YAML::Node& node, const std::string& field) const;
  std::string scalar(const YAML::Node& node, const std::string& field) const;
  // A one-line value: no newline or other control character (paths, hosts, scheduler
  // settings: whatever may reach a batch script or a file name).
  Text line(const YAML::Node& node, const std::string& field) const;
  // Scheduler and launcher options (--key=value): keys [A-Za-z][A-Za-z0-9_-]*, values
  // one line.
  std::string option_key(const YAML::Node& key_node, const std::string& field) const;
  TextMap option_map(const YAML::Node& node, const std::string& field) const;
  int integer(const YAML::Node& node, const std::string& field, int min, int max) const;
  bool boolean(const YAML::Node& node, const std::string& field) const;
  std::vector<Text> text_list(const YAML::Node& node, const std::string& field) const;
  std::vector<Text> line_list(const YAML::Node& node, const std::string& field) const;
  std::vector<std::string> string_list(const YAML::Node& node, const std::string& field) const;
  TextMap text_map(const YAML::Node& node, const std::string& field) const;
  // A name used for a directory: letters, digits, '_', '-', '.', not starting with '.'.
  std::string name(const YAML::Node& node, const std::string& field) const;
  // One of `choices`.
  std::string choice(const YAML::Node& node, const std::string& field, const std::vector<std::string>& choices) const;

  static std::string describe(const YAML::Node& node);

 private:
  using Item = Text (YamlReader::*)(const YAML::Node&, const std::string&) const;
  std::vector<Text> list_of(const YAML::Node& node, const std::string& field, Item item) const;
  using Key = std::string (YamlReader::*)(const YAML::Node&, const std::string&) const;
  TextMap map_of(const YAML::Node& node, const std::string& field, Key key_of, Item item) const;
  std::string plain_key(const YAML::Node& key_node, const std::string& field) const;
  std::string file_;
};

// Entity and experiment names; members add "_<index>" and files ".out".
constexpr size_t kMaxNameBytes = 240;

bool is_valid_name(const std::string& s);
// True when `s` holds a byte below 0x20 (other than a tab, when allowed) or DEL.
bool has_control(const std::string& s, bool allow_tab);
bool is_identifier(const std::string& s);
bool is_slurm_time(const std::string& s);

}  // namespace ssim::spec
