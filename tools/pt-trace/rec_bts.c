// SPDX-License-Identifier: GPL-2.0
/*
 * record --bts: beside each CPU's PT trace, /dev/btsN (abi.rst, "Branch
 * Trace Store").  In flight mode its newest records, copied by the
 * driver oldest first to the start of the data at STOP, are written as
 * they are to DIR/cpuN.bts (pt-trace dump FILE.bts reads them); in
 * stream mode rec_bts_ring.c drains the ring as PT's (rec_ring.c).  The
 * ioctls go through ptdev.c like PT's; only the device name differs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/pt_trace.h>

#include "bts_info.h"
#include "ptdev.h"
#include "rec_bts.h"

/* What to do, appended to the errors of open, SET_CONFIG and START. */
static const char no_bts[] =
	" (this CPU has no Branch Trace Store: see pt-trace info; record without --bts)";
static const char no_access[] =
	" (BTS needs root or the pttrace group, and CAP_PERFMON)";
static const char no_pti[] =
	" (page table isolation is on: record without --bts, or boot with pti=off)";
static const char no_side[] =
	" (no DS-CPL here: give both -k and -u, or neither; see dmesg)";
static const char no_perfmon[] =
	" (BTS records the whole CPU: it needs CAP_PERFMON)";
static const char in_use[] =
	" (BTS is in use on that CPU, perhaps by perf: see dmesg)";
#include "sideband.h"
#include "tool.h"

int rec_bts_open(struct rec_bts *b, int cpu, uint64_t size, int kernel,
		 int user, uint32_t mode, uint32_t watermark)
{
	struct pt_trace_config cfg;
	char path[32];
	int err;

	b->cpu = cpu;
	snprintf(path, sizeof(path), "/dev/bts%d", cpu);
	b->fd = open(path, O_RDWR | O_CLOEXEC);
	if (b->fd < 0) {
		err = errno;
		const char *why =
			err == ENOENT ? no_bts :
			err == EBUSY ? " (another recorder has it open)" :
			err == EACCES ? no_access : "";

		ptt_err("cannot open %s: %s%s", path, strerror(err), why);
		return PTT_EXIT_DEVICE;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = mode;
	cfg.watermark = mode == PT_MODE_STREAM ? watermark : 0;
	cfg.buffer_size = size;
	/* Switch records tell the decoder whose branches follow. */
	cfg.ctl = (kernel ? PT_CTL_OS : 0) | (user ? PT_CTL_USER : 0) |
		  PT_BTS_CTL_SWITCHES;
	err = ptdev_set_config(b->fd, &cfg);
	if (err == -EINVAL || err == -EOPNOTSUPP) {
		cfg.ctl &= ~PT_BTS_CTL_SWITCHES;
		if (!ptdev_set_config(b->fd, &cfg)) {
			ptt_warn("%s: no switch records (an older driver, or no sched_switch tracepoint): decode cannot tell the threads' branches apart",
				 path);
			err = 0;
		}
	}
	if (err) {
		const char *why =
			err == -EOPNOTSUPP ? (bts_info_pti() ? no_pti : no_side) :
			err == -EPERM ? no_perfmon :
			err == -EINVAL ? " (check -b)" : "";

		ptt_err("%s refused the configuration: %s%s", path,
			strerror(-err), why);
		return PTT_EXIT_DEVICE;
	}
	return 0;
}

int rec_bts_start(struct rec_bts *b)
{
	int err = ptdev_start(b->fd);

	if (err) {
		ptt_err("/dev/bts%d: START: %s%s", b->cpu, strerror(-err),
			err == -EBUSY ? in_use : "");
		return PTT_EXIT_DEVICE;
	}
	return 0;
}

/*
 * The driver stops a BTS trace whose CPU goes offline (or at a suspend);
 * record STARTs it again once the CPU is back (rec_hotplug()), as PT's.
 * One still stopped at the end (its CPU offline, or a stop in the last
 * moments) has no records after that: the user is told and the sideband
 * says so (bts.cpuN.stopped=1).
 */
void rec_bts_stopped(FILE *sb, int cpu, int stopped)
{
	char key[32];

	if (!stopped)
		return;
	snprintf(key, sizeof(key), "bts.cpu%d.stopped", cpu);
	ptsb_put(sb, key, "1");
	ptt_warn("cpu %d: the driver stopped BTS before the end (the CPU went offline, or a suspend) and it could not be started again: cpu%d.bts ends there",
		 cpu, cpu);
}

void rec_bts_close(struct rec_bts *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}
