#!/usr/bin/env bash
# Gate a Node project: run its tests under c8, read the lcov report, record the run.
# Needs: COVGATE_URL and COVGATE_TOKEN (an API token with the execute scope).
set -euo pipefail
npx covgate run --repo web --report coverage/lcov.info -- npx c8 --reporter=lcov node --test
