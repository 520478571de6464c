/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/vm/model_*.c tests: trace CPU 0 through /dev/pt0
 * in flight-recorder mode, read the model's debugfs counters and set its
 * module parameters, and walk a trace with libipt's packet decoder while
 * reconstructing the IP of every IP packet from its compression (SDM
 * Table 36-12), so that a test can check where the trace says the CPU was.
 */
#ifndef MODEL_COMMON_H
#define MODEL_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/pt_trace.h>

#include "ptt_test.h"

#define MC_MODEL_DIR	"/sys/kernel/debug/pt_trace/model/"
#define MC_PARAM_DIR	"/sys/module/pt_trace_model/parameters/"

/* IA32_RTIT_STATUS (SDM Table 36-8). */
#define MC_RTIT_STATUS_STOPPED	BIT_ULL(5)

/*
 * Code a test filters on lives in a section of its own; the linker
 * defines __start_NAME and __stop_NAME around a section whose name is a
 * C identifier, which gives the exact address range.
 */
#ifndef noinline
#define noinline	__pt_attribute((__noinline__))
#endif
#ifndef __used
#define __used		__pt_attribute((__used__))
#endif
#ifndef __section
#define __section(s)	__pt_attribute((__section__(s)))
#endif
#define MC_SECTION_BOUNDS(name) \
	extern const char __start_##name[], __stop_##name[]

static inline double mc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A model counter from debugfs (summed over CPUs), -1 when absent. */
static inline long long mc_model(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), MC_MODEL_DIR "%s", name);
	return ptt_read_ll(path);
}

static inline int mc_write(const char *path, const char *val)
{
	return ptt_write_str(path, val);
}

/* Set a module parameter (the model's are writable at run time). */
static inline int mc_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), MC_PARAM_DIR "%s", name);
	return mc_write(path, val);
}

/* model_period_us and model_tick_bytes as a test found them. */
struct mc_pace {
	char period[32], tick[32];
};

static inline void mc_pace_save(struct mc_pace *p)
{
	REQUIRE(ptt_read_str(MC_PARAM_DIR "model_period_us", p->period,
			     sizeof(p->period)) == 0, "model_period_us");
	REQUIRE(ptt_read_str(MC_PARAM_DIR "model_tick_bytes", p->tick,
			     sizeof(p->tick)) == 0, "model_tick_bytes");
}

static inline void mc_pace_restore(const struct mc_pace *p)
{
	if (p->period[0])
		mc_param("model_period_us", p->period);
	if (p->tick[0])
		mc_param("model_tick_bytes", p->tick);
}

/*
 * What the model wrote while a test traced CPU 0 with nothing to do
 * there for @secs (mc_run()'s @fn: the ticks sample whatever runs),
 * START and STOP left out.
 */
struct mc_window {
	double secs;
	double t0, t1;
	long long w0, w1;
};

static inline void mc_idle(void *arg)
{
	struct mc_window *w = arg;

	w->w0 = mc_model("bytes_written");
	w->t0 = mc_now();
	usleep(w->secs * 1e6);
	w->t1 = mc_now();
	w->w1 = mc_model("bytes_written");
}

/* Open /dev/pt0 from CPU 0 and read its capabilities. */
static inline int mc_open(struct pt_trace_caps *caps)
{
	int fd;

	REQUIRE(ptt_pin_cpu(0) == 0, "pin: %s", strerror(errno));
	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	memset(caps, 0, sizeof(*caps));
	caps->size = sizeof(*caps);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CAPS, caps) == 0, "GET_CAPS: %s",
		strerror(errno));
	return fd;
}

/* Replace the RTIT_CTL bits of the staged configuration. */
static inline void mc_set_ctl(int fd, __u64 ctl)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };

	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg) == 0,
		"GET_CONFIG: %s", strerror(errno));
	cfg.ctl = (cfg.ctl & ~(PT_CTL_OS | PT_CTL_USER | PT_CTL_BRANCHEN)) | ctl;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg) == 0,
		"SET_CONFIG ctl %#llx: %s", (unsigned long long)ctl,
		strerror(errno));
}

