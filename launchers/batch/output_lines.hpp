#pragma once
// Small helpers for reading schedulers' text answers.
#include <initializer_list>
#include <string>

namespace ssim::launchers {

// True when every non-empty line of `text` contains one of `benign` (a cancel whose
// only complaints are "already finished").
bool every_line_matches(const std::string& text, std::initializer_list<const char*> benign);

// The first line of `text`, without trailing blanks.
std::string first_line(const std::string& text);

}  // namespace ssim::launchers
