#pragma once
// ssim-supervise's modes inside a scheduler's job or step; each returns the exit code.

#include <string>

namespace supervise {

// TEMPLATE with each {VAR} replaced by that environment variable; `complete` is false
// when one was unset or empty.
std::string expand_braces(const std::string& tmpl, bool& complete);

// --record-step FILE --id TEMPLATE --rank-var VAR -- PROGRAM...
int record_step_and_wait(int argc, char** argv);
// --wrap STATUS_FILE [--node-variable NAME] -- PROGRAM...
int wrap_and_wait(int argc, char** argv);

}  // namespace supervise
