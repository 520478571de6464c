#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the debug kernel (KASAN, lockdep, kmemleak, UBSAN, KUnit) from
# Debian's linux-source-6.1 with scripts/debug-kernel.config, out of tree in
# .cache/debug-kernel/<source version>-<fragment hash>/ (also the KDIR that
# out-of-tree modules build against).  Prints that folder.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag=$ROOT/scripts/debug-kernel.config
src=$("$ROOT/scripts/fetch-source.sh")
key=$(basename "$src")-$(sha256sum "$frag" | cut -c1-12)
out=$CACHE/debug-kernel/$key
if [ -f "$out/.built" ]; then
	say "debug kernel: $out (cached)"
	echo "$out"
	exit 0
fi

say "building the debug kernel in $out (about 4 minutes on 2 cores)"
rm -rf "$out" && mkdir -p "$out"
kmake() { make -s -C "$src" O="$out" "$@"; }
kmake tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null 2>&1
kmake olddefconfig >"$out/olddefconfig.log" 2>&1

# Every wanted line must be in the final config, exactly.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set")
		# Off: fine whether written as unset or hidden by dependencies.
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$out/.config" && continue
		want=$line ;;
	*) continue ;;
	esac
	if ! grep -qxF "$want" "$out/.config"; then
		opt=${want#\# }; opt=${opt%%[= ]*}
		say "config: wanted '$want', got '$(grep -E "(^|# )$opt[= ]" "$out/.config" || echo absent)'"
		missing=1
	fi
done <"$frag"
[ "$missing" = 0 ] || die "debug kernel config: the options above did not survive olddefconfig"

# Two jobs by default: the machines this runs on have 2 cores, shared.
jobs=${PTT_JOBS:-2}
kmake -j"$jobs" bzImage modules
kmake modules_prepare
touch "$out/.built"
# Older keys (another fragment or source version) are dead weight.
find "$CACHE/debug-kernel" -mindepth 1 -maxdepth 1 ! -path "$out" -exec rm -rf {} +
say "debug kernel: $out"
echo "$out"
