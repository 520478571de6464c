#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a few in-VM tests on one kernel, for development: builds the module
# and the tests in a private work directory (so several can run at once,
# and make check's results are left alone), boots the kernel and prints
# the results as make check does.  Needs make deps.
# Usage: vm-quick.sh [-k 6.1|6.12|debug] [-p PROFILES] [-t SECS] [TEST...]
#   -k  kernel (default 6.12)       -p  model profiles, e.g. "icl bdw"
#   -t  per-test timeout (30)       TEST  names in tests/vm without
#   extension (default: all); the load/enodev and unload checks always run.
# Example: scripts/vm-quick.sh -k debug -p icl stream_loss capture_flow
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=$ROOT/scripts

k=6.12 profiles="" timeout=""
while getopts k:p:t:h opt; do
	case $opt in
	k) k=$OPTARG ;;
	p) profiles=$OPTARG ;;
	t) timeout=$OPTARG ;;
	*) sed -n '3,11s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

[ -f "$CACHE/env" ] || die "no $CACHE/env: run make deps first"
. "$CACHE/env"
kernel_table	# lib.sh: KDIR, IMG, CPU, APPEND, as make check boots them
[ -n "${KDIR[$k]:-}" ] || die "unknown kernel '$k' (6.1, 6.12 or debug)"

WORK=${PTT_QUICK_WORK:-/tmp/ptt-quick.$$}
export PTT_WORK=$WORK
mkdir -p "$WORK"
mods=$("$S/build-module.sh" "$k" "${KDIR[$k]}")
make -s -C "$ROOT/tests/vm" O="$WORK/vm-tests" BO="$WORK/vm-bench" \
	CFLAGS="-O2 -g -Wall -Wextra -Werror" >&2
"$S/mkinitramfs.sh" "$WORK/initramfs.cpio.gz" "$mods" "$WORK/vm-tests"
append=${APPEND[$k]}
[ $# = 0 ] || append="$append ptt.tests=$(echo "$*" | tr ' ' ,)"
[ -z "$profiles" ] || append="$append ptt.profiles=$(echo "$profiles" | tr ' ' ,)"
[ -z "$timeout" ] || append="$append ptt.timeout=$timeout"
PTT_APPEND=$append "$S/vm-run.sh" "$k" "${IMG[$k]}" "$WORK/initramfs.cpio.gz" \
	"${CPU[$k]}" check "$WORK/vm" | tee "$WORK/results.txt"
sed -n -e "s/^PTT-TIME \(.*\) \(.*\)/  time: \1 \2 s/p" -e "s/^PTT-PHASE \(.*\) \(.*\)/  phase: \1 \2 s/p" "$WORK/vm/console.log"
say "logs: $WORK/vm/console.log, files: $WORK/vm/out/"
! grep -q '^FAIL' "$WORK/results.txt"
