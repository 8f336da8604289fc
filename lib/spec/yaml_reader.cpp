#include "lib/spec/yaml_reader.hpp"

#include <charconv>
#include <regex>
#include <set>

#include "lib/spec/suggest.hpp"

namespace ssim::spec {

std::string join_field(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_field(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

Loc YamlReader::loc(const YAML::Node& node) {
  const auto mark = node.Mark();
  if (mark.line < 0) return {};
  return {mark.line + 1, mark.column + 1};
}

void YamlReader::fail(Loc where, const std::string& field, const std::string& message) const {
  throw SpecError(file_, where, field, message);
}

std::string YamlReader::describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar:
      return "\"" + printable(node.Scalar()) + "\"";
    default:
      return "nothing";
  }
}

namespace {
std::vector<std::string> checked_keys(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  if (!node.IsMap()) r.fail(node, field, "expected a mapping, got " + YamlReader::describe(node));
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) r.fail(it->first, field, "keys must be plain names");
    const std::string key = it->first.Scalar();
    if (key == "<<")
      r.fail(it->first, join_field(field, key), "YAML merge keys (<<:) are not supported; write the keys out");
    if (has_control(key, true)) r.fail(it->first, field, "key \"" + printable(key) + "\" holds a control character");
    if (!seen.insert(key).second) r.fail(it->first, join_field(field, key), "duplicated key");
    keys.push_back(key);
  }
  return keys;
}
}  // namespace

void YamlReader::expect_map(const YAML::Node& node, const std::string& field,
                            const std::vector<std::string>& allowed) const {
  if (node.IsNull()) return;
  checked_keys(*this, node, field);
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = "unknown key \"" + printable(key) + "\"";
    const std::string guess = closest_match(key, allowed);
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    fail(it->first, join_field(field, key), message);
  }
}

void YamlReader::expect_free_map(const YAML::Node& node, const std::string& field) const {
  if (node.IsNull()) return;
  checked_keys(*this, node, field);
}

Text YamlReader::text(const YAML::Node& node, const std::string& field) const {
  if (!node.IsScalar()) fail(node, field, "expected a value, got " + describe(node));
  // argv, the environment and the job files are NUL-separated: a NUL would cut or
  // shift what a program receives.
  if (node.Scalar().find('\0') != std::string::npos)
    fail(node, field, "holds a NUL byte, which no program argument, variable or path can carry");
  return {node.Scalar(), loc(node)};
}

Text YamlReader::line(const YAML::Node& node, const std::string& field) const {
  Text t = text(node, field);
  if (has_control(t.value, false))
    fail(node, field, "holds a control character (newline, escape...): \"" + printable(t.value) + "\"");
  // A step's setup lines reach bash as one argument, which the kernel caps at 128 KiB:
  // refused here, not as "Argument list too long" when every step starts.
  constexpr size_t kMaxLine = 32 * 1024;
  if (t.value.size() > kMaxLine)
    fail(node, field,
         "is " + std::to_string(t.value.size()) + " bytes long, over the " + std::to_string(kMaxLine / 1024) +
             " KiB a line may have (the kernel caps a command's argument at 128 KiB): put a long script in a file "
             "and source it");
  return t;
}

std::string YamlReader::option_key(const YAML::Node& key_node, const std::string& field) const {
  const std::string key = key_node.Scalar();
  static const std::regex pattern("[A-Za-z][A-Za-z0-9_-]*");
  if (!std::regex_match(key, pattern))
    fail(key_node, join_field(field, key), "option names are letters, digits, '_' and '-', starting with a letter");
  return key;
}

TextMap YamlReader::option_map(const YAML::Node& node, const std::string& field) const {
  return map_of(node, field, &YamlReader::option_key, &YamlReader::line);
}

std::string YamlReader::scalar(const YAML::Node& node, const std::string& field) const {
  return text(node, field).value;
}

int YamlReader::integer(const YAML::Node& node, const std::string& field, int min, int max) const {
  const std::string what = min > 0 ? "a positive integer" : "an integer";
  if (!node.IsScalar()) fail(node, field, "expected " + what + ", got " + describe(node));
  const std::string& s = node.Scalar();
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    fail(node, field, "expected " + what + ", got \"" + printable(s) + "\"");
  if (value < min || value > max)
    fail(node, field,
         "expected " + what + " between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + s);
  return value;
}

bool YamlReader::boolean(const YAML::Node& node, const std::string& field) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "yes" || s == "True" || s == "on") return true;
    if (s == "false" || s == "no" || s == "False" || s == "off") return false;
  }
  fail(node, field, "expected true or false, got " + describe(node));
}

