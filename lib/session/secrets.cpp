#include "lib/session/secrets.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace ssim::session {

namespace {

constexpr const char* kHidden = "********";

std::string upper(const std::string& s) {
  std::string out = s;
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

struct Edit {
  size_t at = 0, length = 0;
  std::string with;
};

// The end (one past) of the scalar token that starts at `at`: a quoted one at its
// closing quote, a plain one after `value` when the text spells it so, else the line.
size_t token_end(const std::string& text, size_t at, const std::string& value) {
  const char q = text[at];
  if (q == '"' || q == '\'') {
    for (size_t i = at + 1; i < text.size(); ++i) {
      if (q == '"' && text[i] == '\\') {
        ++i;
      } else if (text[i] == q) {
        if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' is one quote inside single quotes
          continue;
        }
        return i + 1;
      }
    }
    return text.size();
  }
  if (!value.empty() && text.compare(at, value.size(), value) == 0) return at + value.size();
  const size_t eol = text.find('\n', at);
  return eol == std::string::npos ? text.size() : eol;
}

// A block scalar (| or >): its lines, those indented deeper than the key, follow the mark.
size_t block_end(const std::string& text, size_t at, int key_column) {
  size_t line = text.find('\n', at);
  while (line != std::string::npos && line + 1 < text.size()) {
    size_t first = line + 1, indent = 0;
    while (first + indent < text.size() && text[first + indent] == ' ') ++indent;
    const bool blank = first + indent >= text.size() || text[first + indent] == '\n';
    if (!blank && static_cast<int>(indent) <= key_column) return line;
    line = text.find('\n', first);
  }
  return text.size();
}

void collect(const YAML::Node& node, const std::string& text, std::vector<Edit>& edits) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const YAML::Node& key = kv.first;
      const YAML::Node& value = kv.second;
      if (key.IsScalar() && value.IsScalar() && value.Mark().pos >= 0) {
        const auto at = static_cast<size_t>(value.Mark().pos);
        if (at >= text.size()) continue;
        bool masked = false;
        const std::string shown = shown_value(key.Scalar(), value.Scalar(), masked);
        if (!masked) continue;
        if (text[at] == '|' || text[at] == '>') {
          const size_t end = block_end(text, at, key.Mark().column);
          edits.push_back({at, end - at, std::string("\"") + kHidden + "\""});
          continue;
        }
        const size_t end = token_end(text, at, value.Scalar());
        const char q = text[at];
        const bool quoted = q == '"' || q == '\'';
        // A URL shown with its password hidden keeps its quotes; a secret is all stars.
        const std::string body = quoted && shown.find_first_of("\"'\\") == std::string::npos ? shown : kHidden;
        edits.push_back({at, end - at, quoted ? std::string(1, q) + body + q : shown});
        continue;
      }
      collect(value, text, edits);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (item.IsScalar() && item.Mark().pos >= 0) {  // args: ["redis://:pw@host"]
        bool masked = false;
        const std::string shown = shown_value("", item.Scalar(), masked);
        const auto at = static_cast<size_t>(item.Mark().pos);
        if (!masked || at >= text.size()) continue;
        const size_t end = token_end(text, at, item.Scalar());
        const char q = text[at];
        const bool quoted = q == '"' || q == '\'';
        edits.push_back({at, end - at, quoted ? std::string(1, q) + kHidden + q : shown});
        continue;
      }
      collect(item, text, edits);
    }
  }
}

}  // namespace

bool is_secret_variable(const std::string& name) {
  const std::string n = upper(name);
  for (const char* word : {"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "PRIVATE"})
    if (n.find(word) != std::string::npos) return true;
  return n.size() >= 3 && n.compare(n.size() - 3, 3, "KEY") == 0;
}

std::string shown_value(const std::string& name, const std::string& value, bool& masked) {
  masked = false;
  if (is_secret_variable(name) && !value.empty()) {
    masked = true;
    return kHidden;
  }
  // scheme://user:password@host...: the password goes, the rest is useful.
  const size_t scheme = value.find("://");
  if (scheme == std::string::npos) return value;
  const size_t start = scheme + 3;
  const size_t end = std::min(value.find('/', start), value.size());
  const size_t at = value.rfind('@', end == value.size() ? std::string::npos : end);
  if (at == std::string::npos || at < start) return value;
  const size_t colon = value.find(':', start);
  if (colon == std::string::npos || colon > at || colon + 1 == at) return value;
  masked = true;
  return value.substr(0, colon + 1) + kHidden + value.substr(at);
}

std::string shown_yaml(const std::string& text, int& masked) {
  masked = 0;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const std::exception&) {
    return "(the experiment file does not parse now, so what is secret in it cannot be told: it is not shown)\n";
  }
  std::vector<Edit> edits;
  for (const auto& d : docs) collect(d, text, edits);
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at > b.at; });
  std::string out = text;
  size_t limit = out.size();
  for (const auto& e : edits) {
    if (e.at + e.length > limit) continue;  // overlapping (an alias): the first edit stands
    out.replace(e.at, e.length, e.with);
    limit = e.at;
    ++masked;
  }
  return out;
}

}  // namespace ssim::session
