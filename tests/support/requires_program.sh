#!/bin/sh
# requires_program.sh PROGRAM COMMAND...: runs COMMAND when PROGRAM is on PATH; otherwise says why
# and exits 77, which CTest reports as skipped (SKIP_RETURN_CODE), never as passed.
program="$1"
shift
if ! command -v "$program" >/dev/null 2>&1; then
  echo "SKIPPED: $program is not on PATH"
  exit 77
fi
exec "$@"
