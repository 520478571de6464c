#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pt-trace export --perf against perf's own Intel PT decoder: a recording
# directory is made from the real Skylake trace skl-hello (its traced
# binary is there), exported to perf.data, and 'perf script
# --itrace=i0ns' must list exactly the instructions 'pt-trace decode
# --format=ip' lists, in order, under the recorded comm and pid, with
# perf's time of the first one equal to the TSC converted as the file
# says; 'perf report' must attribute them to _start.  Skipped (with the
# reason) when perf does not run here.  With MAPS (decode-maps' directory:
# a trace of a PIE, libc and the vdso copy at their run-time addresses)
# the same comparison runs there too: perf must find libc at its file
# offset and the vdso in the recording's vdso.so; and once more with the
# comm, maps, a second thread and its context switch in a sideband.perf
# (export_sideband.py) instead of sideband.txt's map= lines: perf must put
# every instruction on that thread.  The kernel's and its modules' maps
# are checked on kernel_trace.py's recording.  Prints PTT-RESULT lines.
#
# usage: export_perf.sh PT-TRACE SHARED TMPDIR [MAPS]

PT=$1
SHARED=$2
R=$3/export-rec
MAPS=$4
H="$SHARED/traces/skl-hello"
name=export-perf-skl-hello

if [ ! -f "$H/pt.bin" ]; then
	echo "PTT-RESULT SKIP $name no $H"
	exit 0
fi
# Debian's /usr/bin/perf runs only the perf of the running kernel's
# version; any installed perf_X.Y decodes the file.
perf=perf
if ! perf version >/dev/null 2>&1; then
	for p in /usr/bin/perf_*; do
		[ -x "$p" ] && "$p" version >/dev/null 2>&1 && perf=$p
	done
fi
if ! "$perf" version >/dev/null 2>&1; then
	echo "PTT-RESULT SKIP $name perf does not run here ($(perf version 2>&1 | head -n 1)); install linux-perf"
	exit 0
fi
mkdir -p "$R"
cp "$H/pt.bin" "$R/cpu0.pt"
cp "$H/hello" "$R/hello"
# What 'pt-trace record' writes, for this trace (traces/README.md): user
# tracing with CYC, MTC (MTCFreq 3), TSC and branches (RTIT_CTL 0xe60b).
cat >"$R/sideband.txt" <<SB
pt-trace-sideband=1
cpu.family=6
cpu.model=85
cpu.stepping=4
mtc_freq=3
nom_freq=37
cpuid15.eax=2
cpuid15.ebx=308
ctl=0xe60b
tsc_hz=3700000000
tsc.start=0 1000000000 13406000000000000 0
pid=4242
cmd=$R/hello
exe=$R/hello
map=0x401000 0x402000 0x1000 $R/hello
cpu=0
cpu.file=0 cpu0.pt
SB
why=
"$PT" export --perf "$R" >"$R/out" 2>&1 || why+=" export-exit-$?:$(head -c 200 "$R/out")"
"$PT" decode --format=ip "$R/cpu0.pt" 2>/dev/null | sed 's/^0*//' >"$R/ours"
"$perf" script -i "$R/perf.data" --itrace=i0ns -F comm,tid,ip 2>"$R/perf.err" >"$R/perf"
awk '{print $3}' "$R/perf" >"$R/theirs"
n=$(wc -l <"$R/ours")
[ "$n" -ge 8 ] || why+=" pt-trace-decoded-$n"
cmp -s "$R/ours" "$R/theirs" ||
	why+=" perf-differs($(wc -l <"$R/theirs") vs $n: $(diff "$R/ours" "$R/theirs" | head -n 3 | tr '\n' ' ') $(head -c 200 "$R/perf.err"))"
[ "$(awk '{print $1, $2}' "$R/perf" | sort -u)" = "hello 4242" ] || why+=" comm/tid"
# perf time of the first instruction: the TSC estimate converted with the
# file's mult/shift/zero must come out in the recording's clock (the TSC
# sample above puts 0x2fa1088fac05e2 at 1.0 + (0x2fa1088fac05e2 -
# 13406000000000000) / 3.7e9 s, 104.26 s).
t=$("$perf" script -i "$R/perf.data" --itrace=i0ns -F time 2>/dev/null | head -n 1 | tr -d ' :')
want=$(awk 'BEGIN { printf "%.2f", 1 + (13406382047626722 - 13406000000000000) / 3.7e9 }')
awk -v t="$t" -v w="$want" 'BEGIN { d = t - w; exit !(d < 0.01 && d > -0.01) }' ||
	why+=" time($t, want $want)"
