#!/usr/bin/env bash
# The production build of `npm test`, run as a build with no database at hand: DATA_DIR is an empty
# folder, which the build must leave empty (no PGlite files, no lock for `next start` to trip on).
# Usage: bash server/testing/build-opens-no-database.sh [next build arguments]
set -uo pipefail
cd "$(dirname "$0")/../.."

data_dir="$(mktemp -d)"
trap 'rm -rf "$data_dir"' EXIT

NEXT_TELEMETRY_DISABLED=1 DATA_DIR="$data_dir" DATABASE_URL="" npx next build "$@" || exit 1

if [ -n "$(ls -A "$data_dir")" ]; then
  echo "The build wrote into its empty DATA_DIR ($data_dir): a build must open no database." >&2
  ls -laR "$data_dir" >&2
  exit 1
fi
echo "The build left its empty DATA_DIR empty: it opened no database."
