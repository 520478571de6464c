#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The installed udev rule (packaging/60-pt-trace.rules, put where make
# install puts it, /etc/udev/rules.d, by mkinitramfs.sh) applied by
# Debian's own systemd-udevd: /dev/ptN becomes group pttrace, mode 0660,
# and stays so when its CPU goes offline and comes back (the driver then
# removes and re-creates the node, which devtmpfs makes root 0600 again:
# only the rule can restore it).  The nodes are given back to root 0600
# at the end, as the other tests expect.
UDEVD=/lib/systemd/systemd-udevd
RULE=/etc/udev/rules.d/60-pt-trace.rules
ONLINE=/sys/devices/system/cpu/cpu1/online
fail=0
[ -x $UDEVD ] && [ -f $RULE ] || { echo "FAIL: no $UDEVD or $RULE in the image" >&2; exit 1; }
grep -q '^pttrace:' /etc/group || { echo "FAIL: no group pttrace in /etc/group" >&2; exit 1; }

# perms NODE: "GROUP MODE" of NODE.
perms() {
	stat -c '%G %a' "$1" 2>/dev/null
}

expect() {
	got=$(perms "$1")
	if [ "$got" != "pttrace 660" ]; then
		echo "FAIL: $1 $2: '$got', expected 'pttrace 660'" >&2
		fail=1
	fi
}

# udevd needs sockets (netlink, unix), which the project's debug kernel
# (a tinyconfig) leaves out; Debian's 6.1 and 6.12 have them.
if [ ! -d /proc/net ]; then
	echo "this kernel has no networking (CONFIG_NET): udevd cannot run" >&2
	exit 77
fi
mkdir -p /run && mount -t tmpfs tmpfs /run
$UDEVD --daemon || { echo "FAIL: systemd-udevd did not start" >&2; exit 1; }
udevadm trigger --subsystem-match=pt_trace --action=add
udevadm settle -t 20
for n in /dev/pt[0-9]*; do
	expect "$n" "after the load"
done

# A node the rule never touched (root 0600), re-created by CPU hotplug.
if [ -w $ONLINE ]; then
	chgrp root /dev/pt1 && chmod 600 /dev/pt1
	echo 0 >$ONLINE && udevadm settle -t 20
	[ ! -e /dev/pt1 ] || { echo "FAIL: /dev/pt1 still there with cpu1 offline" >&2; fail=1; }
	echo 1 >$ONLINE && udevadm settle -t 20
	expect /dev/pt1 "after cpu1 came back online"
else
	echo "no $ONLINE: hotplug part not run" >&2
fi

# udevd must be gone before the next test: left running, it would give
# the nodes of the next module load the rule's 0660 (capture_perm saw it).
udevadm control --exit
i=0
while pidof systemd-udevd >/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if pidof systemd-udevd >/dev/null; then
	echo "systemd-udevd did not exit: killed" >&2
	kill -9 $(pidof systemd-udevd) 2>/dev/null
	sleep 0.2
fi
for n in /dev/pt[0-9]*; do
	chgrp root "$n" && chmod 600 "$n"
done
umount /run
exit $fail
