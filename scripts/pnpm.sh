#!/usr/bin/env bash
# Runs pnpm 10 whether or not it is installed globally (corepack fails its signature check here).
set -euo pipefail
if command -v pnpm >/dev/null 2>&1 && [[ "$(pnpm --version 2>/dev/null)" == 10.* ]]; then
  exec pnpm "$@"
fi
exec npx --yes pnpm@10 "$@"
