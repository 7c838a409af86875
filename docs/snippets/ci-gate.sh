#!/usr/bin/env bash
# Record a CI run's coverage and fail the job when the gate fails.
# Needs: COVGATE_URL, COVGATE_TOKEN (an API token with the execute scope),
# REPO, BRANCH and COVERAGE (the percentage your coverage tool reported, e.g. 84.13).
set -euo pipefail
url="${COVGATE_URL:-http://localhost:8080}"
record=$(curl -sSf -X POST "$url/v1/executions" \
  -H "Authorization: Bearer $COVGATE_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"repo\":\"$REPO\",\"branch\":\"$BRANCH\",\"coverage\":$COVERAGE}")
echo "$record"
outcome=$(node -e 'console.log(JSON.parse(process.argv[1]).outcome)' "$record")
if [ "$outcome" = fail ]; then
  echo "covgate: coverage gate failed for $REPO@$BRANCH" >&2
  exit 1
fi
