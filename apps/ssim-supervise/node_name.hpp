#pragma once
// The name of the node this process runs on, as the scheduler names it: the variable
// SSIM_NODE_VARIABLE names (set by ssim from the scheduler's own, whose node names may
// differ from host names: launchers/), else the host name.
#include <string>

std::string node_name();
