/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/vm/bts_*.c tests: open /dev/btsN, configure it,
 * read the model's BTS counters and check 24-byte branch records.
 */
#ifndef BTS_COMMON_H
#define BTS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define BTS_MODEL_DIR "/sys/kernel/debug/pt_trace/model/"
#define BTS_TAIL_PARAM "/sys/module/pt_trace_model/parameters/model_bts_tail"
#define BTS_REC 24

struct bts_rec {
	__u64 from, to, flags;
};

static inline long long bts_model(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), BTS_MODEL_DIR "%s", name);
	return ptt_read_ll(path);
}

static inline int bts_pti(void)
{
	char buf[128] = "";

	ptt_read_str("/sys/devices/system/cpu/vulnerabilities/meltdown", buf,
		     sizeof(buf));
	return !!strstr(buf, "PTI");
}

/*
 * Skips where the model is not the backend or the CPU has no BTS; BTS
 * may still be refused (PTI): bts_require() for a test that traces.
 */
static inline void bts_require_model(void)
{
	char buf[32] = "";

	if (ptt_read_str("/sys/kernel/pt_trace/backend", buf, sizeof(buf)) < 0 ||
	    strncmp(buf, "model", 5))
		SKIP("not the model backend");
	if (ptt_read_ll("/sys/kernel/pt_trace/bts/present") != 1)
		SKIP("this profile has no BTS (bts/present is not 1)");
	/*
	 * bdw's BTS is icl's (DS, DS-CPL, the same model), and the BTS
	 * source shares no output code with PT's ToPA or single range:
	 * a second run adds nothing (make check's time budget).
	 */
	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("BTS runs on icl (the other profiles' BTS is icl's or none)");
}

/* What a test that traces with BTS needs: the above, and no PTI. */
static inline void bts_require(void)
{
	bts_require_model();
	if (bts_pti())
		SKIP("PTI is on: the driver refuses BTS (bts_config checks it)");
}

static inline int bts_open(int cpu, int flags)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/bts%d", cpu);
	fd = open(path, flags);
	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	return fd;
}

static inline int bts_config(int fd, __u64 ctl, __u32 mode, __u64 size,
			     __u32 wm)
{
	struct pt_trace_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.ctl = ctl;
	cfg.mode = mode;
	cfg.buffer_size = size;
	cfg.watermark = wm;
	return ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg);
}

static inline void bts_status(int fd, struct pt_trace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, st), "GET_STATUS: %s",
		strerror(errno));
}

/* The branch filter a test can use here: both sides. */
static inline __u64 bts_ctl_here(void)
{
	return PT_CTL_OS | PT_CTL_USER;
}

static inline int bts_kernel_addr(__u64 a)
{
	return a >= 0xffff800000000000ULL;
}

/* Records that are whole and match @ctl's filter: the bad ones. */
static inline unsigned long long bts_check_recs(const void *buf, size_t len,
						__u64 ctl)
{
	const struct bts_rec *r = buf;
	unsigned long long bad = 0;
	size_t i;

	for (i = 0; i < len / BTS_REC; i++) {
		int k = bts_kernel_addr(r[i].from);

		if (!r[i].from || !r[i].to ||
		    k != bts_kernel_addr(r[i].to) ||
		    (k && !(ctl & PT_CTL_OS)) ||
		    (!k && !(ctl & PT_CTL_USER)))
			bad++;
	}
	return bad;
}

/* The model's DEBUGCTL and DS_AREA of @cpu, from its detail file. */
static inline int bts_model_regs(int cpu, unsigned long long *dbg,
				 unsigned long long *ds)
{
	char line[256], want[32];
	FILE *f = fopen(BTS_MODEL_DIR "detail", "r");
	int ok = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "cpu%d bts ", cpu);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "debugctl %llx ds_area %llx",
			   dbg, ds) == 2)
			ok = 0;
	fclose(f);
	return ok;
}

static inline void bts_busy(double secs)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		ptt_busy(20000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}

/*
 * Reads a non-blocking /dev/btsN stream into @buf (of @cap bytes) at
 * *@len until it has nothing more; a read error other than EAGAIN fails.
 */
static inline void bts_drain(int fd, unsigned char *buf, size_t cap,
			     size_t *len)
{
	ssize_t n;

	while ((n = read(fd, buf + *len, cap - *len)) > 0)
		*len += n;
	CHECK(n == 0 || errno == EAGAIN, "read: %s", strerror(errno));
}

/* CPU 0's late_pmis from debugfs bts (the last column), or -1. */
static inline long long bts_late_pmis(void)
{
	FILE *f = fopen("/sys/kernel/debug/pt_trace/bts", "r");
	unsigned long long v;
	long long ret = -1;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "0 %*u %*u %*u %*u %*u %*u %llu", &v) == 1)
			ret = v;
	fclose(f);
	return ret;
}

/* Back to the model's default BTS stores (also as an atexit handler). */
static inline void bts_tail_off(void)
{
	ptt_write_str(BTS_TAIL_PARAM, "0");
}

#endif /* BTS_COMMON_H */
