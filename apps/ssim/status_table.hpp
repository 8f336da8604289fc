#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "lib/state/manifest.hpp"

namespace ssim::app {

// One row per entity of `rows`: by default name, type, job id, status, exit code or
// signal, elapsed, nodes, parameters (when any), note; or the fields of `format`
// (status_format.hpp). Throws UsageError for a bad format.
void print_status_table(std::ostream& out, const std::vector<const state::EntityRecord*>& rows,
                        const std::string& format = "");
// With the fields of `format` that are metrics (ssim status -o name,status,loss): their
// latest values, read from each entity's run directory. `sort` ("loss", "-val_acc": a
// field or a metric, "-" for descending) orders the rows: numbers as numbers, missing
// values last.
void print_status_table_with_metrics(std::ostream& out, std::vector<const state::EntityRecord*> rows,
                                     const std::string& format, const std::string& sort = "");
// `rows` ordered by `sort` as above, each with its value of that field or metric ("-":
// none). Throws UsageError for a metric nobody reported.
struct SortedRow {
  const state::EntityRecord* entity;
  std::string value;
};
std::vector<SortedRow> sorted_by(const std::vector<const state::EntityRecord*>& rows, const std::string& sort);
// Every entity, the default fields.
void print_status_table(std::ostream& out, const state::Manifest& m);

}  // namespace ssim::app
