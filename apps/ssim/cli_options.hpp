#pragma once
// Options several verbs share.
#include <CLI/CLI.hpp>

namespace ssim::app {
// --max-members of validate and run: the cap on ensemble members for every load() of
// this process (session::parse_options()).
void add_max_members_option(CLI::App& cmd);
}  // namespace ssim::app
