#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one kernel in QEMU (TCG) with an initramfs from mkinitramfs.sh and
# run a guest job (check, demo or bench).  The console (ttyS0) goes to
# .../NAME/console.log; the guest's /out comes back as a tar stream on
# ttyS1 and is unpacked into .../NAME/out/.
#
# For mode=check, prints one line per result on stdout:
#   PASS|FAIL|SKIP NAME TEST [(why)]
# preceded by the output of each failed test (indented), and the guest's
# facts (kernel, CPU vendor, PTI) as indented "NAME: ..." lines.
# A run that ends without the guest's report (panic, hang, timeout) is a
# FAIL of the last test started, with the kernel's first complaint.  For demo and bench, the
# console is passed through.
# In check mode a boot that dies or hangs before the first test starts
# (no PTT-START on the console within PTT_VM_BOOT_TIMEOUT, 300 s) is
# booted once more, saying so: the debug kernel once took a KASAN report
# in an interrupt handler at 0.03 s, long before our modules, and once
# hung.  A run where a test started is never repeated.
# Usage: vm-run.sh NAME VMLINUZ INITRD CPU MODE OUTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1 kernel=$2 initrd=$3 cpu=$4 mode=$5 dir=$6
timeout=${PTT_VM_TIMEOUT:-1500}
boot_limit=${PTT_VM_BOOT_TIMEOUT:-300}
stall_limit=${PTT_VM_STALL:-960}
rm -f "$dir.boot1.log"

# QEMU's TCG has no invariant TSC to offer (+invtsc is refused: "TCG
# doesn't support requested feature"), so a guest that sees an AMD CPU
# (6.1's plain "max") marks its TSC "unsynchronized" at boot (Intel ones
# it takes as synchronized): sched_clock is then unstable and perf's mmap
# page has no cap_user_time_zero, so the recorder's sideband has no exact
# TSC (tests/vm/follow_switch.c needs it).  TCG's TSC is one host clock
# for all vCPUs: say so with tsc=reliable.  An Intel guest trusts it at
# boot, but its clocksource watchdog can still mark it unstable later: a
# 6.12 check saw a 0.5 ms skew against the HPET over 515 ms (the host
# late to run a vCPU during exact_hotplug's stepping and CPU hotplug),
# and every later test that needs perf's TSC times failed.  So on every
# guest.
tsc_param=" tsc=reliable"

# started: a test began (the runner's first PTT-START).
started() { grep -q '^PTT-START ' "$dir/console.log" 2>/dev/null; }

# stall_watch: end a check run whose guest hung.  Every test has its own
# time limit and ptt-run prints when it kills one, so a console silent
# for stall_limit seconds (more than the longest limit a test may ask,
# see mkinitramfs.sh, times the runner's TIMEOUT_SCALE) means the whole guest stopped.  Before killing
# qemu, vm-stall.py asks its monitor what the vCPUs were doing; after it
# a short boot of the same kernel (ptt.mode=kallsyms) gives the symbols
# to name it with, into $dir/stall.txt: a hang then costs minutes, not
# the whole VM timeout, and says where it was.
stall_watch() {
	local size last=-1 quiet=0 pid
	pid=$(cat "$dir/qemu.pid" 2>/dev/null) || return 0
	while kill -0 "$pid" 2>/dev/null; do
		size=$(stat -c %s "$dir/console.log" 2>/dev/null || echo 0)
		if [ "$size" = "$last" ]; then
			quiet=$((quiet + 5))
		else
			quiet=0 last=$size
		fi
		if [ "$quiet" -ge "$stall_limit" ]; then
			"$ROOT/scripts/vm-stall.py" capture "$dir/monitor.sock" \
				"$dir/stall.raw" >"$dir/stall.txt" 2>&1
			sleep 15	# what the NMI made the guest print
			echo "guest hung: console silent for ${stall_limit}s; vCPU state in $dir/stall.txt" >"$dir/stalled"
			kill "$pid" 2>/dev/null
			return 0
		fi
		sleep 5
	done
}

# qemu_args APPEND CONSOLE OUT: set QEMU to the one qemu command line of
# every boot here (the check, demo or bench run and the stall report's
# kallsyms boot), with APPEND added to the kernel command line, the
# console (ttyS0) going to CONSOLE and the guest's /out tar stream
# (ttyS1) to OUT, both as -serial takes them.
qemu_args() {
	QEMU=(qemu-system-x86_64 -accel tcg -cpu "$cpu" -smp 2 -m 1G
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 loglevel=5$tsc_param $1"
		-display none -no-reboot -nic none
		-serial "$2" -serial "$3"
		-device isa-debug-exit,iobase=0xf4,iosize=0x04)
}

