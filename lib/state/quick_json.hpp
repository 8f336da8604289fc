#pragma once
// A quick reader for the JSON ssim writes itself (a manifest's entity lines): plain ASCII
// strings without escapes, numbers, literals, objects and arrays, told to a SAX handler
// in the order nlohmann's parser tells them. Anything else (an escape, a byte outside
// printable ASCII, a syntax error, a number it cannot hold) makes it give up and return
// false, having told the handler only part of the text: the caller starts again with
// nlohmann's parser, which says what is wrong. A million entity lines are most of what
// `ssim status` does on a large experiment; nlohmann's lexer, a byte at a time, was
// half of it.
#include <string_view>

#include <nlohmann/json.hpp>

namespace ssim::state {

// True when `text` is one JSON value this reader takes whole, and `sax` accepted every event.
bool quick_sax_parse(std::string_view text, nlohmann::json_sax<nlohmann::json>& sax);

}  // namespace ssim::state
