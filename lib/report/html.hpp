#pragma once
// Small pieces for writing HTML and SVG by hand: escaping and number formatting.
#include <string>
#include <string_view>

namespace ssim::report {

// Text for an HTML element or a quoted attribute value.
std::string escape(std::string_view text);
// "12.3 s", "4 min 05 s", "2 h 03 min": a duration for people.
std::string duration_text(double seconds);
// A number with up to `digits` decimals, trailing zeros dropped ("1.5", "2").
std::string number(double value, int digits = 1);
// The local date and time of epoch seconds ("2026-11-23 12:07:22").
std::string date_time(double epoch_seconds);

}  // namespace ssim::report
