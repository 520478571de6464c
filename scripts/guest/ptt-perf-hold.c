// SPDX-License-Identifier: GPL-2.0
/*
 * Guest helper: hold enabled, for the whole VM run, the kernel code
 * switches that the modules under test would otherwise flip while the
 * other vCPU runs through the patched code.  Each flip patches kernel
 * text with text_poke_bp() (an int3 first, then the new bytes, with
 * IPIs between), and under QEMU TCG a vCPU sometimes still executes the
 * int3 after it is gone: a 6.12 guest died of "Oops: int3" in
 * __schedule() while pt-trace record's perf sideband events came and
 * went, and another of "Oops: int3" in __sysvec_apic_timer_interrupt()
 * while the exact model registered its local_timer_entry probe (a 6.1
 * guest hung silently at the same point in CI).  That is a property of
 * the emulator, not of the code under test, so the runner holds them
 * before its first test and later registrations change nothing in the
 * kernel's text:
 *  - perf's scheduler static keys: one dummy event with context_switch=1
 *    (closing the last such event disables them a second later);
 *  - each tracepoint named as SYSTEM/EVENT on the command line, with two
 *    probes, so that a probe added or removed by the modules goes from
 *    N >= 2 to N + 1 and back: the tracepoint's static key stays on
 *    (0 -> 1 patches it) and its static call stays on the iterator
 *    (1 -> 2 and 2 -> 1 patch it).  The probes: ftrace's (the event
 *    enabled in tracefs, with tracing_on 0 it records nothing) and
 *    perf's (a disabled tracepoint event: the probe returns at once).
 * Writes "ready N" (N tracepoints held) to the file $PTT_HOLD_READY when
 * done, then waits for ever.  A tracepoint it cannot hold is named on
 * stderr and skipped; the run goes on.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRACING "/sys/kernel/debug/tracing"

static int perf_open(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	return syscall(SYS_perf_event_open, attr, -1, 0, -1, 0);
}

/* SYSTEM/EVENT: enable its ftrace event, open a disabled perf event. */
static int hold_tracepoint(const char *name)
{
	struct perf_event_attr attr;
	char path[256], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TRACING "/events/%s/enable", name);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(path, sizeof(path), TRACING "/events/%s/id", name);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		perror(path);
		return -1;
	}
	buf[n] = 0;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = strtoull(buf, NULL, 10);
	attr.disabled = 1;
	if (perf_open(&attr) < 0) {
		perror("ptt-perf-hold: perf_event_open(tracepoint)");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	const char *ready = getenv("PTT_HOLD_READY");
	int i, held = 0;
	FILE *f;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.context_switch = 1;
	/* This process, any CPU (pid 0, cpu -1). */
	attr.size = sizeof(attr);
	if (syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0) < 0)
		perror("ptt-perf-hold: perf_event_open(context_switch)");
	for (i = 1; i < argc; i++)
		if (!hold_tracepoint(argv[i]))
			held++;
	if (ready) {
		f = fopen(ready, "w");
		if (f) {
			fprintf(f, "ready %d\n", held);
			fclose(f);
		}
	}
	for (;;)
		pause();
}
