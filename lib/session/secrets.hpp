#pragma once
// The one rule for what is secret, for every page, the report file and --json outputs
// that show what a user wrote or what a program was started with.
#include <string>

namespace ssim::session {

// A variable (or key) whose name says it holds a secret: PASSWORD, PASSWD, SECRET, TOKEN,
// CREDENTIAL, PRIVATE, or a name ending in KEY (API_KEY, AWS_SECRET_ACCESS_KEY), in any case.
bool is_secret_variable(const std::string& name);

// What is shown of `value`: "********" for a secret, a URL's password hidden
// ("redis://:********@host"), else the value. `masked` says whether anything was hidden.
std::string shown_value(const std::string& name, const std::string& value, bool& masked);

// The experiment file's text as it may be shown: the value of every key named like a
// secret (env: entries, orchestrator.password, ...) and every URL's password replaced by
// "********", the rest byte for byte. A text that does not parse is not shown at all (a
// line says so), since what is secret in it cannot be told. `masked` counts what was hidden.
std::string shown_yaml(const std::string& text, int& masked);

}  // namespace ssim::session
