#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dump throughput: 'pt-trace dump' text and --json output (to /dev/null)
# against libipt's bare packet-decode loop on the same file, in the same
# run.
# The file is the Skylake perf trace repeated to ~64 MB (override with
# PTT_BENCH_FILE).  Last line:
#   dump: X MB/s text, Y MB/s bare decode, R.RR of bare
#   dump --json: J MB/s, R.RR of text
# MB/s are megabytes of raw trace per second; best of 3 runs each.

set -e
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
SHARED=${PTT_SHARED:-$(cd "$ROOT/.." && pwd)/shared}
[ -d "$SHARED" ] || SHARED=/work/shared
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

make -s -C "$ROOT/tools"
gcc -O2 -Wall -Wextra -Werror -o "$TMP/bare" \
	"$ROOT/tests/bench/host/bare_decode.c" -lipt

FILE=${PTT_BENCH_FILE:-}
if [ -z "$FILE" ]; then
	FILE="$TMP/bench.pt"
	src="$SHARED/traces/skl-perf414/cpu3.pt"
	for _ in $(seq 470); do cat "$src"; done >"$FILE"
fi
BYTES=$(stat -c %s "$FILE")

. "$ROOT/tests/bench/host/bench_common.bash"

t_text=$(best "$ROOT/tools/build/pt-trace" dump "$FILE")
t_json=$(best "$ROOT/tools/build/pt-trace" dump --json "$FILE")
t_bare=$(best "$TMP/bare" "$FILE")
awk -v b="$BYTES" -v tt="$t_text" -v tb="$t_bare" -v tj="$t_json" 'BEGIN {
	if (tt <= 0) tt = 0.01; if (tb <= 0) tb = 0.01; if (tj <= 0) tj = 0.01;
	x = b / 1e6 / tt; y = b / 1e6 / tb; j = b / 1e6 / tj;
	printf "file: %d bytes\n", b;
	printf "dump: %.1f MB/s text, %.1f MB/s bare decode, %.2f of bare\n", x, y, x / y
	printf "dump --json: %.1f MB/s, %.2f of text (target >= 0.5)\n", j, j / x
}'
