# SPDX-License-Identifier: GPL-2.0
# Sourced by the host benchmarks (not run by make bench: not *.sh).

best() { # command... -> best wall seconds of 3
	local b="" t
	for _ in 1 2 3; do
		t=$( { /usr/bin/time -f %e "$@" >/dev/null; } 2>&1 | tail -n 1)
		if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
	done
	echo "$b"
}