# One boot: the console in $dir, the exit status of qemu (through
# timeout) in rc.  In check mode a watcher ends a boot that started no
# test within boot_limit seconds.
boot() {
	local watcher="" st
	rm -rf "$dir" && mkdir -p "$dir"
	say "booting $name ($(basename "$kernel"), -cpu $cpu, mode $mode)"
	if [ "$mode" = check ]; then
		(
			t=0
			while [ $t -lt "$boot_limit" ] && ! started; do
				sleep 2
				t=$((t + 2))
			done
			if ! started && [ -s "$dir/qemu.pid" ]; then
				echo "no test started within ${boot_limit}s" >"$dir/boot-hung"
				kill "$(cat "$dir/qemu.pid")" 2>/dev/null
				exit 0
			fi
			stall_watch
		) >/dev/null 2>&1 &
		watcher=$!
	fi
	set +e
	qemu_args "oops=panic panic_on_warn=1 ptt.mode=$mode${PTT_APPEND:+ $PTT_APPEND}" \
		stdio "file:$dir/out.tar"
	timeout -k 10 "$timeout" "${QEMU[@]}" \
		-monitor "unix:$dir/monitor.sock,server=on,wait=off" \
		-pidfile "$dir/qemu.pid" </dev/null |
		stdbuf -oL tr -d '\r' | tee "$dir/console.log" | {
		if [ "$mode" = check ]; then
			awk -v k="$name" '
			/^PTT-START / { buf = ""; next }
			/^PTT-(TIME|PHASE|KSYM|MODTEXT) / { next }
			/^PTT-INFO / { sub(/^PTT-INFO /, ""); print "  " k ": " $0; fflush(); next }
			/^PTT-RESULT / {
				$1 = ""; st = $2; $2 = ""; sub(/^ +/, "")
				if (st == "FAIL" && buf != "")
					printf "%s", buf
				print st " " k " " $0; fflush(); buf = ""; next
			}
			{ buf = buf $0 "\n" }'
		else
			grep -v -e '^PTT-DONE' || true
		fi
	}
	st=("${PIPESTATUS[@]}")
	set -e
	rc=${st[0]}
	if [ -n "$watcher" ]; then
		kill "$watcher" 2>/dev/null || true
		wait "$watcher" 2>/dev/null || true
	fi
}

# stall_report: name what vm-stall.py captured of a hung guest, with the
# kernel symbols of a second, short boot of the same kernel (its
# /proc/kallsyms, in $dir.kallsyms/).
stall_report() {
	local sdir=$dir.kallsyms
	if [ -s "$dir/stall.raw" ]; then
		rm -rf "$sdir" && mkdir -p "$sdir"
		qemu_args ptt.mode=kallsyms "file:$sdir/console.log" \
			"file:$sdir/out.tar"
		timeout -k 10 300 "${QEMU[@]}" -monitor none </dev/null \
			>/dev/null 2>&1 || true
		tar -xf "$sdir/out.tar" -C "$sdir" 2>/dev/null || true
		"$ROOT/scripts/vm-stall.py" report "$dir/stall.raw" \
			"$dir/console.log" "$sdir/kallsyms" "$initrd.d/ptt" \
			>>"$dir/stall.txt" 2>&1 || true
	fi
	sed -n '1,/^raw registers:/p' "$dir/stall.txt"
}

boot
# 33 and 35: the guest wrote its verdict (0x10 / 0x11) to port 0xf4.
if [ "$mode" = check ] && [ "$rc" != 33 ] && [ "$rc" != 35 ] && ! started; then
	why=$(cat "$dir/boot-hung" 2>/dev/null ||
		grep -m1 -E 'BUG:|WARNING:|Oops|UBSAN:|Kernel panic' "$dir/console.log" |
		sed 's/^\[[ 0-9.]*\] //' || true)
	cp "$dir/console.log" "$dir.boot1.log" 2>/dev/null || true
	say "retrying: the $name boot ended (qemu status $rc) before the first test started: ${why:-no report}; its console is in $dir.boot1.log"
	boot
fi

mkdir -p "$dir/out"
tar -xf "$dir/out.tar" -C "$dir/out" 2>/dev/null || true

case $mode-$rc in
check-33 | check-35 | *-33) exit 0 ;;
*-35) die "the $mode job failed in the VM" ;;
*-124 | *-137) why="timed out after ${timeout}s" ;;
*) why="qemu exit $rc, no report: panic or crash" ;;
esac
[ ! -s "$dir/boot-hung" ] || why=$(cat "$dir/boot-hung")
if [ -s "$dir/stalled" ]; then
	why=$(cat "$dir/stalled")
	stall_report >&2
fi
last=$(sed -n 's/^PTT-START //p' "$dir/console.log" | tail -n1)
cause=$(grep -m1 -E 'BUG:|WARNING:|Oops|UBSAN:|Kernel panic' "$dir/console.log" |
	sed 's/^\[[ 0-9.]*\] //' || true)
tail -n 40 "$dir/console.log" >&2
echo "FAIL $name ${last:-boot} ($why${cause:+: $cause}; log $dir/console.log)"
[ "$mode" = check ] || exit 1
