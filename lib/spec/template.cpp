#include "lib/spec/template.hpp"

namespace ssim::spec {

const std::vector<std::string>& builtin_parameters() {
  static const std::vector<std::string> names = {"entity",       "ensemble",   "replica",
                                                 "member_index", "experiment", "run_dir"};
  return names;
}

namespace {
// Walks `text`, calling on_literal for plain runs and on_ref for each $(name).
template <class Literal, class Ref>
void scan(const std::string& text, Literal on_literal, Ref on_ref) {
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      on_literal(text[i++]);
      continue;
    }
    if (text[i + 1] == '$') {
      on_literal('$');
      i += 2;
    } else if (text[i + 1] == '(') {
      const size_t close = text.find(')', i + 2);
      if (close == std::string::npos)
        throw TemplateError("unclosed \"$(\" in \"" + text + "\" (write $$ for a literal $)");
      on_ref(text.substr(i + 2, close - i - 2));
      i = close + 1;
    } else {
      on_literal(text[i++]);
    }
  }
}
}  // namespace

std::vector<std::string> template_refs(const std::string& text) {
  std::vector<std::string> refs;
  scan(
      text, [](char) {}, [&](const std::string& name) { refs.push_back(name); });
  return refs;
}

std::string substitute(const std::string& text,
                       const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  std::string out;
  out.reserve(text.size());
  scan(
      text, [&](char c) { out += c; },
      [&](const std::string& name) {
        auto value = lookup(name);
        if (!value) throw TemplateError("unknown parameter $(" + name + ")");
        out += *value;
      });
  return out;
}

}  // namespace ssim::spec
