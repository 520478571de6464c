#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The timeline in a real viewer: 'pt-trace decode --timeline' of a
# two-CPU recording of skl-hello, whose sideband.perf switches thread 4242
# 'hello' in on CPU 0 and 4243 'worker' on CPU 1 (timeline_sideband.py),
# is loaded into speedscope (npm package, works offline from its own
# files) in headless Debian chromium, and the page must show that
# speedscope parsed it: no error, the process and both thread tracks by
# name and tid, and the function and syscall spans in its
# sandwich table, the syscall's time inside _start (as self time of the
# syscall, none of _start's own).  A screenshot of the time-ordered view is taken too
# (--screenshot FILE keeps it: Documentation/timeline-speedscope.png is
# made so).  Skipped (PTT-RESULT SKIP, exit 77 when run alone) when
# chromium or npm is missing: scripts/deps-packages.sh installs chromium;
# speedscope is installed with npm into $PTT_CACHE/npm (default
# .cache/npm) on first use.
#
# usage: timeline_viewer.sh PT-TRACE SHARED TMPDIR [--screenshot FILE]

PT=$1
SHARED=$2
D=$3/viewer
SHOT=
[ "$4" = --screenshot ] && SHOT=$5
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${PTT_CACHE:-$ROOT/.cache}/npm
H="$SHARED/traces/skl-hello"
name=timeline-speedscope

skip() {
	echo "PTT-RESULT SKIP $name $1"
	exit 77
}
[ -f "$H/pt.bin" ] || skip "no $H"
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium: run scripts/deps-packages.sh (it installs Debian's chromium for this test)"
command -v npm >/dev/null || skip "no npm to install speedscope with (install nodejs)"
SS="$CACHE/node_modules/speedscope/dist/release/index.html"
if [ ! -f "$SS" ]; then
	mkdir -p "$CACHE"
	npm install --prefix "$CACHE" --no-audit --no-fund --silent speedscope@1.25.0 >"$3/npm.log" 2>&1 ||
		skip "npm install speedscope failed: $(tail -n 2 "$3/npm.log" | tr '\n' ' ')"
fi

mkdir -p "$D"
cp "$H/pt.bin" "$D/cpu0.pt"
cp "$H/pt.bin" "$D/cpu1.pt"
printf 'pt-trace-sideband=1\ncpu.family=6\ncpu.model=85\ncpu.stepping=4\nmtc_freq=3\nnom_freq=37\ncpuid15.eax=2\ncpuid15.ebx=308\ntsc_hz=3700000000\npid=4242\ncmd=hello\n' >"$D/sideband.txt"
python3 "$ROOT/tests/host/timeline_sideband.py" "$D"
"$PT" decode -q --elf "$H/hello" --timeline "$D/tl.json" "$D/cpu0.pt" "$D/cpu1.pt" >"$D/out" 2>&1 ||
	{ echo "PTT-RESULT FAIL $name decode: $(tail -n 2 "$D/out" | tr '\n' ' ')"; exit 0; }
# speedscope's own command-line loader: a script that hands it the file
python3 - "$D/tl.json" "$D/tl.js" <<'PY'
import base64, json, sys
data = base64.b64encode(open(sys.argv[1], 'rb').read()).decode()
open(sys.argv[2], 'w').write('speedscope.loadFileFromBase64("tl.json", %s)' % json.dumps(data))
PY
url="file://$SS#localProfilePath=$D/tl.js"
run() { # extra chromium arguments, URL
	timeout 60 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$D/profile" \
		--virtual-time-budget=5000 "$@" 2>>"$D/chromium.err"
}
run --dump-dom "$url&view=sandwich" >"$D/dom.html"
python3 - "$D/dom.html" >"$D/text" <<'PY'
import html, re, sys
t = re.sub(r'<[^>]+>', ' ', open(sys.argv[1]).read())
print(re.sub(r'\s+', ' ', html.unescape(t)))
PY
why=
grep -q 'tl.json - speedscope' "$D/text" || why+=" not-loaded"
grep -qi 'something went wrong\|error\|unrecognized format' "$D/text" && why+=" viewer-error"
for want in 'pt-trace: hello (pid 4242), hello (tid 4242)' \
	    'pt-trace: hello (pid 4242), worker (tid 4243)' ' _start' ' syscall'; do
	grep -qF "$want" "$D/text" || why+=" missing($want)"
done
# the syscall inside _start: all of _start's time is the syscall's own
grep -qF '18.19µs (100%) 18.19µs (100%) syscall 18.19µs (100%) 0.00ns (<0.01%) _start' "$D/text" ||
	why+=" nesting"
run --screenshot="$D/shot.png" --window-size=1200,640 "$url" >/dev/null
[ "$(head -c 4 "$D/shot.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] &&
	[ "$(stat -c %s "$D/shot.png")" -gt 10000 ] || why+=" screenshot"
[ -n "$SHOT" ] && cp "$D/shot.png" "$SHOT"
if [ -z "$why" ]; then
	echo "PTT-RESULT PASS $name (speedscope shows both threads' tracks, _start and syscall)"
else
	echo "PTT-RESULT FAIL $name$why: $(head -c 300 "$D/text")"
fi
