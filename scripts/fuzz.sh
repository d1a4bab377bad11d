#!/usr/bin/env bash
# Runs every fuzz target of the module for the given time each (default 60s).
# `make test` runs only their seed corpora, as ordinary tests.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-60s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for name in $(grep -ho '^func \(Fuzz[A-Za-z0-9_]*\)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}' | sed 's/(.*//'); do
    echo "== $pkg $name ($fuzztime)"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg"
  done
done
