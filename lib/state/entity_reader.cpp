#include "lib/state/entity_reader.hpp"

#include "lib/state/quick_json.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ssim::state {

using nlohmann::json;

namespace {

std::string take_string(json& v) { return v.is_string() ? std::move(v.get_ref<std::string&>()) : v.get<std::string>(); }

std::optional<int> int_or_null(const json& v) {
  if (v.is_null()) return std::nullopt;
  return v.get<int>();
}

void read_goal(const json& g, EntityRecord& r) {
  if (!g.is_object()) return;
  auto goal = std::make_shared<Goal>();
  goal->metric = g.value("metric", "");
  goal->at_least = g.contains("at_least");
  goal->target = g.value(goal->at_least ? "at_least" : "at_most", 0.0);
  goal->stop = g.value("stop_on_goal", false);
  r.goal = std::move(goal);
  if (auto reached = g.find("reached"); reached != g.end() && reached->is_object()) {
    GoalReached gr;
    gr.value = reached->value("value", 0.0);
    gr.seconds = reached->value("seconds", -1.0);
    if (reached->contains("step")) gr.step = reached->value("step", 0LL);
    r.extra_mut().reached = std::make_shared<const GoalReached>(gr);
  }
}

// One field of the record, whichever reader found it; a key it does not know is left
// alone (a newer ssim's field). A value of the wrong type throws, as json::get does.
void field(EntityRecord& r, std::string_view key, json& v) {  // a view: its == compares sizes first
  if (key == "name")
    r.name = take_string(v);
  else if (key == "type")
    r.type = entity_kind(take_string(v));
  else if (key == "ensemble")
    r.ensemble = take_string(v);
  else if (key == "run_dir")
    r.run_dir = take_string(v);
  else if (key == "after") {
    if (!v.empty()) r.extra_mut().after = v.get<std::vector<std::string>>();
  } else if (key == "after_any") {
    if (!v.empty()) r.extra_mut().after_any = v.get<std::vector<std::string>>();
  } else if (key == "status")
    r.status = status_from_string(take_string(v));
  else if (key == "launcher") {
    // the manifest's own, written on every line for readers of the file
  } else if (key == "job_id")
    r.job_id = take_string(v);
  else if (key == "pid")
    r.pid = v.get<int>();
  else if (key == "native_id") {
    if (auto id = take_string(v); !id.empty()) r.extra_mut().native_id = std::move(id);
  } else if (key == "exit_code")
    r.exit_code = int_or_null(v);
  else if (key == "signal")
    r.signal = int_or_null(v);
  else if (key == "reason")
    r.reason = take_string(v);
  else if (key == "submitted")
    r.submitted = v.get<double>();
  else if (key == "nodes")
    r.nodes = take_string(v);
  else if (key == "params") {
    if (!v.empty()) r.extra_mut().params = v.get<std::map<std::string, std::string>>();
  } else if (key == "start")
    r.start = v.get<double>();
  else if (key == "end")
    r.end = v.get<double>();
  else if (key == "attempt")
    r.attempt = v.get<int>();
  else if (key == "retry_at")
    r.retry_at = v.get<double>();
  else if (key == "held")
    r.held = v.get<bool>();
  else if (key == "setup")
    r.setup = v.get<bool>();
  else if (key == "no_metrics")
    r.no_metrics = v.get<bool>();
  else if (key == "earlier_attempts") {
    if (!v.empty()) r.extra_mut().earlier_attempts = std::move(v);  // empty: no extra made
  } else if (key == "goal")
    read_goal(v, r);
}

// A record before its fields: a record without a status is "unknown", not new.
EntityRecord blank_record() {
  EntityRecord r;
  r.status = status_from_string("unknown");
  return r;
}

// The entity's fields as the parser meets them: scalars go straight into the record,
// and only an object or array value (params, after, goal, earlier attempts: small or
// empty) is built as JSON first. Anything else (not an object, a syntax error) stops
// it, and the text is then parsed as a document, which says what is wrong.
class EntityEvents : public nlohmann::json_sax<json> {
 public:
  explicit EntityEvents(EntityRecord& r) : r_(r) {}

  bool null() override { return scalar(json(nullptr)); }
  bool boolean(bool v) override { return scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(json(v)); }
  bool string(string_t& v) override { return scalar(json(std::move(v))); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    (open_.size() == 1 ? key_ : inner_key_) = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool scalar(json v) {
    if (open_.empty()) return false;  // the text is not an object
    if (open_.size() == 1)
      field(r_, key_, v);
    else
      put(std::move(v));
    return true;
  }
  // Into the container being built: `v` appended, or under the last key.
  json* put(json v) {
    json& top = *open_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    json& slot = top[inner_key_];
    slot = std::move(v);
    return &slot;
  }
  bool open(json v) {
    if (open_.empty()) {  // the entity itself
      open_.push_back(nullptr);
      return v.is_object();
    }
    open_.push_back(open_.size() == 1 ? &(value_ = std::move(v)) : put(std::move(v)));
    return true;
  }
  bool close() {
    open_.pop_back();
    if (open_.size() == 1) field(r_, key_, value_);
    return true;
  }

  EntityRecord& r_;
  std::vector<json*> open_;  // the containers open: the entity (nullptr), then those inside
  json value_;               // the object or array value of key_, while it is read
  std::string key_, inner_key_;
};

}  // namespace

EntityRecord entity_from_json(const json& e) {
  if (!e.is_object()) (void)e.at("name");  // throws, naming the type it found
  EntityRecord r = blank_record();
  for (const auto& item : e.items()) {
    json v = item.value();
    field(r, item.key(), v);
  }
  return r;
}

EntityRecord entity_from_text(std::string_view text) {
  EntityRecord r = blank_record();
  {  // the quick reader first (quick_json.hpp): the text as ssim writes it
    EntityEvents quick(r);
    if (quick_sax_parse(text, quick)) return r;
  }
  r = blank_record();  // it gave up part way: nlohmann's parser, from the start
  EntityEvents events(r);
  if (json::sax_parse(text.begin(), text.end(), &events)) return r;
  return entity_from_json(json::parse(text));
}

}  // namespace ssim::state
