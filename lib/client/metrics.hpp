#pragma once
// Training metrics from C++ (docs/metrics.md), the same as Python's ssim.metrics:
//   ssim::metrics::log("loss", 0.31, 120);          // name, value, step
//   ssim::metrics::log("val_acc", 0.9, 120, 2, "val");
// A call appends to a buffer; a thread of its own writes it to
// <SSIM_RUN_DIR>/metrics.RANK.ndjson at least every second, and at exit.
#include <optional>
#include <string>

namespace ssim::metrics {

// Throws std::invalid_argument for a name that is not letters, digits, _ . - /
// (starting with a letter, at most 64 bytes). NaN and infinite values are skipped.
void log(const std::string& name, double value, std::optional<long long> step = std::nullopt,
         std::optional<long long> epoch = std::nullopt, const std::string& phase = "");

// Writes what is buffered now.
void flush();

// This process's rank as its launcher tells it (OMPI, PMI, PMIx, Slurm, PALS, jsrun,
// torch), 0 when alone.
int rank();

}  // namespace ssim::metrics