"$perf" report -i "$R/perf.data" --itrace=i0ns --stdio 2>/dev/null | grep -q '100.00%.*hello.*_start' ||
	why+=" perf-report"
if [ -z "$why" ]; then
	echo "PTT-RESULT PASS $name ($n instructions, perf script equal to pt-trace decode)"
else
	echo "PTT-RESULT FAIL $name$why"
fi

# The kernel: kernel_trace.py's OS-only recording (its text at
# 0xffffffff81000000, kallsyms, a module) and kernel_vmlinux.S linked 16
# MiB lower as the vmlinux given to perf: from the kernel MMAP record
# (pgoff the recording's _stext) perf relocates it and must list the
# kernel text's instructions decode lists, named from the vmlinux.
name=export-perf-kernel
K=$3/export-kernel
rm -rf "$K"
mkdir -p "$K"
why=
if ! python3 "$(dirname "$0")/kernel_trace.py" "$K" 2>"$K/err" ||
   ! gcc -nostdlib -static -no-pie -Wl,-Ttext=0xffffffff80000000 -Wl,-e,_stext \
	-o "$K/vmlinux" "$(dirname "$0")/kernel_vmlinux.S" 2>>"$K/err"; then
	why=" setup:$(head -c 200 "$K/err")"
else
	# OS only (RTIT_CTL TraceEn, OS, TSCEn, BranchEn)
	printf 'ctl=0x2405\ntsc_hz=1000000000\ncpu.file=0 cpu0.pt\n' >>"$K/sideband.txt"
	"$PT" export --perf "$K" >"$K/out" 2>&1 || why+=" export-exit-$?:$(head -c 200 "$K/out")"
	"$PT" decode --format=ip "$K/cpu0.pt" 2>/dev/null | grep '^ffffffff81' >"$K/ours"
	"$perf" script -i "$K/perf.data" --vmlinux "$K/vmlinux" --itrace=i0ns -F ip,sym \
		2>"$K/perf.err" >"$K/perf"
	awk '{print $1}' "$K/perf" >"$K/theirs"
	[ "$(wc -l <"$K/ours")" = 4 ] || why+=" pt-trace-decoded-$(wc -l <"$K/ours")"
	cmp -s "$K/ours" "$K/theirs" ||
		why+=" perf-differs($(tr '\n' ' ' <"$K/theirs") $(head -c 200 "$K/perf.err"))"
	[ "$(awk '$1 ~ /05$/ {print $2}' "$K/perf")" = entry_test_swapgs ] || why+=" symbol"
fi
if [ -z "$why" ]; then
	echo "PTT-RESULT PASS $name (perf script lists decode's kernel instructions, relocated vmlinux symbols)"
else
	echo "PTT-RESULT FAIL $name$why"
fi

# The modules: one kernel-mode MMAP of pid -1 per saved kernel.module=
# line, named [NAME] as perf record names a module whose .ko it does not
# know; none for the module whose code was not saved ('other'); the
# module's recorded build-id in perf's build-id section under that name.
name=export-perf-modules
why=
if [ ! -f "$K/perf.data" ]; then
	why=" no-perf.data"
else
	"$perf" script -i "$K/perf.data" --show-mmap-events --itrace=i0ns -F ip 2>/dev/null |
		grep 'PERF_RECORD_MMAP' | grep -v 'kernel.kallsyms' >"$K/mods"
	[ "$(sed 's/^ *//' "$K/mods")" = "PERF_RECORD_MMAP -1/0: [0xffffffffc0000000(0x20) @ 0]: x [ptmod]" ] ||
		why+=" maps($(tr '\n' '|' <"$K/mods"))"
	# its build-id (kernel.module.build_id=) under the map's name
	"$perf" buildid-list -i "$K/perf.data" 2>/dev/null | grep -v '^ *$' >"$K/ids"
	grep -qx '0123456789abcdef0123456789abcdef01234567 \[ptmod\]' "$K/ids" ||
		why+=" build-id($(tr '\n' '|' <"$K/ids"))"
