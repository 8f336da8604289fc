#pragma once
// Shared checks for values that go into batch-script directives.
#include <string>

namespace ssim::launchers {

// Throws UsageError when `value` (of option `what`) holds a newline, a
// carriage return or a double quote: no scheduler's directive syntax can carry them.
void check_directive_value(const std::string& what, const std::string& value);

// The same for an option name, which may not hold blanks either (it would split).
void check_directive_option(const std::string& option);

// A directive value, double-quoted when it holds blanks (as #SBATCH/#PBS/#BSUB read them).
std::string directive_word(const std::string& value);

// Seconds -> "HH:MM:SS" (hours may exceed 24).
std::string hms(long seconds);

}  // namespace ssim::launchers
