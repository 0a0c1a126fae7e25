#!/usr/bin/env bash
# Installs headless Chromium for `npm run test:browser` from Debian's own `chromium` package, when it is
# missing. No browser is downloaded from anywhere else (playwright-core drives this one through its
# executable path, CHROMIUM_PATH or /usr/bin/chromium). Needs root, as CI and the dev machines run.
set -euo pipefail
if command -v "${CHROMIUM_PATH:-chromium}" >/dev/null 2>&1; then
  exit 0
fi
echo "Chromium is missing: installing Debian's chromium package…"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium
