#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pt-trace export --perf writes perf's HEADER_BUILD_ID feature section:
# 'perf buildid-list -i perf.data' must list every mapped ELF file of
# decode-maps' recording (the PIE, libc, ld.so and the recording's
# vdso.so) with the build-id perf itself reads from that file, and the
# kernel's recorded kernel.build_id as [kernel.kallsyms]
# (export-perf-buildid); with a sideband.perf whose libc mapping carries
# a build-id (as Linux 5.12+ records it), that recorded one, not the
# file's (export-perf-buildid-recorded), and so with a map.build_id=
# line after libc's map= line (export-perf-map-build-id); and perf
# script must find a binary that was replaced after the recording in its
# build-id cache (~/.debug, 'perf buildid-cache -a'), decoding exactly
# what pt-trace decode does with the original
# (export-perf-buildid-cache).  Prints PTT-RESULT lines; skipped when
# perf does not run here.
#
# usage: export_buildid.sh PT-TRACE TMPDIR MAPS

PT=$1
TMP=$2
MAPS=$3
HERE=$(dirname "$0")

perf=perf
if ! perf version >/dev/null 2>&1; then
	for p in /usr/bin/perf_*; do
		[ -x "$p" ] && "$p" version >/dev/null 2>&1 && perf=$p
	done
fi
for name in export-perf-buildid export-perf-buildid-recorded \
	    export-perf-map-build-id export-perf-buildid-cache; do
	if ! "$perf" version >/dev/null 2>&1; then
		echo "PTT-RESULT SKIP $name perf does not run here; install linux-perf"
	elif [ ! -f "$MAPS/cpu0.pt" ]; then
		echo "PTT-RESULT SKIP $name no $MAPS/cpu0.pt (decode-maps did not run)"
	else
		continue
	fi
	skip=1
done
[ -n "$skip" ] && exit 0

result() { # NAME WHY PASS-TEXT
	if [ -z "$2" ]; then
		echo "PTT-RESULT PASS $1 ($3)"
	else
		echo "PTT-RESULT FAIL $1$2"
	fi
}

# "BUILDID PATH" as perf reads it from the ELF file PATH itself
file_id() {
	echo "$("$perf" buildid-list -i "$1" 2>/dev/null) $1"
}

# the recording directory NAME, a copy of decode-maps' with what record
# writes for it (and map_probe copied in, its maps naming the copy)
setup() {
	local d=$TMP/$1

	rm -rf "$d"
	cp -r "$MAPS" "$d"
	rm -f "$d/perf.data"
	sed -i "s|^\(map=.*\) $MAPS/map_probe\$|\1 $d/map_probe|" "$d/sideband.txt"
	printf 'pid=4321\ncpu=0\ncpu.file=0 cpu0.pt\n' >>"$d/sideband.txt"
	echo "$d"
}

KID=00112233445566778899aabbccddeeff01234567
B=$(setup export-bid)
echo "kernel.build_id=$KID" >>"$B/sideband.txt"
why=
"$PT" export --perf "$B" >"$B/export.out" 2>&1 || why+=" export-exit-$?:$(head -c 200 "$B/export.out")"
"$perf" buildid-list -i "$B/perf.data" >"$B/ids" 2>"$B/ids.err"
files=("$B/map_probe" /usr/lib/x86_64-linux-gnu/libc.so.6
       /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$(realpath "$B/vdso.so")")
for f in "${files[@]}"; do
	want=$(file_id "$f")
	[ "${#want}" -gt 40 ] || why+=" no-build-id-in:$f"
	grep -qxF "$want" "$B/ids" || why+=" missing:$want"
done
grep -qxF "$KID [kernel.kallsyms]" "$B/ids" || why+=" missing-kernel"
[ "$(wc -l <"$B/ids")" = 5 ] ||
	why+=" listed($(tr '\n' '|' <"$B/ids") $(head -c 200 "$B/ids.err"))"
result export-perf-buildid "$why" "perf buildid-list lists the kernel's and the 4 mapped files' build-ids"

# export_recorded_ids: export $S and add to $why what perf's build-id
# list lacks: libc with the recorded $LID, the probe with its file's id,
# and exactly 4 entries.
export_recorded_ids() {
	"$PT" export --perf "$S" >"$S/export.out" 2>&1 || why+=" export-exit-$?:$(head -c 200 "$S/export.out")"
	"$perf" buildid-list -i "$S/perf.data" >"$S/ids" 2>"$S/ids.err"
	grep -qxF "$LID /usr/lib/x86_64-linux-gnu/libc.so.6" "$S/ids" || why+=" recorded"
	grep -qxF "$(file_id "$S/map_probe")" "$S/ids" || why+=" file"
	[ "$(wc -l <"$S/ids")" = 4 ] ||
		why+=" listed($(tr '\n' '|' <"$S/ids") $(head -c 200 "$S/ids.err"))"
}

# a recorded build-id wins over the file's
S=$(setup export-bid-rec)
LID=feedfacecafef00d0123456789abcdef00112233
grep -v '^map=' "$S/sideband.txt" >"$S/sb.txt"
python3 "$HERE/export_sideband.py" "$S" "/usr/lib/x86_64-linux-gnu/libc.so.6=$LID"
mv "$S/sb.txt" "$S/sideband.txt"
why=
export_recorded_ids
result export-perf-buildid-recorded "$why" "libc listed with the build-id its mmap record carries"

# sideband.txt's map.build_id= wins over the file's too
S=$(setup export-bid-map)
sed -i "/^map=.* \/usr\/lib\/x86_64-linux-gnu\/libc\.so\.6\$/{n;s/^\(map\.build_id=[^ ]*\) .*/\1 $LID/}" "$S/sideband.txt"
why=
grep -q "^map\.build_id=.* $LID\$" "$S/sideband.txt" || why+=" setup"
export_recorded_ids
result export-perf-map-build-id "$why" "libc listed with the build-id of its map.build_id= line"

# perf script reads a binary that changed since from its build-id cache
why=
"$PT" decode --sideband "$B/sideband.txt" --format=ip "$B/cpu0.pt" 2>/dev/null | sed 's/^0*//' >"$B/ours"
mkdir -p "$B/home"
HOME=$B/home "$perf" buildid-cache -a "$B/map_probe" 2>"$B/cache.err" ||
	why+=" buildid-cache:$(head -c 200 "$B/cache.err")"
# a new file (the cache may hold a hard link to the old one)
rm -f "$B/map_probe"
cp /bin/true "$B/map_probe"
HOME=$B/home "$perf" script -i "$B/perf.data" --itrace=i0ns -F ip 2>"$B/perf.err" |
	awk '{print $1}' >"$B/theirs"
[ "$(grep -c . "$B/ours")" -ge 9 ] || why+=" pt-trace-decoded-$(grep -c . "$B/ours")"
cmp -s "$B/ours" "$B/theirs" ||
	why+=" perf-differs($(diff "$B/ours" "$B/theirs" | head -n 3 | tr '\n' ' ') $(head -c 200 "$B/perf.err"))"
result export-perf-buildid-cache "$why" "perf script takes the replaced PIE from ~/.debug by build-id, equal to pt-trace decode"