fi
if [ -z "$why" ]; then
	echo "PTT-RESULT PASS $name (perf lists the saved module's map and build-id)"
else
	echo "PTT-RESULT FAIL $name$why"
fi

# perf and pt-trace on the same directory: the same instructions?
# (decode reads SIDEBAND when given.)
same_insns_with() { # DIR SIDEBAND
	"$PT" export --perf "$1" >"$1/export.out" 2>&1 || { echo " export-exit-$?"; return; }
	"$PT" decode --sideband "$2" --format=ip "$1/cpu0.pt" 2>/dev/null | sed 's/^0*//' >"$1/ours"
	"$perf" script -i "$1/perf.data" --itrace=i0ns -F ip 2>"$1/perf.err" | awk '{print $1}' >"$1/theirs"
	[ "$(wc -l <"$1/ours")" -ge 9 ] || echo " pt-trace-decoded-$(wc -l <"$1/ours")"
	cmp -s "$1/ours" "$1/theirs" ||
		echo " perf-differs($(diff "$1/ours" "$1/theirs" | head -n 3 | tr '\n' ' ') $(head -c 200 "$1/perf.err"))"
}
if [ -n "$MAPS" ]; then
	name=export-perf-maps
	if [ ! -f "$MAPS/cpu0.pt" ]; then
		echo "PTT-RESULT SKIP $name no $MAPS/cpu0.pt (decode-maps did not run)"
		exit 0
	fi
	M=$3/export-maps
	rm -rf "$M"
	cp -r "$MAPS" "$M"
	# record writes these; map_probe's sideband has only the maps
	printf 'pid=4321\ncpu=0\ncpu.file=0 cpu0.pt\n' >>"$M/sideband.txt"
	why=$(same_insns_with "$M" "$M/sideband.txt")
	"$perf" script -i "$M/perf.data" --itrace=i0ns -F ip,dso 2>/dev/null | grep -q 'libc.so' || why+=" no-libc"
	"$perf" script -i "$M/perf.data" --itrace=i0ns -F ip,dso 2>/dev/null | grep -q "$M/vdso.so" || why+=" no-vdso"
	if [ -z "$why" ]; then
		echo "PTT-RESULT PASS $name ($(wc -l <"$M/ours") instructions in the PIE, libc and the vdso, perf script equal to pt-trace decode)"
	else
		echo "PTT-RESULT FAIL $name$why"
	fi
fi
if [ -n "$MAPS" ]; then
	name=export-perf-sideband
	S=$3/export-psb
	rm -rf "$S"
	cp -r "$MAPS" "$S"
	rm -f "$S/perf.data"
	python3 "$(dirname "$0")/export_sideband.py" "$S"
	grep -v '^map=' "$S/sideband.txt" >"$S/sb.txt"
	printf 'pid=4321\ncpu=0\ncpu.file=0 cpu0.pt\n' >>"$S/sb.txt"
	mv "$S/sb.txt" "$S/sideband.txt"
	# decode still needs the maps: its own copy of the sideband has them
	why=$(same_insns_with "$S" "$MAPS/sideband.txt")
	"$perf" script -i "$S/perf.data" --itrace=i0ns -F pid,tid 2>/dev/null | awk '{print $1}' | sort -u >"$S/who"
	[ "$(cat "$S/who")" = "4321/4322" ] || why+=" thread($(tr '\n' ' ' <"$S/who"))"
	"$perf" script -i "$S/perf.data" --show-switch-events --itrace=i0ns 2>/dev/null | grep -q 'PERF_RECORD_SWITCH IN' || why+=" no-switch"
	"$perf" script -i "$S/perf.data" --itrace=i0ns -F ip,dso 2>/dev/null | grep -q "$S/vdso.so" || why+=" no-vdso"
	if [ -z "$why" ]; then
		echo "PTT-RESULT PASS $name (perf script equal to pt-trace decode, on the thread the switch record names)"
	else
		echo "PTT-RESULT FAIL $name$why"
	fi
fi
