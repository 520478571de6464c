#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pt-trace dump of a Branch Trace Store file (issue 15), on a synthetic
# cpu0.bts: the exact lines (offset, from -> to, flags), kernel symbols
# from a kallsyms copy and user symbols from an ELF file built here
# (--elf), --stats, a trailing partial record, and the refusals (PT-only
# options on a .bts file, --elf on a .pt file).  Prints PTT-RESULT lines.
#
# usage: bts_dump.sh PT-TRACE TMPDIR

PT=$1
T=$2/bts
mkdir -p "$T"
pass() { echo "PTT-RESULT PASS $1"; }
fail() { echo "PTT-RESULT FAIL $1 $2"; }
skip() { echo "PTT-RESULT SKIP $1 $2"; }

cat >"$T/prog.c" <<'C'
int bts_target(int x) { return x + 1; }
int main(void) { return bts_target(0); }
C
if ! cc -O0 -g -no-pie -o "$T/prog" "$T/prog.c" 2>"$T/cc.err"; then
	skip bts-dump "no C compiler for the ELF image: $(head -c 100 "$T/cc.err")"
	exit 0
fi
tgt=$(nm "$T/prog" | awk '$3 == "bts_target" { print $1 }')
main=$(nm "$T/prog" | awk '$3 == "main" { print $1 }')
printf 'ffffffff81000000 T start_kernel\nffffffff81000100 t do_thing\nffffffffc0000000 t modfn\t[mymod]\n' >"$T/kallsyms"
# Three records (user predicted, kernel, kernel into a module) and 5 bytes.
python3 - "$T/cpu0.bts" "$tgt" "$main" <<'PY'
import struct, sys
tgt, main = int(sys.argv[2], 16), int(sys.argv[3], 16)
recs = [(main + 4, tgt, 0x10), (0xffffffff81000010, 0xffffffff81000104, 0),
        (0xffffffff81000108, 0xffffffffc0000020, 0)]
with open(sys.argv[1], "wb") as f:
    for r in recs:
        f.write(struct.pack("<QQQ", *r))
    f.write(b"\0" * 5)
PY
want() { printf '%s\n' "$@"; }

# Plain: no symbols.
"$PT" dump "$T/cpu0.bts" >"$T/out" 2>"$T/err"; rc=$?
want "$(printf '%016x  %016x -> %016x  pred' 0 $((0x$main + 4)) $((0x$tgt)))" \
	"0000000000000018  ffffffff81000010 -> ffffffff81000104  -" \
	"0000000000000030  ffffffff81000108 -> ffffffffc0000020  -" \
	"[0000000000000048: 5 bytes left over, not a whole 24-byte record]" >"$T/exp"
if [ $rc = 0 ] && cmp -s "$T/out" "$T/exp"; then pass bts-dump
else fail bts-dump "rc $rc: $(diff "$T/exp" "$T/out" | head -4 | tr '\n' '|') $(head -c 200 "$T/err")"; fi

# Symbols: the ELF's for user addresses, kallsyms for the kernel's.
"$PT" dump --elf "$T/prog" --kallsyms "$T/kallsyms" "$T/cpu0.bts" >"$T/out" 2>"$T/err"; rc=$?
want "$(printf '%016x  %016x -> %016x  pred  <main+0x4> -> <bts_target>' 0 $((0x$main + 4)) $((0x$tgt)))" \
	"0000000000000018  ffffffff81000010 -> ffffffff81000104  -  <start_kernel+0x10> -> <do_thing+0x4>" \
	"0000000000000030  ffffffff81000108 -> ffffffffc0000020  -  <do_thing+0x8> -> <modfn+0x20>" \
	"[0000000000000048: 5 bytes left over, not a whole 24-byte record]" >"$T/exp"
if [ $rc = 0 ] && cmp -s "$T/out" "$T/exp"; then pass bts-dump-symbols
else fail bts-dump-symbols "rc $rc: $(diff "$T/exp" "$T/out" | head -4 | tr '\n' '|') $(head -c 200 "$T/err")"; fi

# --stats.
"$PT" dump --stats "$T/cpu0.bts" >"$T/out" 2>"$T/err"; rc=$?
want "records 3" "user 1" "kernel 2" "predicted 1" "switches 0" \
	"[0000000000000048: 5 bytes left over, not a whole 24-byte record]" >"$T/exp"
if [ $rc = 0 ] && cmp -s "$T/out" "$T/exp"; then pass bts-dump-stats
else fail bts-dump-stats "rc $rc: $(diff "$T/exp" "$T/out" | head -4 | tr '\n' '|')"; fi

# The driver's switch records: a line of their own, counted apart.
python3 - "$T/sw.bts" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<QQQ", (1 << 64) - 1, 5 << 32 | 6, 1 << 63))
    f.write(struct.pack("<QQQ", 0x401000, 0x401010, 0))
PY
"$PT" dump "$T/sw.bts" >"$T/out" 2>"$T/err"; rc=$?
"$PT" dump --stats "$T/sw.bts" >"$T/outs" 2>>"$T/err"
want "0000000000000000  switch to pid 5 tid 6" \
	"0000000000000018  0000000000401000 -> 0000000000401010  -" \
	"records 2" "user 1" "kernel 0" "predicted 0" "switches 1" >"$T/exp"
if [ $rc = 0 ] && cat "$T/out" "$T/outs" | cmp -s - "$T/exp"; then
	pass bts-dump-switches
else fail bts-dump-switches "rc $rc: $(cat "$T/out" "$T/outs" | diff "$T/exp" - | head -4 | tr '\n' '|')"; fi

# Refusals with a message, exit 1 (usage); unreadable input exit 2.
bad=""
"$PT" dump --json "$T/cpu0.bts" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "a BTS file takes only" "$T/err" || bad+=" json"
: >"$T/x.pt"
"$PT" dump --kallsyms "$T/kallsyms" "$T/x.pt" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "for BTS files" "$T/err" || bad+=" elf-on-pt"
"$PT" dump "$T/none.bts" >/dev/null 2>&1
[ $? = 2 ] || bad+=" missing"
"$PT" dump --kallsyms "$T/none" "$T/cpu0.bts" >/dev/null 2>&1
[ $? = 2 ] || bad+=" missing-kallsyms"
: >"$T/empty.bts"
"$PT" dump "$T/empty.bts" >"$T/out" 2>&1
[ $? = 0 ] && [ ! -s "$T/out" ] || bad+=" empty"
if [ -z "$bad" ]; then pass bts-dump-errors; else fail bts-dump-errors "$bad"; fi
