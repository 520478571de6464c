#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pt-trace --version names the tool with its uapi ABI, then the loaded
# driver: its MODULE_VERSION (the same VERSION file), backend and ABI.
out=$(pt-trace --version) || { echo "FAIL: pt-trace --version failed" >&2; exit 1; }
echo "$out"
ver=$(cat /sys/module/pt_trace/version)
echo "$out" | head -n1 | grep -qx "pt-trace $ver (uapi ABI [0-9]*)" ||
	{ echo "FAIL: first line does not name pt-trace $ver and the ABI" >&2; exit 1; }
echo "$out" | sed -n 2p | grep -qx "driver: pt_trace $ver loaded, model backend, ABI [0-9]*" ||
	{ echo "FAIL: second line does not name the loaded driver" >&2; exit 1; }
