#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# decode --block-decoder (tools/pt-trace/decode_block.c), on the traces
# tests/host/run made: decode_cases.py's (DIR C, code linked at 0x401000)
# and decode --jobs's loop trace (DIR J: loop, t.pt; long TNTs, a PSB+
# every 4 KiB).  libipt's block decoder gives the instruction decoder's
# instructions (ptxed prints the same listing with either), its events
# and errors as ptxed prints them, --stat:blocks counts blocks, and what
# it does not go with is refused with what to use.
#
# usage: decode_block.sh PT-TRACE C J
PT=$1
C=$2
J=$3
pass() { echo "PTT-RESULT PASS $1"; }
fail() { echo "PTT-RESULT FAIL $1 $2"; }
O="$C/block"
mkdir -p "$O"

# the listing's instruction lines ("? " for speculative ones)
insns() { grep -E '^(\? )?[0-9a-f]{16}  ' "$1"; }

why=""
qwhy=""
for n in eos resync tsx events tick apl11 skl014 nomap; do
	"$PT" decode --events --elf "$C/code" "$C/$n.pt" >"$O/$n.i" 2>/dev/null
	ri=$?
	timeout 60 "$PT" decode --block-decoder --events --elf "$C/code" "$C/$n.pt" >"$O/$n.b" 2>/dev/null
	rb=$?
	[ $ri = $rb ] || why+=" $n:rc=$rb,not-$ri"
	[ "$(insns "$O/$n.i")" = "$(insns "$O/$n.b")" ] || why+=" $n:insns"
	# a whole listing where libipt's two decoders see the same events
	# (skl014: the block decoder reports the disable without IP that
	# the instruction decoder drops at the jz it cannot follow)
	case $n in
	skl014) ;;
	*) cmp -s "$O/$n.i" "$O/$n.b" || why+=" $n:$(diff "$O/$n.i" "$O/$n.b" | head -n 3 | tr '\n' '|')" ;;
	esac
