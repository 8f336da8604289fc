// container: on an entity or under experiment: (docs/containers.md).
#include "lib/spec/parse_parts.hpp"

namespace ssim::spec {

namespace {

const std::vector<std::string> kRuntimes = {"auto", "apptainer", "singularity", "charliecloud", "podman", "docker"};

// SRC[:DST[:ro|rw]]: SRC a host path, DST absolute inside the container.
void check_bind(const YamlReader& r, const Text& bind, const std::string& field) {
  const std::string& v = bind.value;
  const size_t first = v.find(':');
  const std::string src = v.substr(0, first);
  if (src.empty()) r.fail(bind.loc, field, "expected SRC[:DST[:ro]], got \"" + printable(v) + "\" (no SRC)");
  if (first == std::string::npos) return;
  const size_t second = v.find(':', first + 1);
  const std::string dst = v.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  if (dst.empty() || dst[0] != '/')
    r.fail(bind.loc, field, "\"" + printable(dst) + "\" is not an absolute path inside the container (SRC[:DST[:ro]])");
  if (second == std::string::npos) return;
  const std::string mode = v.substr(second + 1);
  if (mode != "ro" && mode != "rw")
    r.fail(bind.loc, field, "\"" + printable(mode) + "\" is not a bind mode: ro or rw (SRC[:DST[:ro]])");
}

}  // namespace

Container read_container(const YamlReader& r, const YAML::Node& node, const std::string& field, bool allow_none) {
  Container c;
  c.loc = YamlReader::loc(node);
  c.field = field;
  if (node.IsScalar()) {  // container: ./img (the runtime found), or none
    const Text t = r.line(node, field);
    if (t.value == "none") {
      if (!allow_none) r.fail(node, field, "none is for an entity (it runs on the host whatever this default says)");
      c.none = true;
      return c;
    }
    if (t.value.empty()) r.fail(node, field, "must not be empty (an image, a mapping, or none)");
    c.image = t;
    return c;
  }
  if (!node.IsMap())
    r.fail(node, field,
           "expected a mapping {runtime: charliecloud, image: ./img} or an image, got " + YamlReader::describe(node));
  r.expect_map(node, field, {"runtime", "image", "bind", "options"});
  const auto f = [&](const char* key) { return join_field(field, key); };
  if (auto n = node["runtime"]) c.runtime = r.choice(n, f("runtime"), kRuntimes);
  const YAML::Node image = node["image"];
  if (!image) r.fail(node, f("image"), "missing (a .sif, a directory image, or a name the runtime knows)");
  c.image = r.line(image, f("image"));
  if (c.image.value.empty()) r.fail(image, f("image"), "must not be empty");
  if (auto n = node["bind"]) {
    c.bind = r.line_list(n, f("bind"));
    for (size_t i = 0; i < c.bind.size(); ++i) check_bind(r, c.bind[i], index_field(f("bind"), i));
  }
  if (auto n = node["options"]) {
    c.options = r.line_list(n, f("options"));
    for (size_t i = 0; i < c.options.size(); ++i)
      if (c.options[i].value.empty() || c.options[i].value[0] != '-')
        r.fail(c.options[i].loc, index_field(f("options"), i),
               "\"" + printable(c.options[i].value) +
                   "\" is not an option (each starts with -; the image goes under image:)");
  }
  return c;
}

}  // namespace ssim::spec
