#!/usr/bin/env bash
# `npm test`: every test of the project, against real parts — type check, lint, unit tests, integration
# tests on embedded PGlite and PostgreSQL, then a production build and end-to-end tests in Chromium.
# Installs what it can (Debian's chromium, as root); otherwise stops with the command to run.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NEXT_TELEMETRY_DISABLED=1

reports="$(mktemp -d)"
trap 'rm -rf "$reports"' EXIT

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "== Installing Debian's chromium for the end-to-end tests"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || {
      echo "Could not install chromium. Run: sudo apt-get update && sudo apt-get install -y chromium" >&2
      exit 1
    }
  else
    echo "The end-to-end tests need Debian's Chromium at $chromium. Run: sudo apt-get update && sudo apt-get install -y chromium" >&2
    echo "(or set CHROMIUM_PATH to a Chromium binary)" >&2
    exit 1
  fi
fi

failed=()
step() {
  local name="$1"
  shift
  echo
  echo "== $name"
  "$@" || failed+=("$name")
}

step "type check" npx tsc --noEmit
step "lint (ESLint with the import boundaries, Prettier, knip)" npm run -s lint
step "unit and integration tests" npx vitest run --reporter=default --reporter=json --outputFile="$reports/vitest.json"
# The one build, with an empty DATA_DIR it must leave empty: a build opens no database.
step "production build" bash server/testing/build-opens-no-database.sh
if [[ ! " ${failed[*]-} " =~ "production build" ]]; then
  step "end-to-end tests" env PLAYWRIGHT_JSON_OUTPUT_NAME="$reports/playwright.json" npx playwright test --reporter=list,json
fi

node server/testing/summarize.mjs "$reports/vitest.json" "$reports/playwright.json"
if [ ${#failed[@]} -gt 0 ]; then
  echo "Failed: ${failed[*]}" >&2
  exit 1
fi
