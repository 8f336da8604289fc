#pragma once
// `ssim status -o FORMAT`: named fields of an entity, as `flux jobs -o` has them.
// FORMAT is "{name} {status} {elapsed}" (text between fields kept, each field padded to
// its column) or a plain list "name,status,elapsed". Pure: unit-tested.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::app {

// Every field name with what it shows, for --help and the error message.
const std::vector<std::pair<std::string, std::string>>& status_field_help();

struct StatusFormat {
  std::vector<std::string> literals;  // before each field, and one after the last
  std::vector<std::string> fields;
  std::vector<std::string> metrics;  // fields that are no built-in: metric names (loss, val_acc)
};
// Throws UsageError naming an unknown field or an unclosed brace. With `metrics`, a field
// that is no built-in but a valid metric name is taken as a metric (its latest value);
// whoever reads the metrics then checks that some entity reported it.
StatusFormat parse_status_format(const std::string& text, bool metrics = false);

// The latest value of each metric column, per entity name ("0.3125").
using MetricColumns = std::map<std::string, std::map<std::string, std::string>>;
// The fields of `f` that are metrics no entity of `columns` reported (nor a parameter of
// theirs: `parameters`, also columns): UsageError, naming the built-in fields, the metrics
// there are and the parameters.
void check_metric_fields(const StatusFormat& f, const MetricColumns& columns,
                         const std::set<std::string>& parameters = {});

// The value of one field ("-" when there is none); `now` ends elapsed times still running.
std::string status_field(const state::EntityRecord& e, const std::string& field, double now);
// Elapsed seconds as [D-]HH:MM:SS ("-" for none).
std::string clock_text(double seconds);
// A header line and one line per entity, each field padded to its column's width.
std::vector<std::string> format_status(const StatusFormat& f, const std::vector<const state::EntityRecord*>& rows,
                                       double now, const MetricColumns& metrics = {});

}  // namespace ssim::app
