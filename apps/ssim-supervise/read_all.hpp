#pragma once
// A whole file, for the supervisor's modes (no library beyond libc: it is linked statically).
#include <string>

// The file's bytes; `ok` is false when it cannot be opened.
std::string read_all(const std::string& path, bool& ok);
