#!/usr/bin/env bash
# Headless Chromium renders the HTML report in tests (issues 14, 25): installed from Debian's
# packages when missing. `.ci/run` and `make test` both call it; without root or apt-get it
# says so and the Chromium tests skip outside CI (in CI they fail).
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
else
  echo "chromium is not installed and cannot be installed here (needs root and apt-get)" >&2
  exit 1
fi