done
# a sync error (resync.pt: a TNT inside PSB+) and code not in the image
# (nomap.pt), as ptxed prints them
grep -q '^\[[0-9a-f]*, 0: sync error: ' "$O/resync.b" || why+=" sync-error"
[ "$(grep -v -e "^\[enabled" -e "^\[exec mode" "$O/nomap.b")" = "[1d, 500000: error: no memory mapped at this address]" ] ||
	why+=" nomap:$(tr '\n' '|' <"$O/nomap.b")"
# two traces of a recording: each under decode's [trace PATH, cpu N]
mkdir -p "$O/mt"
cp "$C/eos.pt" "$O/mt/cpu0.pt"
cp "$C/tick.pt" "$O/mt/cpu1.pt"
a=$("$PT" decode --events --elf "$C/code" "$O/mt/cpu0.pt" "$O/mt/cpu1.pt" 2>&1)
b=$("$PT" decode --block-decoder --events --elf "$C/code" "$O/mt/cpu0.pt" "$O/mt/cpu1.pt" 2>&1)
[ "$a" = "$b" ] || why+=" two-traces:$(diff <(echo "$a") <(echo "$b") | head -n 3 | tr '\n' '|')"
# -q (with --stat or not) on several traces: a "# PATH: ..." line per
# trace before the total or ptxed's lines, as the instruction decoder's
# (the block decoder printed the total only, and counted no events)
for o in "-q" "-q --stat:insn" "-q --stat"; do
	# shellcheck disable=SC2086 # $o: options
	a=$("$PT" decode $o --elf "$C/code" "$O/mt/cpu0.pt" "$O/mt/cpu1.pt" 2>&1)
	# shellcheck disable=SC2086
	b=$("$PT" decode --block-decoder $o --elf "$C/code" "$O/mt/cpu0.pt" "$O/mt/cpu1.pt" 2>&1)
	# --stat alone: the block decoder's count of blocks last
	[ "$o" = "-q --stat" ] && a+=$(printf '\nblocks:\t3.')
	[ "$a" = "$b" ] || qwhy+=" ($o):$(diff <(echo "$a") <(echo "$b") | head -n 3 | tr '\n' '|')"
done
# many blocks: the loop trace's conditional branches each end one
if [ -f "$J/t.pt" ]; then
	a=$("$PT" decode --format=raw --elf "$J/loop" "$J/t.pt" 2>/dev/null | cksum)
	b=$("$PT" decode --block-decoder --elf "$J/loop" "$J/t.pt" 2>/dev/null | cksum)
	[ "$a" = "$b" ] || why+=" loop-trace"
else
	why+=" no-loop-trace"
fi
if [ -z "$why" ]; then
	pass decode-block-insns
else
	fail decode-block-insns "$why"
fi
if [ -z "$qwhy" ]; then
	pass decode-block-quiet-traces
else
	fail decode-block-quiet-traces "$qwhy"
fi

# A loop of direct branches that reads no trace (spin.pt: a jump to
# itself; spincall.pt: nop, a direct call, nop, a jump back; spinsw/: a
# recording whose next switch record is still to come): the block
# decoder stops its listing where the instruction decoder's does, with
# its error, and counts as many instructions with -q; also where the
# loop's direct branches end blocks (--block:end-on-*).  Before, it
# listed 256 Ki instructions first, and another error.  A loop through
# an indirect jump (ind.pt) reads trace each pass: no error, though
# libipt's block cache gives its blocks no class for the jump.
why=""
for n in spin spincall spinsw ind; do
	case $n in
	# a recording lists perf script's lines unless told
	spinsw) in=(--events --format=raw "$C/spinsw/cpu0.pt") ;;
	*) in=(--events --elf "$C/code" "$C/$n.pt") ;;
	esac
	timeout 60 "$PT" decode "${in[@]}" >"$O/$n.i" 2>&1
	ri=$?
	timeout 60 "$PT" decode -q --stat:insn "${in[@]}" >"$O/$n.qi" 2>&1
	for o in "" --block:end-on-call --block:end-on-jump; do
		# shellcheck disable=SC2086 # $o: an option or none
		timeout 60 "$PT" decode --block-decoder $o "${in[@]}" >"$O/$n.b" 2>&1
		rb=$?
		[ $ri = $rb ] || why+=" $n$o:rc=$rb,not-$ri"
		cmp -s "$O/$n.i" "$O/$n.b" ||
			why+=" $n$o:$(diff "$O/$n.i" "$O/$n.b" | head -c 300 | tr '\n' '|')"
		# shellcheck disable=SC2086
		timeout 60 "$PT" decode --block-decoder $o -q --stat:insn "${in[@]}" >"$O/$n.qb" 2>&1
		cmp -s "$O/$n.qi" "$O/$n.qb" ||
			why+=" $n$o-q:$(diff "$O/$n.qi" "$O/$n.qb" | head -c 300 | tr '\n' '|')"
	done
	case $n in
	ind) ! grep -q 'error' "$O/$n.i" && [ "$(grep -c '^0000000000401016' "$O/$n.i")" = 9 ] ||
		why+=" $n:$(grep -c '^0000000000401016' "$O/$n.i")-passes:$(grep error "$O/$n.i")" ;;
	*) grep -q 'error: a loop that reads no trace' "$O/$n.i" || why+=" $n:no-loop-error" ;;
	esac
done
if [ -z "$why" ]; then
	pass decode-block-loop
else
	fail decode-block-loop "$why"
fi

# ptxed's statistics and [block] lines: tick.pt's xor and jz end one
# block at the conditional branch, its tick event the next, at the nop
why=""
bd() { "$PT" decode --block-decoder --elf "$C/code" "$@" "$C/tick.pt" 2>&1; }
[ "$(bd -q --stat)" = "$(printf 'insn: 3.\nblocks:\t2.')" ] || why+=" stat:$(bd -q --stat | tr '\n' '|')"
[ "$(bd -q --stat:blocks)" = "$(printf 'blocks:\t2.')" ] || why+=" stat-blocks"
[ "$(bd -q --stat:insn)" = "insn: 3." ] || why+=" stat-insn"
[ "$(bd --block:show-blocks | grep -c '^\[block\]$')" = 2 ] || why+=" show-blocks"
[ "$(bd --stat --block:show-blocks | grep '^\[block' | tr '\n' ' ')" = "[block 1] [block 2] " ] ||
	why+=" show-blocks-numbered"
