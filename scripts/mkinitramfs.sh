#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack the test VM's initramfs: busybox-static, the guest scripts
# (scripts/guest/), one build of both modules (pt_trace.ko and
# pt_trace_model.ko, in the directory build-module.sh prints), the in-VM
# tests, the tools, the demo and VM benchmarks, and every shared library
# those programs need (found with ldd) with the dynamic loader.
# Usage: mkinitramfs.sh OUT.cpio.gz MODULE_DIR VM_TEST_BIN_DIR [VM_BENCH_BIN_DIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(realpath -m "$1") mods=$(realpath "$2") testbin=$(realpath "$3")
benchbin=$(realpath -m "${4:-/nonexistent}")
stage=$out.d
rm -rf "$stage" && mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,out}
cd "$stage"

cp /bin/busybox bin/busybox
for applet in $(bin/busybox --list-full); do
	[ -e "$applet" ] || ln -s /bin/busybox "$applet"
done

install -D -m755 "$ROOT/scripts/guest/init" init
mkdir -p ptt/tests ptt/bin ptt/demo ptt/bench
install -m755 "$ROOT"/scripts/guest/*.sh ptt/
install -m644 "$mods/pt_trace.ko" "$mods/pt_trace_model.ko" ptt/
gcc -static -O2 -Wall -Wextra -Werror -o bin/ptt-insmod "$ROOT/scripts/guest/ptt-insmod.c"
gcc -static -O2 -Wall -Wextra -Werror -o bin/ptt-perf-hold "$ROOT/scripts/guest/ptt-perf-hold.c"
gcc -static -O2 -Wall -Wextra -Werror -o bin/ptt-run "$ROOT/scripts/guest/ptt-run.c"

# The installed layout for tests/vm/install_*: the udev rule and the
# modprobe.d file where make install puts them, the group they name, and
# Debian's udevd to apply the rule.
install -D -m644 "$ROOT/packaging/60-pt-trace.rules" etc/udev/rules.d/60-pt-trace.rules
install -D -m644 "$ROOT/packaging/pt_trace.conf" etc/modprobe.d/pt_trace.conf
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >etc/passwd
printf 'root:x:0:\npttrace:x:990:\nnogroup:x:65534:\n' >etc/group
install -D -m755 "$(readlink -f /lib/systemd/systemd-udevd)" usr/bin/udevadm
mkdir -p lib/systemd && ln -s /usr/bin/udevadm lib/systemd/systemd-udevd

# Tests: built programs and shell scripts, named without extension.
for f in "$testbin"/* "$ROOT"/tests/vm/*.sh; do
	[ -f "$f" ] || continue
	n=$(basename "$f"); n=${n%.sh}
	install -m755 "$f" "ptt/tests/$n"
done
# A test that needs more than the runner's default time says so in its
# first lines ("ptt-timeout: SECONDS", e.g. a recorder run on the debug
# kernel); the runner reads the list from /ptt/timeouts.
: >ptt/timeouts
for f in "$ROOT"/tests/vm/*.c "$ROOT"/tests/vm/*.sh; do
	s=$(sed -n '1,30s/.*ptt-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n1)
	n=$(basename "$f"); n=${n%.*}
	[ -z "$s" ] || echo "$n $s" >>ptt/timeouts
done
# Traced programs of tests (tests/vm/work/NAME.c -> /ptt/work/NAME):
# exact_static*, exact_threads* and exact_signal statically linked, bts_*, exact_nolibc* and follow_nolibc* static without
# libc (their own _start), exact_dl_* shared libraries (NAME.so, which
# exact_dlswap loads), exact_needs_missing linked against a library left
# out, abi_compat32 for i386 without libc (left out where gcc cannot),
# the others PIEs with libc; and the
# tests' shell libraries (tests/vm/work/*.sh, sourced, not tests).
mkdir -p ptt/work
for f in "$ROOT"/tests/vm/work/*.c; do
	[ -f "$f" ] || continue
	n=$(basename "$f" .c)
	case $n in
	exact_static* | exact_threads* | exact_signal) gcc -static -pthread -O1 -g -Wall -Wextra -Werror -o "ptt/work/$n" "$f" ;;
	bts_* | exact_nolibc* | follow_nolibc*) gcc -static -nostdlib -fno-stack-protector -O1 -g -Wall -Wextra \
		-Werror -o "ptt/work/$n" "$f" ;;
	exact_dl_*) gcc -shared -fPIC -O1 -g -Wall -Wextra -Werror -o "ptt/work/$n.so" "$f" ;;
	abi_compat32)
		# i386, freestanding; none where gcc cannot (the test skips)
		gcc -m32 -O1 -g -Wall -Wextra -Werror -ffreestanding -nostdinc \
			-nostdlib -static -fno-pic -no-pie -fno-stack-protector \
			-fno-builtin -I"$ROOT/include/uapi" -I/usr/include \
			-I"/usr/include/$(gcc -dumpmachine)" \
			-isystem "$(gcc -print-file-name=include)" \
			-o "ptt/work/$n" "$f" 2>/dev/null || rm -f "ptt/work/$n" ;;
	exact_needs_missing)
		# against a library the initramfs does not carry: its loader fails
		echo 'void ptt_missing(void) {}' | gcc -shared -fPIC -x c -o ptt/libptt_missing.so -
		gcc -O1 -g -fPIE -pie -Wall -Wextra -Werror -o "ptt/work/$n" "$f" -Lptt -Wl,--no-as-needed -lptt_missing
		rm ptt/libptt_missing.so ;;
	*) gcc -O1 -g -fPIE -pie -Wall -Wextra -Werror -I"$ROOT/include/uapi" -o "ptt/work/$n" "$f" ;;
	esac
done
# C++ (tests/vm/work/NAME.cc, decode_* tests): static, -O2 -g, no
# libstdc++ (see decode_cpp.cc), and NAME.expect beside it: objdump's and
# addr2line's view of its own functions (scripts/decode-expect.sh).
for f in "$ROOT"/tests/vm/work/*.cc; do
	[ -f "$f" ] || continue
	n=$(basename "$f" .cc)
	g++ -static -O2 -g -fno-exceptions -fno-rtti -Wall -Wextra -Werror \
		-o "ptt/work/$n" "$f"
	"$ROOT/scripts/decode-expect.sh" "ptt/work/$n" 'main|.*shapes::.*' >"ptt/work/$n.expect"
done
# The PIE's own functions and PLT entries, for tests/vm/decode_pie.sh.
"$ROOT/scripts/decode-expect.sh" ptt/work/exact_pie 'main|cmp|.*@plt' >ptt/work/exact_pie.expect
for f in "$ROOT"/tests/vm/work/*.sh; do
	[ -f "$f" ] && install -m644 "$f" ptt/work/
done
for f in "$ROOT"/tools/build/*; do
	[ -f "$f" ] && [ -x "$f" ] && install -m755 "$f" ptt/bin/
done
for f in "$ROOT"/tools/demo/*; do
	[ -f "$f" ] && install -m755 "$f" ptt/demo/
done
# Benchmarks: built programs and scripts (not their C sources or headers).
for f in "$benchbin"/* "$ROOT"/tests/bench/vm/*; do
	case $f in *.c | *.h) continue ;; esac
	[ -f "$f" ] && install -m755 "$f" ptt/bench/
done

# Shared libraries (and the loader) of every dynamic program we carry.
for f in ptt/tests/* ptt/bin/* ptt/demo/* ptt/bench/* ptt/work/* usr/bin/udevadm; do
	[ -f "$f" ] && head -c4 "$f" | grep -q ELF || continue
	# (a static program has none: ldd fails on it)
	ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' || true
done | sort -u | while read -r lib; do
	install -D "$(readlink -f "$lib")" ".$lib"
done

find . | sort | cpio -o -H newc --quiet | gzip -1 >"$out"
