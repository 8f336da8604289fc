#pragma once
#include <functional>
#include <optional>
#include <string>

#include "lib/plan/plan.hpp"

namespace ssim::plan {

// Seconds in a Slurm-style time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS);
// 0 for "". The string is valid (spec::is_slurm_time).
long time_seconds(const std::string& time);

using Lookup = std::function<std::optional<std::string>(const std::string&)>;

// Substitutes $(name) in `text`, reporting failures as SpecError at the text's position.
std::string substitute_at(const std::string& file, const std::string& field, const spec::Text& text,
                          const Lookup& lookup);

// Substitutes and type-checks run: settings ("ntasks: $(workers)" becomes an integer).
Resources resolve_resources(const std::string& file, const std::string& field, const spec::RunSettings& run,
                            const Lookup& lookup);

}  // namespace ssim::plan
