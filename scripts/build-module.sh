#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build both modules, pt_trace.ko and pt_trace_model.ko, with W=1 C=2
# against one kernel tree, in a private copy of the sources
# (.cache/work/build/NAME/: out-of-tree objects of different kernels would
# collide in the tree).  Any compiler, sparse or modpost warning fails.
# Prints the directory that holds the two .ko files.
# Usage: build-module.sh NAME KDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1 kdir=$2
dir=$WORK/build/$name
rm -rf "$dir" && mkdir -p "$dir"
# A fresh copy each time: a warning must show on every run, not only on the
# run that first compiled the file.
tar -C "$ROOT" -c --exclude='*.o' --exclude='*.cmd' --exclude='*.ko' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='*.a' \
	Kbuild VERSION drivers include | tar -C "$dir" -x

log=$dir/build.log
rc=0
make -j"$(nproc)" -C "$kdir" M="$dir" W=1 C=2 modules >"$log" 2>&1 || rc=$?
# Relative paths make the messages readable.
sed -i "s|$dir/||g" "$log"
if [ $rc != 0 ] || grep -qiE 'warning|error' "$log"; then
	grep -iE -B2 -A3 'warning|error' "$log" >&2 || tail -n 30 "$log" >&2
	die "module build against $name ($kdir) is not clean: see $log"
fi
for m in pt_trace pt_trace_model; do
	[ -f "$dir/$m.ko" ] || die "the build against $name made no $m.ko: see $log"
done
echo "$dir"
