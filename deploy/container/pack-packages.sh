#!/usr/bin/env bash
# Packs @covgate/server and the workspace packages it depends on into deploy/container/packages/,
# exactly as `pnpm publish` would ship them: the Dockerfile installs these tarballs with npm.
# Run after `pnpm run build` (the tarballs hold dist/, not sources).
set -euo pipefail
cd "$(dirname "$0")/../.."
dest="$PWD/deploy/container/packages"
rm -rf "$dest" && mkdir -p "$dest"
for dist in examples/server/dist packages/core/dist packages/dashboard/dist; do
  [ -d "$dist" ] || { echo "pack-packages: $dist is missing: run \`pnpm run build\` first" >&2; exit 1; }
done
pnpm --filter-prod "@covgate/server..." --workspace-concurrency=2 exec pnpm pack --pack-destination "$dest" >/dev/null
ls -1 "$dest"
