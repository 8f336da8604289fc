#include "lib/launch/setup_script.hpp"

#include "lib/state/setup_failure.hpp"
#include "lib/util/shell_quote.hpp"

namespace ssim::launch {

namespace {

// Loads the site's module command on first use: the exported function when the calling
// shell had one (bash imports it), else the init script of Lmod ($LMOD_PKG, $LMOD_CMD)
// or Environment Modules ($MODULESHOME), else the ones /etc/profile.d would have run.
// Init scripts are not written for errexit, so they run without it.
constexpr const char* kModuleLoader = R"SH(__ssim_module_init() {
  local o=$- p= f
  shopt -qo pipefail && p=1
  set +e +o pipefail
  unset -f module ml
  for f in ${LMOD_PKG:+"$LMOD_PKG/init/bash"} ${LMOD_CMD:+"${LMOD_CMD%/libexec/*}/init/bash"} \
      ${MODULESHOME:+"$MODULESHOME/init/bash"} /etc/profile.d/lmod.sh /etc/profile.d/modules.sh \
      /usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do
    if [ -r "$f" ]; then . "$f" >/dev/null 2>&1; declare -F module >/dev/null && break; fi
  done
  case $o in *e*) set -e ;; esac
  [ -z "$p" ] || set -o pipefail
  declare -F module >/dev/null && return 0
  echo "ssim: no module command here: neither Lmod nor Environment Modules was found (\$LMOD_PKG, \$MODULESHOME, /etc/profile.d)" >&2
  return 127
}
if ! declare -F module >/dev/null; then
  module() { __ssim_module_init && module "$@"; }
  ml() { __ssim_module_init && ml "$@"; }
fi
)SH";

// On the way out before the program started: what the failed line printed, then one
// line naming it, on the step's own stderr (saved at the start: a line that fails inside
// a function leaves its `2>` in force while the trap runs); the same in the run directory
// for the entity's note. No errexit here: the note is written whatever else fails. A line
// that ends the shell with status 0 (`exit 0`) never reached the program either: it fails.
constexpr const char* kFailureTrap = R"SH(__ssim_failed() {
  local rc=${__ssim_sig_rc:-$?}
  set +eu +o pipefail
  [ -z "$__ssim_stderr" ] || exec 2>&"$__ssim_stderr"
  if [ "$rc" -eq 0 ]; then
    printf 'ssim: setup line %s ended the step before the program started: %s\n' "$__ssim_n" "$__ssim_text" >&2
  else
    [ "$__ssim_err" = /dev/null ] || cat "$__ssim_err" >&2
    printf 'ssim: setup line %s failed (exit %s): %s\n' "$__ssim_n" "$rc" "$__ssim_text" >&2
  fi
  { printf '%s\n%s\n%s\n' "$__ssim_n" "$rc" "$__ssim_text"
    [ "$__ssim_err" = /dev/null ] || cat "$__ssim_err"; } >"$__ssim_dir/)SH";

constexpr const char* kSignalTrap = R"SH(__ssim_signalled() {
  __ssim_sig_rc=$2 __ssim_failed
  trap - EXIT "$1"
  kill -s "$1" $$
}
for __ssim_s in HUP:129 INT:130 QUIT:131 TERM:143; do
  trap "__ssim_signalled ${__ssim_s%:*} ${__ssim_s#*:}" "${__ssim_s%:*}"
done
)SH";

}  // namespace

std::string setup_prelude(const std::vector<std::string>& setup) {
  if (setup.empty()) return "";
  const std::string failed = state::kSetupFailedFile;
  std::string s =
      "# setup: lines (docs/experiment-file.md): bash, errexit and pipefail, the first failure ends the step\n";
  s += "__ssim_dir=$PWD\n";
  s += "rm -f \"$__ssim_dir/" + failed + "\" 2>/dev/null\n";
  s += "__ssim_err=$__ssim_dir/" + std::string(state::kSetupStderrFile) + "\n";
  s += "{ : >\"$__ssim_err\"; } 2>/dev/null || __ssim_err=/dev/null\n";
  s += "exec {__ssim_stderr}>&2\n";
  s += kModuleLoader;
  s += kFailureTrap + failed + "\" 2>/dev/null\n";
  s += "  [ \"$__ssim_err\" = /dev/null ] || rm -f \"$__ssim_err\"\n";
  s += "  [ \"$rc\" -ne 0 ] || exit 1\n}\n";
  // A signal (a line's own kill, ssim stop, the OOM killer's SIGTERM first): the note is
  // written, then the shell ends by that signal, as the program would have.
  s += kSignalTrap;
  s += "trap __ssim_failed EXIT\nset -eo pipefail\n";
  for (size_t i = 0; i < setup.size(); ++i) {
    std::string flat = setup[i];
    for (char& c : flat)
      if (c == '\n' || c == '\r') c = ' ';
    s += "__ssim_n=" + std::to_string(i + 1) + " __ssim_text=" + shell_quote(flat) + "\n";
    // A group, not a subshell: what the line sets stays. Its stderr is kept until it has
    // ended, for the note, then passed on.
    s += "{ " + setup[i] + "\n} 2>\"$__ssim_err\"\n";
    s += "[ \"$__ssim_err\" = /dev/null ] || cat \"$__ssim_err\" >&2 || true\n";
  }
  s += "trap - EXIT HUP INT QUIT TERM\nset +eo pipefail\n";
  s += "[ \"$__ssim_err\" = /dev/null ] || rm -f \"$__ssim_err\"\n";
  s += "exec {__ssim_stderr}>&-\n";
  s += "unset __ssim_dir __ssim_err __ssim_n __ssim_text __ssim_stderr __ssim_s\n";
  return s;
}

std::vector<std::string> with_setup(const std::vector<std::string>& setup, std::vector<std::string> argv) {
  if (setup.empty()) return argv;
  // The program is looked for on the PATH the lines leave: said as the entity's exe, not
  // as bash's "line 61: exec: ...: not found" about a script the user never wrote.
  const std::string run =
      "command -v -- \"$1\" >/dev/null 2>&1 || { printf 'ssim: exe \"%s\" is not on the PATH the setup lines leave "
      "(or not executable): %s\\n' \"$1\" \"$PATH\" >&2; exit 127; }\nexec \"$@\"";
  std::vector<std::string> out = {"bash", "-c", setup_prelude(setup) + run, "ssim-setup"};
  out.insert(out.end(), std::make_move_iterator(argv.begin()), std::make_move_iterator(argv.end()));
  return out;
}

}  // namespace ssim::launch
