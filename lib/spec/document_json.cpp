#include "lib/spec/document_json.hpp"

#include <regex>

#include <yaml-cpp/yaml.h>

namespace ssim::spec {

namespace {

nlohmann::ordered_json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: a string whatever it looks like
  static const std::regex null_re("~|null|Null|NULL|");
  static const std::regex true_re("true|True|TRUE");
  static const std::regex false_re("false|False|FALSE");
  static const std::regex int_re("[-+]?[0-9]+");
  static const std::regex float_re("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(text, null_re)) return nullptr;
  if (std::regex_match(text, true_re)) return true;
  if (std::regex_match(text, false_re)) return false;
  try {
    if (std::regex_match(text, int_re)) return std::stoll(text);
    if (std::regex_match(text, float_re)) return std::stod(text);
  } catch (const std::out_of_range&) {
    // Too big for a number: kept as written.
  }
  return text;
}

nlohmann::ordered_json convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = convert(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& item : node) out.push_back(convert(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      return scalar(node);
    default:
      return nullptr;
  }
}

}  // namespace

nlohmann::ordered_json document_json(const std::string& file) { return convert(YAML::LoadFile(file)); }

}  // namespace ssim::spec