std::vector<Text> YamlReader::list_of(const YAML::Node& node, const std::string& field, Item item) const {
  std::vector<Text> out;
  if (node.IsNull()) return out;
  if (!node.IsSequence()) fail(node, field, "expected a list, got " + describe(node));
  for (size_t i = 0; i < node.size(); ++i) out.push_back((this->*item)(node[i], index_field(field, i)));
  return out;
}

std::vector<Text> YamlReader::text_list(const YAML::Node& node, const std::string& field) const {
  return list_of(node, field, &YamlReader::text);
}

std::vector<Text> YamlReader::line_list(const YAML::Node& node, const std::string& field) const {
  return list_of(node, field, &YamlReader::line);
}

std::vector<std::string> YamlReader::string_list(const YAML::Node& node, const std::string& field) const {
  std::vector<std::string> out;
  for (auto& t : text_list(node, field)) out.push_back(std::move(t.value));
  return out;
}

TextMap YamlReader::map_of(const YAML::Node& node, const std::string& field, Key key_of, Item item) const {
  TextMap out;
  if (node.IsNull()) return out;
  expect_free_map(node, field);
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = (this->*key_of)(it->first, field);
    out.emplace_back(key, (this->*item)(it->second, join_field(field, key)));
  }
  return out;
}

std::string YamlReader::plain_key(const YAML::Node& key_node, const std::string&) const { return key_node.Scalar(); }

TextMap YamlReader::text_map(const YAML::Node& node, const std::string& field) const {
  return map_of(node, field, &YamlReader::plain_key, &YamlReader::text);
}

std::string YamlReader::name(const YAML::Node& node, const std::string& field) const {
  const std::string s = scalar(node, field);
  if (s.size() > kMaxNameBytes)
    fail(node, field,
         "too long (" + std::to_string(s.size()) + " bytes; at most " + std::to_string(kMaxNameBytes) +
             ", so that run directories and NAME.out files fit the 255-byte file name limit)");
  if (!is_valid_name(s))
    fail(node, field,
         "invalid name \"" + printable(s) + "\": use letters, digits, '_', '-' and '.', not starting with '.' or '-'");
  return s;
}

std::string YamlReader::choice(const YAML::Node& node, const std::string& field,
                               const std::vector<std::string>& choices) const {
  const std::string s = scalar(node, field);
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : " | ") + c;
  std::string message = "expected one of " + list + ", got \"" + printable(s) + "\"";
  const std::string guess = closest_match(s, choices);
  if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
  fail(node, field, message);
}

bool is_valid_name(const std::string& s) {
  static const std::regex pattern("[A-Za-z0-9_][A-Za-z0-9_.-]*");
  return std::regex_match(s, pattern) && s.find("..") == std::string::npos;
}

bool is_identifier(const std::string& s) {
  static const std::regex pattern("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, pattern);
}

bool is_slurm_time(const std::string& s) {
  // Slurm accepts MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM and D-HH:MM:SS. The leading field
  // may be any size (90 minutes, 48 hours); the ones after a ':' are minutes or seconds.
  static const std::regex pattern("(\\d{1,5}-\\d{1,2}(:\\d{1,2}){0,2})|(\\d{1,6}(:\\d{1,2}){0,2})");
  if (!std::regex_match(s, pattern)) return false;
  size_t colon = s.find(':');
  while (colon != std::string::npos) {
    const size_t next = s.find(':', colon + 1);
    if (std::stoi(s.substr(colon + 1, next - colon - 1)) > 59) return false;
    colon = next;
  }
  const size_t dash = s.find('-');
  if (dash != std::string::npos && std::stoi(s.substr(dash + 1, s.find(':') - dash - 1)) > 23) return false;
  return true;
}

bool has_control(const std::string& s, bool allow_tab) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && !(allow_tab && c == '\t')) || u == 0x7F) return true;
  }
  return false;
}

}  // namespace ssim::spec
