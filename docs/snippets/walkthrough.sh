#!/usr/bin/env bash
# From an organisation's first session to a listed execution and a badge.
# Needs: COVGATE_URL (the server), COVGATE_SESSION (a session token of organisation acme).
set -euo pipefail
url="${COVGATE_URL:-http://localhost:8080}"
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

# 1. An API token with the execute scope (the secret is shown once)
COVGATE_TOKEN=$(curl -sSf -X POST "$url/v1/tokens" \
  -H "Authorization: Bearer $COVGATE_SESSION" -H 'Content-Type: application/json' \
  -d '{"name":"ci"}' | json secret)

# 2. Two coverage-gate runs; the gate is evaluated server-side
curl -sSf -X POST "$url/v1/executions" \
  -H "Authorization: Bearer $COVGATE_TOKEN" -H 'Content-Type: application/json' \
  -d '{"repo":"web","branch":"main","coverage":84.13}'
echo
curl -sSf -X POST "$url/v1/executions" \
  -H "Authorization: Bearer $COVGATE_TOKEN" -H 'Content-Type: application/json' \
  -d '{"repo":"web","branch":"feature/login","coverage":82.9}'
echo

# 3. The executions of the repository, newest first
curl -sSf "$url/v1/executions?org=acme&repo=web" -H "Authorization: Bearer $COVGATE_TOKEN"
echo

# 4. The badge (no authentication)
curl -sSf "$url/v1/badge/acme/web" -o badge.svg
echo "badge.svg: $(wc -c < badge.svg) bytes"
