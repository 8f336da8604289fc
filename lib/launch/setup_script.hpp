#pragma once
// What `setup:` means, in one place for every way a step starts (steps on every
// launcher, node agents, colocated and standalone databases, the --batch script, the
// dry run): the lines run in bash, one after another in one shell (so `module load`,
// `source venv/bin/activate` and `. etc/bashrc` change what follows), each must succeed
// (errexit, pipefail), and the first that fails ends the step with its exit code before
// the program starts, leaving the line and what it printed in the run directory
// (lib/state/setup_failure.hpp) for the entity's note. `module` works where the site
// has Lmod or Environment Modules even when the calling shell did not export the
// function: the first call loads the site's init script, found the way those tools
// document it. The program is found on the PATH the setup lines left.
#include <string>
#include <vector>

namespace ssim::launch {

// The script's text up to, not including, the line that starts the program. Empty
// when there are no setup lines.
std::string setup_prelude(const std::vector<std::string>& setup);

// `argv` preceded by the setup lines: `bash -c SCRIPT ssim-setup ARGV...`, the script
// ending in `exec "$@"` (the arguments are never re-split). As is without setup lines.
std::vector<std::string> with_setup(const std::vector<std::string>& setup, std::vector<std::string> argv);

}  // namespace ssim::launch
