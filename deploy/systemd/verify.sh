#!/usr/bin/env bash
# Checks deploy/systemd/covgate.service with `systemd-analyze verify` (syntax, directives, the
# executable) and that its hardening stays on. Exits non-zero on any finding.
set -euo pipefail
unit="$(cd "$(dirname "$0")" && pwd)/covgate.service"
# verify prints findings on stderr and may exit 0 for some of them: any output is a failure.
findings=$(systemd-analyze verify "$unit" 2>&1) || { echo "$findings" >&2; exit 1; }
if [ -n "$findings" ]; then echo "$findings" >&2; exit 1; fi
for setting in DynamicUser=yes NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
  PrivateTmp=yes CapabilityBoundingSet= SystemCallFilter=@system-service UMask=0077; do
  grep -qx "$setting" "$unit" || { echo "covgate.service: $setting is missing" >&2; exit 1; }
done
# systemd's own exposure score (0 best, 10 worst; 1.3 when written): fail above 2.0.
if systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then
  systemd-analyze security --offline=yes --threshold=20 "$unit" >/dev/null 2>&1 || {
    systemd-analyze security --offline=yes "$unit" 2>&1 | tail -1 >&2
    echo "covgate.service: exposure level above 2.0" >&2
    exit 1
  }
fi
