#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copy the source tree, without build output, downloads or git, into DIR
# (emptied first): make install, DKMS and dpkg-buildpackage work on such
# a copy so that the tree and other builds are left alone.
# Usage: stage-tree.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$1
rm -rf "$dir" && mkdir -p "$dir"
tar -C "$ROOT" -c --exclude=./.git --exclude=./.cache --exclude=./tools/build \
	--exclude='*.o' --exclude='*.cmd' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='*.a' --exclude=modules.order \
	--exclude=Module.symvers . | tar -C "$dir" -x
