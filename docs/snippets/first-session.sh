#!/usr/bin/env bash
# An organisation and its first session, on an API created with `serviceToken`.
# Needs: COVGATE_URL (where covgate is mounted), SERVICE_TOKEN (the same value as the API's).
set -euo pipefail
url="${COVGATE_URL:-http://localhost:3000/coverage}"
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

org_id=$(curl -sSf -X POST "$url/v1/organisations" \
  -H "Authorization: Bearer $SERVICE_TOKEN" -H 'Content-Type: application/json' \
  -d '{"slug":"acme","name":"Acme"}' | json id)

session=$(curl -sSf -X POST "$url/v1/sessions/create" \
  -H "Authorization: Bearer $SERVICE_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"user_id\":\"usr_quickstart\",\"org_id\":\"$org_id\"}" | json token)
echo "export COVGATE_SESSION=$session"
