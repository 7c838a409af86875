#!/usr/bin/env bash
# From an empty store to a listed execution, on an API created with `serviceToken`:
# organisation -> session -> API token -> one run -> the list.
# Needs: COVGATE_URL (where covgate is mounted), SERVICE_TOKEN (the same value as the API's).
set -euo pipefail
url="${COVGATE_URL:-http://localhost:3000/coverage}"
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }
post() { curl -sSf -X POST "$url$1" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$3"; }

org_id=$(post /v1/organisations "$SERVICE_TOKEN" '{"slug":"acme","name":"Acme"}' | json id)
session=$(post /v1/sessions/create "$SERVICE_TOKEN" "{\"user_id\":\"usr_me\",\"org_id\":\"$org_id\"}" | json token)
token=$(post /v1/tokens "$session" '{"name":"ci"}' | json secret)
post /v1/executions "$token" '{"repo":"web","branch":"main","coverage":84.13}' > /dev/null
curl -sSf "$url/v1/executions?org=acme&repo=web" -H "Authorization: Bearer $token"
echo
