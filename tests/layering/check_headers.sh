#!/usr/bin/env bash
# Every header compiles alone (includes what it uses): the build's unity batches would
# otherwise hide a missing include until a batch changes. Two at a time.
set -uo pipefail
cd "$(dirname "$0")/../.."
failed=$(git ls-files 'lib/*.hpp' 'launchers/*.hpp' 'apps/*.hpp' | xargs -P"$(nproc)" -I{} sh -c \
  'printf "#include \"%s\"\n" "{}" | g++ -std=c++20 -fsyntax-only -I. -I/usr/include/hiredis -x c++ - >/dev/null 2>&1 || echo "{}"')
if [ -n "$failed" ]; then
  echo "headers: these do not compile alone (a missing #include):"
  echo "$failed"
  exit 1
fi
echo "headers: every header compiles alone"
