// Loading the YAML text: yaml-cpp's own messages point at where it gave up, which for an
// unclosed bracket is the end of the file; a person wants the line where it opened.
#include <algorithm>
#include <vector>

#include "lib/spec/parse_parts.hpp"

namespace ssim::spec {

namespace {

constexpr int kMaxDepth = 64;  // far beyond any experiment; yaml-cpp recurses per level

struct Opener {
  char bracket;
  Loc loc;
};

// Flow brackets ([ and {) still open at the end of `text`, and the deepest nesting seen
// (flow brackets plus block indentation levels), skipping quoted scalars and comments.
struct BracketScan {
  std::vector<Opener> open;
  int max_depth = 0;
  Loc too_deep;  // where the nesting first went past kMaxDepth
};

// Quotes and brackets open a scalar or a flow only at the start of a token; inside a
// plain scalar (exe: a[1]) they are ordinary characters.
bool token_start(char previous) {
  return previous == ' ' || previous == '\t' || previous == '\n' || previous == '[' || previous == '{' ||
         previous == ',' || previous == ':' || previous == '-';
}

void note_depth(BracketScan& scan, int depth, Loc where) {
  if (depth > kMaxDepth && scan.max_depth <= kMaxDepth) scan.too_deep = where;
  scan.max_depth = std::max(scan.max_depth, depth);
}

BracketScan scan_brackets(std::string_view text) {
  BracketScan scan;
  int line = 1, col = 0;
  char quote = 0;
  bool comment = false;
  bool at_line_start = true;
  std::vector<int> indents;  // block nesting: indentation of the enclosing lines
  char previous = '\n';
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++col;
    if (c == '\n') {
      ++line, col = 0, comment = false, at_line_start = true, previous = c;
      continue;  // quoted scalars may span lines: `quote` stays
    }
    if (at_line_start && c != ' ') {
      at_line_start = false;
      if (c != '#' && scan.open.empty() && !quote) {
        const int indent = col - 1;
        while (!indents.empty() && indents.back() >= indent) indents.pop_back();
        indents.push_back(indent);
        note_depth(scan, static_cast<int>(indents.size()), {line, col});
      }
    }
    if (comment) continue;
    if (quote) {
      if (quote == '"' && c == '\\') {
        ++i, ++col;
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
          ++i, ++col;  // '' escape
        else
          quote = 0;
      }
      previous = c;
      continue;
    }
    if (c == '#' && (previous == ' ' || previous == '\t' || previous == '\n' || col == 1)) {
      comment = true;
    } else if ((c == '"' || c == '\'') && token_start(previous)) {
      quote = c;
    } else if ((c == '[' || c == '{') && token_start(previous)) {
      scan.open.push_back({c, {line, col}});
      note_depth(scan, static_cast<int>(scan.open.size() + indents.size()), {line, col});
    } else if ((c == ']' || c == '}') && !scan.open.empty()) {
      scan.open.pop_back();
    }
    previous = c;
  }
  return scan;
}

std::string tab_hint(std::string_view text, int error_line) {
  int line = 1;
  size_t start = 0;
  while (line < error_line + 1 && start < text.size()) {
    const size_t end = text.find('\n', start);
    if (line == error_line + 1 || end == std::string_view::npos) break;
    start = end + 1;
    ++line;
  }
  const std::string_view rest = text.substr(std::min(start, text.size()));
  const std::string_view one = rest.substr(0, rest.find('\n'));
  return one.find('\t') != std::string_view::npos ? " (YAML does not allow tabs for indentation)" : "";
}

}  // namespace

std::vector<YAML::Node> load_documents(const YamlReader& r, std::string_view text) {
  const BracketScan scan = scan_brackets(text);
  if (scan.max_depth > kMaxDepth)
    r.fail(scan.too_deep, "", "nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    if (e.msg.find("flow") != std::string::npos && !scan.open.empty()) {
      const Opener& o = scan.open.back();
      r.fail(o.loc, "",
             std::string("not valid YAML: this ") + o.bracket + " is never closed (no matching " +
                 (o.bracket == '[' ? "]" : "}") + ")");
    }
    const Loc where = e.mark.line < 0 ? Loc{1, 1} : Loc{e.mark.line + 1, e.mark.column + 1};
    r.fail(where, "", "not valid YAML: " + e.msg + tab_hint(text, e.mark.line));
  }
}

}  // namespace ssim::spec
