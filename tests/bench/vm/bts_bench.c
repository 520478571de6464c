// SPDX-License-Identifier: GPL-2.0
/*
 * BTS streaming benchmark (issue 15; a ratio, nothing asserted): the
 * model's BTS at its highest branch rate (model_bts_per_tick=64) on
 * every CPU with /dev/btsN streaming kernel branches (make bench boots
 * with pti=off: the driver refuses BTS under PTI), one reader thread per CPU draining with read(2)
 * for a few seconds.  Reports the records drained per second (all
 * CPUs), the records the driver had to drop (ring full), and the
 * driver's cost: its threshold-PMI time (debugfs bts handler_ns, the
 * copy into the ring included) plus the readers' CPU time inside the
 * driver's read/poll, per GB of records, as a share of the time one
 * memcpy of a GB takes in the same VM.  Under TCG the model's own
 * branch generation sets the pace; only the ratio means anything.
 * Ends with one line:
 *   bts: N records/s drained, driver P.PP% of a memcpy per GB
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "bench_common.h"

#define SECS		3.0
#define RING		(1024u * 1024)
#define MAX_CPUS	64

struct rdr {
	int cpu, fd;
	unsigned long long bytes, drv_ns;
	struct pt_trace_status st;
};

static int stop;		/* set once; read with __atomic */

/* Sum of handler_ns over CPUs from debugfs bts. */
static unsigned long long handler_ns(void)
{
	FILE *f = fopen("/sys/kernel/debug/pt_trace/bts", "r");
	unsigned long long sum = 0, v;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %*u %*u %*u %llu", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

static void *reader(void *arg)
{
	static __thread char buf[1 << 16];
	struct rdr *r = arg;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	ssize_t n;

	pin(r->cpu);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned long long t0 = cpu_ns();

		poll(&pfd, 1, 50);
		while ((n = read(r->fd, buf, sizeof(buf))) > 0)
			r->bytes += n;
		r->drv_ns += cpu_ns() - t0;
	}
	return NULL;
}

int main(void)
{
	static struct rdr r[MAX_CPUS];
	static pthread_t th[MAX_CPUS];
	unsigned long long bytes = 0, drv = 0, lost = 0, recs, h0, h1;
	int ncpu = 0, i;
	double t0, secs, mc;

	for (i = 0; i < MAX_CPUS; i++) {
		struct pt_trace_config cfg;
		char path[32];
		int fd;

		snprintf(path, sizeof(path), "/dev/bts%d", i);
		fd = open(path, O_RDWR | O_NONBLOCK);
		if (fd < 0)
			continue;
		memset(&cfg, 0, sizeof(cfg));
		cfg.size = sizeof(cfg);
		cfg.ctl = PT_CTL_OS;
		cfg.mode = PT_MODE_STREAM;
		cfg.buffer_size = RING;
		if (ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg)) {
			fprintf(stderr, "%s: SET_CONFIG: %s\n", path,
				strerror(errno));
			close(fd);
			continue;
		}
		r[ncpu].cpu = i;
		r[ncpu].fd = fd;
		ncpu++;
	}
	if (!ncpu) {
		printf("bts: no /dev/btsN takes a configuration (no BTS, or PTI): not measured\n");
		return 0;
	}
	param("model_bts_per_tick", "64");
	for (i = 0; i < ncpu; i++)
		if (ioctl(r[i].fd, PT_TRACE_IOC_START))
			fprintf(stderr, "bts%d: START: %s\n", r[i].cpu,
				strerror(errno));
	h0 = handler_ns();
	t0 = now();
	for (i = 0; i < ncpu; i++)
		pthread_create(&th[i], NULL, reader, &r[i]);
	usleep((useconds_t)(SECS * 1e6));
	/* handler_ns counts from START; read it before the readers stop. */
	h1 = handler_ns();
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);
	secs = now() - t0;
	for (i = 0; i < ncpu; i++) {
		ioctl(r[i].fd, PT_TRACE_IOC_STOP);
		memset(&r[i].st, 0, sizeof(r[i].st));
		r[i].st.size = sizeof(r[i].st);
		ioctl(r[i].fd, PT_TRACE_IOC_GET_STATUS, &r[i].st);
		bytes += r[i].bytes;
		drv += r[i].drv_ns;
		lost += r[i].st.lost_bytes;
		printf("  cpu%d: %llu records read, %llu dropped (ring full), %llu PMIs\n",
		       r[i].cpu, r[i].bytes / PT_BTS_RECORD_SIZE,
		       (unsigned long long)r[i].st.lost_bytes / PT_BTS_RECORD_SIZE,
		       (unsigned long long)r[i].st.pmis);
		close(r[i].fd);
	}
	param("model_bts_per_tick", "16");
	mc = memcpy_ns_per_gb();
	recs = bytes / PT_BTS_RECORD_SIZE;
	printf("  %d cpu(s), %.2f s, %llu records (%llu dropped), ",
	       ncpu, secs, recs, lost / PT_BTS_RECORD_SIZE);
	printf("PMI handlers %.3f ms, readers in the driver %.3f ms, memcpy %.0f ms/GB\n",
	       (h1 - h0) / 1e6, drv / 1e6, mc / 1e6);
	printf("bts: %.0f records/s drained, driver %.2f%% of a memcpy per GB\n",
	       recs / secs,
	       bytes && mc ? 100.0 * ((h1 - h0) + drv) / (bytes / 1e9) / mc : 0.0);
	return 0;
}
