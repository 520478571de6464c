// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming benchmark (ratios only, nothing asserted): the model at its
 * highest rate on every CPU, one recorder thread per CPU draining
 * /dev/ptN with read(2) into a tmpfs file, for a few seconds.  Reports
 * GB/s per CPU, bytes lost (what the model could not write, and the
 * driver's loss records), PMIs per GB, the mean PMI handler time, and the
 * ratio to the tmpfs write bandwidth measured in the same run.  Writes
 * the table to $PTT_OUT/stream_bench.txt (or /tmp) and ends with
 *   streaming: X.XX GB/s/cpu, N bytes lost, R.RR x tmpfs bandwidth
 * Build: cc -O2 -Iinclude/uapi -o stream_bench stream_bench.c -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#define SECS		3.0
#define BUF_SIZE	(4 * CHUNK)	/* single-entry ToPA: at most 4 MiB */
#define CHUNK		1048576u
#define MAX_CPUS	64

struct rec {
	int cpu, fd, out;
	unsigned long long bytes;
	struct pt_trace_status st;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void param(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/pt_trace/parameters/%s",
		 name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

static long long model_ctr(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/pt_trace/model/%s",
		 name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Sum of handler_ns over CPUs from debugfs stream. */
static unsigned long long handler_ns(void)
{
	FILE *f = fopen("/sys/kernel/debug/pt_trace/stream", "r");
	unsigned long long sum = 0, v[13];
	char line[512];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8]) == 9)
			sum += v[8];
	fclose(f);
	return sum;
}

static void *drain(void *arg)
{
	struct rec *r = arg;
	char *buf = malloc(CHUNK);
	cpu_set_t set;
	ssize_t n;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (buf) {
		n = read(r->fd, buf, CHUNK);
		if (n > 0) {
			if (write(r->out, buf, n) != n)
				break;
			r->bytes += n;
		} else if (n == 0 || errno != EINTR) {
			break;	/* EOF after STOP */
		}
	}
	free(buf);
	return NULL;
}

static double tmpfs_bw(void)
{
	char *buf = malloc(CHUNK);
	double t0, t;
	int fd, i;

	fd = open("/tmp/bw.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !buf)
		return 0;
	memset(buf, 0x5a, CHUNK);
	t0 = now();
	for (i = 0; i < 256; i++)
		if (write(fd, buf, CHUNK) != CHUNK)
			break;
	t = now() - t0;
	close(fd);
	unlink("/tmp/bw.bin");
	free(buf);
	return i * (double)CHUNK / t;
}

int main(void)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, fd;
	unsigned long long total = 0, pmis = 0, recs = 0, hns;
	long long lost0, lost1;
	struct rec r[MAX_CPUS];
	pthread_t th[MAX_CPUS];
	struct pt_trace_config cfg;
	double bw, t0, t, gbps;
	const char *dir = getenv("PTT_OUT");
	char path[256];
	FILE *out;

	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	bw = tmpfs_bw();
	param("model_period_us", "10");
	param("model_tick_bytes", "65536");
	lost0 = model_ctr("lost_bytes");
	for (i = 0; i < ncpu; i++) {
		snprintf(path, sizeof(path), "/dev/pt%d", i);
		r[i].cpu = i;
		r[i].bytes = 0;
		r[i].fd = open(path, O_RDWR);
		snprintf(path, sizeof(path), "/tmp/stream%d.pt", i);
		r[i].out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (r[i].fd < 0 || r[i].out < 0) {
			perror("open");
			return 1;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.size = sizeof(cfg);
		cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
		cfg.mode = PT_MODE_STREAM;
		cfg.buffer_size = BUF_SIZE;
		if (ioctl(r[i].fd, PT_TRACE_IOC_SET_CONFIG, &cfg) ||
		    ioctl(r[i].fd, PT_TRACE_IOC_START)) {
			perror("configure/start");
			return 1;
		}
	}
	hns = handler_ns();
	t0 = now();
	for (i = 0; i < ncpu; i++)
		pthread_create(&th[i], NULL, drain, &r[i]);
	usleep(SECS * 1e6);
	for (i = 0; i < ncpu; i++)
		ioctl(r[i].fd, PT_TRACE_IOC_STOP);
	for (i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);
	t = now() - t0;
	hns = handler_ns() - hns;
	lost1 = model_ctr("lost_bytes");
	for (i = 0; i < ncpu; i++) {
		r[i].st.size = sizeof(r[i].st);
		ioctl(r[i].fd, PT_TRACE_IOC_GET_STATUS, &r[i].st);
		total += r[i].bytes;
		pmis += r[i].st.pmis;
		recs += r[i].st.loss_records;
	}
	gbps = total / t / ncpu / 1e9;
	param("model_period_us", "1000");
	param("model_tick_bytes", "2048");

	snprintf(path, sizeof(path), "%s/stream_bench.txt", dir ? dir : "/tmp");
	out = fopen(path, "w");
	for (fd = 0; fd < 2; fd++) {
		FILE *f = fd ? out : stdout;

		if (!f)
			continue;
		fprintf(f, "cpu  bytes        pmis   stops  loss_records  lost_ms\n");
		for (i = 0; i < ncpu; i++)
			fprintf(f, "%-4d %-12llu %-6llu %-6llu %-13llu %.1f\n",
				i, r[i].bytes,
				(unsigned long long)r[i].st.pmis,
				(unsigned long long)r[i].st.stops,
				(unsigned long long)r[i].st.loss_records,
				r[i].st.lost_ns / 1e6);
		fprintf(f, "seconds %.2f, tmpfs %.2f GB/s, ", t, bw / 1e9);
		fprintf(f, "PMIs per GB %.0f, mean handler %.0f ns, loss records %llu\n",
			total ? pmis / (total / 1e9) : 0.0,
			pmis ? (double)hns / pmis : 0.0, recs);
		fprintf(f, "streaming: %.2f GB/s/cpu, %lld bytes lost, %.2f x tmpfs bandwidth\n",
			gbps, lost1 - lost0, bw ? gbps * 1e9 * ncpu / bw : 0.0);
	}
	if (out)
		fclose(out);
	for (i = 0; i < ncpu; i++) {
		close(r[i].fd);
		close(r[i].out);
		snprintf(path, sizeof(path), "/tmp/stream%d.pt", i);
		unlink(path);
	}
	return 0;
}