struct mc_trace {
	__u8 *buf;		/* oldest byte first */
	size_t len;
	struct pt_trace_status st;
};

/*
 * Start, run @fn, stop, and copy the flight-recorder buffer out oldest
 * byte first.
 */
static inline void mc_run(int fd, void (*fn)(void *), void *arg,
			  struct mc_trace *t)
{
	size_t maplen, first, i;
	__u8 *map;

	REQUIRE(ioctl(fd, PT_TRACE_IOC_START) == 0, "START: %s",
		strerror(errno));
	fn(arg);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_STOP) == 0, "STOP: %s", strerror(errno));
	memset(&t->st, 0, sizeof(t->st));
	t->st.size = sizeof(t->st);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &t->st) == 0,
		"GET_STATUS: %s", strerror(errno));
	maplen = 4096 + t->st.buffer_size;
	map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	t->len = t->st.head < t->st.buffer_size ? t->st.head :
						  t->st.buffer_size;
	first = (t->st.head - t->len) % t->st.buffer_size;
	t->buf = malloc(t->len ? t->len : 1);
	REQUIRE(t->buf, "malloc");
	for (i = 0; i < t->len; i++)
		t->buf[i] = map[4096 + (first + i) % t->st.buffer_size];
	munmap(map, maplen);
}

static inline __u64 mc_sext48(__u64 ip)
{
	return (__u64)((__s64)(ip << 16) >> 16);
}

/*
 * The IP an IP packet names, from the last IP (the decoder state that a
 * PSB resets): 0 when the IP is suppressed.
 */
static inline int mc_ip(const struct pt_packet_ip *p, __u64 *last, __u64 *ip)
{
	switch (p->ipc) {
	case pt_ipc_update_16:
		*last = (*last & ~0xffffULL) | (p->ip & 0xffffULL);
		break;
	case pt_ipc_update_32:
		*last = (*last & ~0xffffffffULL) | (p->ip & 0xffffffffULL);
		break;
	case pt_ipc_update_48:
		*last = (*last & ~0xffffffffffffULL) |
			(p->ip & 0xffffffffffffULL);
		break;
	case pt_ipc_sext_48:
		*last = mc_sext48(p->ip);
		break;
	case pt_ipc_full:
		*last = p->ip;
		break;
	default:
		return 0;
	}
	*ip = *last;
	return 1;
}

static inline int mc_is_ip_packet(enum pt_packet_type t)
{
	return t == ppt_tip || t == ppt_tip_pge || t == ppt_tip_pgd ||
	       t == ppt_fup;
}

/*
 * Call @fn for every packet from the first PSB on, with the IP it names
 * (@has_ip 0 when it names none).  Returns the number of decode errors
 * (the walk resyncs at the next PSB), or -1 without any PSB.
 */
typedef void (*mc_pkt_fn)(const struct pt_packet *p, __u64 ip, int has_ip,
			  void *ctx);

static inline long mc_walk(const __u8 *buf, size_t len, mc_pkt_fn fn,
			   void *ctx)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	__u64 last = 0, ip;
	long errors = 0;
	int ret, has;

	pt_config_init(&cfg);
	cfg.begin = (__u8 *)buf;
	cfg.end = (__u8 *)buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	if (pt_pkt_sync_forward(dec) < 0) {
		pt_pkt_free_decoder(dec);
		return -1;
	}
	for (;;) {
		ret = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			errors++;
			last = 0;
			if (pt_pkt_sync_forward(dec) < 0)
				break;
			continue;
		}
		if (pkt.type == ppt_psb)
			last = 0;
		ip = 0;
		has = mc_is_ip_packet(pkt.type) &&
		      mc_ip(&pkt.payload.ip, &last, &ip);
		fn(&pkt, ip, has, ctx);
	}
	pt_pkt_free_decoder(dec);
	return errors;
}

#endif /* MODEL_COMMON_H */
