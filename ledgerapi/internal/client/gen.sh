#!/usr/bin/env bash
# Generates the test client from the Ledger API spec (testdata copy of
# shared/specs/ledger-api-v2.yaml). The spec is used unchanged except for
# Go type names oapi-codegen cannot derive by itself (x-go-name only).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '{print} /^    [A-Za-z]+[0-9]+:$/ {n=$1; sub(/:$/, "", n); match(n, /[0-9]+$/); print "      x-go-name: " substr(n, 1, RSTART-1) "Alt" substr(n, RSTART)}' ../../../apispec/specs/ledger-api-v2.yaml >"$tmp/spec.yaml"
go tool oapi-codegen -config oapi.yaml "$tmp/spec.yaml"
