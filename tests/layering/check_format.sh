#!/usr/bin/env bash
# Fails on any C/C++ file git tracks that differs from the tree's .clang-format (Debian 12's
# clang-format 14). Fix with: git ls-files '*.cpp' '*.hpp' '*.h' '*.c' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "format: clang-format is missing (scripts/install-deps.sh installs it)"; exit 1; }
out=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' | xargs clang-format --dry-run 2>&1 | grep 'warning:' | cut -d: -f1 | sort -u || true)
if [ -n "$out" ]; then
  echo "format: these files differ from .clang-format (run clang-format -i on them):"
  echo "$out"
  exit 1
fi
echo "format: every C/C++ file follows .clang-format"
