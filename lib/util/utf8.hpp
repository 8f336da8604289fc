#pragma once
// Text a program printed, made safe to show: valid UTF-8 with no control characters.
#include <string>
#include <string_view>

namespace ssim {

// Invalid UTF-8 (bad bytes, overlongs, surrogates, cut sequences) and control
// characters (C0 but tab, DEL, C1: ESC and CSI included) become U+FFFD; newlines and
// carriage returns stay when `keep_newlines`.
std::string sanitized_utf8(std::string_view text, bool keep_newlines);

}  // namespace ssim
