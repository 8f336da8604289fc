#pragma once
// $(name) templates of the experiment file (docs/experiment-file.md): `$(name)` is replaced by a value, `$$` is a
// literal `$`, any other `$` is left as it is. Nothing else is expanded.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ssim::spec {

struct TemplateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The names referenced by `text`, in order. Throws TemplateError for an unclosed "$(".
std::vector<std::string> template_refs(const std::string& text);

// The names every entity has without declaring them: entity, ensemble, replica (the copy
// of its parameter combination, 0..replicas-1), member_index (its place in the
// ensemble, 0..N-1), experiment, run_dir. They cannot be parameter names.
const std::vector<std::string>& builtin_parameters();

// Replaces every $(name) by lookup(name); throws TemplateError when lookup has no value.
std::string substitute(const std::string& text,
                       const std::function<std::optional<std::string>(const std::string&)>& lookup);

}  // namespace ssim::spec
