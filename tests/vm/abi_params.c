// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters written with garbage while tracing: every writable
 * file of /sys/module/pt_trace{,_model}/parameters gets empty, garbage,
 * 0, 1, -1, huge and page-sized values while CPU 0 streams (a reader
 * drains it) and CPU 1 is opened, configured, started and stopped over
 * and over; each write is undone after a few ms.  A write may be
 * refused; nothing may warn, oops or hang, and afterwards both CPUs must
 * trace as before.  Two targeted cases first:
 *  - buf_size shrunk between SET_CONFIG (a stream with buffer_size 0,
 *    the module default, and a watermark) and START: the stream must
 *    run on the size it was configured with (not a one-page ring under
 *    its watermark, which SET_CONFIG would have refused);
 *  - model_rate at its maximum with model_period_us at its maximum
 *    (1 s): the model's rate arithmetic must not overflow (a #DE in the
 *    tick) and the stream must go on.
 * Under icl only (one run per kernel).  About 6 s.
 * ptt-timeout: 60
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "stream_common.h"

static const char *const values[] = {
	"", "garbage", "0", "1", "-1", "4096", "65536",
	"18446744073709551615", "99999999999999999999999", "0x7fffffff",
	"2147483648", "-2147483648", "Y", " 12 ",
};

static int stop_all;	/* __atomic */
static int fd0;
static unsigned long long reader_bytes, reader_eofs;

static void *reader(void *arg)
{
	static unsigned char buf[64 << 10];
	struct pollfd p = { .fd = fd0, .events = POLLIN };
	ssize_t n;

	(void)arg;
	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = read(fd0, buf, sizeof(buf));
		if (n > 0)
			__atomic_add_fetch(&reader_bytes, n, __ATOMIC_RELAXED);
		else if (n == 0)
			reader_eofs++;
	}
	return NULL;
}

/* CPU 1: open, configure (buffer_size 0: the module default), run, stop. */
static unsigned long cycles, cycle_errs;

static void *cycler(void *arg)
{
	struct pt_trace_config cfg;
	struct pt_trace_status st;
	int fd;

	(void)arg;
	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		fd = ptt_open_cpu(1, O_RDWR);
		if (fd < 0) {
			usleep(1000);
			continue;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.size = sizeof(cfg);
		cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
		cfg.mode = cycles & 1 ? PT_MODE_STREAM : PT_MODE_FLIGHT;
		if (ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg) ||
		    ioctl(fd, PT_TRACE_IOC_START)) {
			cycle_errs++;
		} else {
			usleep(3000);
			memset(&st, 0, sizeof(st));
			st.size = sizeof(st);
			ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st);
			ioctl(fd, PT_TRACE_IOC_STOP);
		}
		close(fd);
		cycles++;
	}
	return NULL;
}

static void param_path(char *path, size_t len, const char *mod,
		       const char *name)
{
	snprintf(path, len, "/sys/module/%s/parameters/%s", mod, name);
}

static void rd(const char *mod, const char *name, char *val, size_t len)
{
	char path[512];

	param_path(path, sizeof(path), mod, name);
	REQUIRE(ptt_read_str(path, val, len) >= 0, "read %s", path);
	val[strcspn(val, "\n")] = 0;
}

static int wr(const char *mod, const char *name, const char *val)
{
	char path[512];

	param_path(path, sizeof(path), mod, name);
	return ptt_write_str(path, val);
}

/* buf_size shrunk between SET_CONFIG and START. */
static void case_buf_size(void)
{
	struct pt_trace_config cfg;
	struct pt_trace_status st;
	char old[64];
	int fd, ret;

	rd("pt_trace", "buf_size", old, sizeof(old));
	REQUIRE(!wr("pt_trace", "buf_size", "65536"), "buf_size 65536");
	fd = ptt_open_cpu(1, O_RDWR);
	REQUIRE(fd >= 0, "open /dev/pt1: %s", strerror(errno));
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.mode = PT_MODE_STREAM;
	cfg.watermark = 32768;
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg),
		"SET_CONFIG stream, default size: %s", strerror(errno));
	REQUIRE(!wr("pt_trace", "buf_size", "4096"), "buf_size 4096");
	ret = ioctl(fd, PT_TRACE_IOC_START);
	st_status(fd, &st);
	printf("buf_size 64 KiB at SET_CONFIG, 4 KiB at START: START %d (%s), buffer %llu\n",
	       ret, ret ? strerror(errno) : "ok",
	       (unsigned long long)st.buffer_size);
	CHECK(ret || st.buffer_size == 65536,
	      "stream configured on a 64 KiB default with a 32 KiB watermark runs on %llu bytes",
	      (unsigned long long)st.buffer_size);
	if (!ret) {
		usleep(20000);
		CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s",
		      strerror(errno));
	}
	close(fd);
	REQUIRE(!wr("pt_trace", "buf_size", old), "buf_size back");
}

