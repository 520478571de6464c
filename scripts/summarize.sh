#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The last lines of make check: every failure (CI shows only the end of
# the output), the first one named again, then
# "N passed, N failed, N skipped".  Exits 1 if anything failed or nothing
# ran at all.
# Usage: summarize.sh RESULTS [SECONDS]
set -euo pipefail

r=$1
pass=$(grep -c '^PASS ' "$r" || true)
fail=$(grep -c '^FAIL ' "$r" || true)
skip=$(grep -c '^SKIP ' "$r" || true)
first=$(grep -m1 '^FAIL ' "$r" | cut -d' ' -f2- || true)
echo
[ -z "${2:-}" ] || echo "make check took $2 s"
if [ "$fail" != 0 ]; then
	echo "failed:"
	grep '^FAIL ' "$r" | cut -c1-200 | sed 's/^FAIL /  /'
	set -- $first
	echo "first failure: kernel $1, test ${*:2}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" != 0 ]