# end-on-call: the call at 0x401008 ends a block (skl014.pt)
[ "$("$PT" decode --block-decoder -q --stat:blocks --block:end-on-call --elf "$C/code" "$C/skl014.pt" 2>&1)" = \
	"$(printf 'blocks:\t2.')" ] || why+=" end-on-call"
if [ -z "$why" ]; then
	pass decode-block-stat
else
	fail decode-block-stat "$why"
fi

# refused combinations: exit 1 and a line saying what to use
why=""
for o in "-j 2" "--calls" "--timeline $O/t.json" "--format=ip" "--tsc" "--pid 1"; do
	# shellcheck disable=SC2086 # $o: options
	"$PT" decode --block-decoder $o --elf "$C/code" "$C/eos.pt" >/dev/null 2>"$O/err"
	rc=$?
	[ $rc = 1 ] && grep -q "leave out --block-decoder" "$O/err" || why+=" ($o):rc=$rc"
done
for o in "--stat:blocks" "--block:show-blocks" "--block:end-on-call" "--block:end-on-jump"; do
	"$PT" decode $o --elf "$C/code" "$C/eos.pt" >/dev/null 2>"$O/err"
	rc=$?
	[ $rc = 1 ] && grep -q "give --block-decoder too" "$O/err" || why+=" ($o):rc=$rc"
	# --insn-decoder last: the message names it, not a missing option
	"$PT" decode --block-decoder $o --insn-decoder --elf "$C/code" "$C/eos.pt" >/dev/null 2>"$O/err"
	rc=$?
	[ $rc = 1 ] && grep -q "insn-decoder came after --block-decoder" "$O/err" &&
		! grep -q "give --block-decoder" "$O/err" || why+=" ($o --insn-decoder):rc=$rc"
	# ... given twice after it: still the one that chose
	"$PT" decode --block-decoder $o --insn-decoder --insn-decoder --elf "$C/code" "$C/eos.pt" >/dev/null 2>"$O/err"
	rc=$?
	[ $rc = 1 ] && grep -q "insn-decoder came after --block-decoder" "$O/err" ||
		why+=" ($o --insn-decoder x2):rc=$rc"
done
if [ -z "$why" ]; then
	pass decode-block-refused
else
	fail decode-block-refused "$why"
fi

# --insn-decoder, ptxed's name for the default decoder (libipt's test
# suite runs ptxed with it): of it and --block-decoder the last wins, as
# ptxed's; --help names it
why=""
a=$("$PT" decode --events --elf "$C/code" "$C/tick.pt" 2>&1)
b=$("$PT" decode --insn-decoder --events --elf "$C/code" "$C/tick.pt" 2>&1) || why+=" rc=$?"
[ "$a" = "$b" ] || why+=" alone:$(echo "$b" | head -n 2 | tr '\n' '|')"
# --stat: the blocks count only where the block decoder ran
b=$("$PT" decode --block-decoder --insn-decoder -q --stat --elf "$C/code" "$C/tick.pt" 2>&1)
[ "$b" = "insn: 3." ] || why+=" insn-last:$(echo "$b" | tr '\n' '|')"
b=$("$PT" decode --insn-decoder --block-decoder -q --stat --elf "$C/code" "$C/tick.pt" 2>&1)
[ "$b" = "$(printf 'insn: 3.\nblocks:\t2.')" ] || why+=" block-last:$(echo "$b" | tr '\n' '|')"
# what only the instruction decoder takes is not refused after it
"$PT" decode --block-decoder --insn-decoder -j 2 -q --elf "$C/code" "$C/tick.pt" >/dev/null 2>"$O/err" ||
	why+=" jobs:$(head -c 200 "$O/err" | tr '\n' '|')"
"$PT" decode --help | grep -q -- '--insn-decoder' || why+=" help"
if [ -z "$why" ]; then
	pass decode-insn-decoder-option
else
	fail decode-insn-decoder-option "$why"
fi