/* The model's rate at its maximum with a 1 s period. */
static void case_rate(void)
{
	char per[64], rate[64];
	unsigned long long b0 = reader_bytes;
	double t0 = st_now();

	rd("pt_trace_model", "model_period_us", per, sizeof(per));
	rd("pt_trace_model", "model_rate", rate, sizeof(rate));
	wr("pt_trace_model", "model_period_us", "1000000");
	wr("pt_trace_model", "model_rate", "18446744073709551615");
	while (st_now() - t0 < 2.5)
		usleep(10000);
	wr("pt_trace_model", "model_rate", rate);
	wr("pt_trace_model", "model_period_us", per);
	printf("model_rate max, 1 s period: %llu bytes in 2.5 s\n",
	       __atomic_load_n(&reader_bytes, __ATOMIC_RELAXED) - b0);
}

static unsigned long writes, refused;

static void garble(const char *mod)
{
	char dirp[128], path[512], old[256];
	struct dirent *de;
	struct stat sb;
	unsigned int i;
	DIR *d;
	int ret;

	snprintf(dirp, sizeof(dirp), "/sys/module/%s/parameters", mod);
	d = opendir(dirp);
	REQUIRE(d, "%s: %s", dirp, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		param_path(path, sizeof(path), mod, de->d_name);
		if (stat(path, &sb) || !(sb.st_mode & 0200))
			continue;
		rd(mod, de->d_name, old, sizeof(old));
		for (i = 0; i < ARRAY_SIZE(values); i++) {
			ret = wr(mod, de->d_name, values[i]);
			writes++;
			refused += ret != 0;
			usleep(5000);
			ret = wr(mod, de->d_name, old);
			CHECK(!ret, "%s/%s back to '%s': %s", mod, de->d_name,
			      old, strerror(-ret));
		}
		printf("%s/%s: written, back to '%s'\n", mod, de->d_name, old);
	}
	closedir(d);
}

int main(void)
{
	struct pt_trace_caps caps;
	pthread_t rt, ct;
	unsigned long long b0;
	char prof[32];
	double t0;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a panic keeps what was said */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs CPU 1");
	/* Nothing here depends on the profile: one run per kernel. */
	if (ptt_read_str(PARAM_DIR "model_profile", prof, sizeof(prof)) < 0 ||
	    strncmp(prof, "icl", 3))
		SKIP("icl only: the parameters do not depend on the profile");
	case_buf_size();

	fd0 = st_setup(0, 256 << 10, 0, 0, &caps);
	REQUIRE(!ioctl(fd0, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	REQUIRE(!pthread_create(&rt, NULL, reader, NULL), "thread");
	case_rate();

	REQUIRE(!pthread_create(&ct, NULL, cycler, NULL), "thread");
	garble("pt_trace");
	garble("pt_trace_model");
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELAXED);
	pthread_join(ct, NULL);
	pthread_join(rt, NULL);
	printf("%lu writes (%lu refused); CPU 1: %lu sessions (%lu refused)",
	       writes, refused, cycles, cycle_errs);
	printf("; CPU 0 streamed %llu bytes\n", reader_bytes);

	/* Everything as before: CPU 0 still streams, CPU 1 still starts. */
	b0 = reader_bytes;
	t0 = st_now();
	__atomic_store_n(&stop_all, 0, __ATOMIC_RELAXED);
	REQUIRE(!pthread_create(&rt, NULL, reader, NULL), "thread");
	while (__atomic_load_n(&reader_bytes, __ATOMIC_RELAXED) == b0 &&
	       st_now() - t0 < 5)
		usleep(10000);
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELAXED);
	pthread_join(rt, NULL);
	CHECK(__atomic_load_n(&reader_bytes, __ATOMIC_RELAXED) > b0,
	      "CPU 0 streams nothing after the writes");
	CHECK(!ioctl(fd0, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	close(fd0);
	st_restore_model();
	return ptt_done();
}
