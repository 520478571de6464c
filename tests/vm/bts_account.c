// SPDX-License-Identifier: GPL-2.0
/*
 * bts_account: the memory a /dev/btsN session pins is charged as the
 * ring is (abi.rst, "Privileges", *Memory*): besides the ring and its
 * control page, the DS save area and the BTS buffer the CPU writes,
 * allocated at START (as large as the ring in flight mode, up to the
 * largest contiguous chunk; a quarter of it, at most 64 KiB, streaming).
 * Checked as root without CAP_IPC_LOCK (dropped from the effective set),
 * through this process's pinned_vm (/proc/self/status VmPin):
 *  - a flight START with a 1 MiB ring pins the ring, its control page,
 *    the 1 MiB DS buffer and the DS area (16 KiB: ds_area.h); a
 *    streaming one with a 64 KiB ring, its 16 KiB DS buffer and area
 *    besides; each goes back to 0
 *    at close;
 *  - under an RLIMIT_MEMLOCK of 1.5 MiB, which the ring alone fits, the
 *    flight START fails with EPERM, and only the ring stays pinned
 *    (allocated by that START, kept for the next) until close; with the
 *    limit lifted again, the same START works (the refused charge left
 *    no count behind, in pinned_vm or in the driver's global one).
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "bts_common.h"

/* CAP_IPC_LOCK out of the effective set: charges count from here on. */
static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	REQUIRE(!syscall(SYS_capget, &h, d), "capget: %s", strerror(errno));
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	REQUIRE(!syscall(SYS_capset, &h, d), "capset: %s", strerror(errno));
}

/* A session of @ring bytes in @mode: VmPin while it runs, in KiB. */
static long session(__u32 mode, __u64 ring, int *err)
{
	long ring_kb = (ring >> 10) + (sysconf(_SC_PAGESIZE) >> 10);
	int fd = bts_open(0, O_RDWR);
	long kb = -1;

	REQUIRE(!bts_config(fd, bts_ctl_here(), mode, ring, 0),
		"SET_CONFIG: %s", strerror(errno));
	*err = 0;
	if (ioctl(fd, PT_TRACE_IOC_START))
		*err = errno;
	else
		kb = ptt_vmpin_kb();
	if (*err)
		CHECK(ptt_vmpin_kb() <= ring_kb,
		      "a failed START left %ld KiB pinned, more than the ring's %ld",
		      ptt_vmpin_kb(), ring_kb);
	ioctl(fd, PT_TRACE_IOC_STOP);
	close(fd);
	CHECK(ptt_vmpin_kb() == 0, "%ld KiB pinned after close", ptt_vmpin_kb());
	return kb;
}

int main(void)
{
	long page_kb = sysconf(_SC_PAGESIZE) >> 10, kb, want;
	struct rlimit rl = { 1536 << 10, 1536 << 10 };
	int err;

	bts_require();
	drop_ipc_lock();
	REQUIRE(ptt_vmpin_kb() == 0, "VmPin %ld KiB before any session",
		ptt_vmpin_kb());

	/* Flight: ring + control page + DS buffer (1 MiB) + DS area (16 KiB). */
	kb = session(PT_MODE_FLIGHT, 1 << 20, &err);
	want = 2 * 1024 + page_kb + 16;
	CHECK(!err && kb == want, "flight 1 MiB: VmPin %ld KiB, want %ld (%s)",
	      kb, want, strerror(err));
	/* Streaming: 64 KiB ring, a 16 KiB DS buffer. */
	kb = session(PT_MODE_STREAM, 64 << 10, &err);
	want = 64 + 16 + page_kb + 16;
	CHECK(!err && kb == want, "stream 64 KiB: VmPin %ld KiB, want %ld (%s)",
	      kb, want, strerror(err));

	REQUIRE(!setrlimit(RLIMIT_MEMLOCK, &rl), "setrlimit: %s",
		strerror(errno));
	kb = session(PT_MODE_FLIGHT, 1 << 20, &err);
	CHECK(err == EPERM, "flight 1 MiB under a 1.5 MiB RLIMIT_MEMLOCK: %s (VmPin %ld KiB)",
	      err ? strerror(err) : "started", kb);
	rl.rlim_cur = RLIM_INFINITY;
	rl.rlim_max = RLIM_INFINITY;
	REQUIRE(!setrlimit(RLIMIT_MEMLOCK, &rl), "setrlimit: %s",
		strerror(errno));
	kb = session(PT_MODE_FLIGHT, 1 << 20, &err);
	want = 2 * 1024 + page_kb + 16;
	CHECK(!err && kb == want,
	      "flight 1 MiB after the refusal: VmPin %ld KiB, want %ld (%s)",
	      kb, want, strerror(err));
	return ptt_done();
}
