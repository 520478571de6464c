/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small library every in-VM test program links: checks that report
 * and count, device and sysfs helpers, and a libipt packet walk that
 * proves a trace decodes.  A test exits 0 (pass), 77 (skip) or 1 (fail);
 * the VM runner turns that into a PTT-RESULT line.
 */
#ifndef PTT_TEST_H
#define PTT_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/types.h>
#include "compiler.h"

#define PTT_SKIP 77

extern int ptt_failures;

/* Report a failed check with file:line and the expression, and count it. */
__printf(4, 5)
void ptt_fail(const char *file, int line, const char *expr,
	      const char *fmt, ...);

/* A failed check is reported and counted; the test goes on. */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			ptt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/* Like CHECK, but a failure ends the test at once. */
#define REQUIRE(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			ptt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
			exit(1);					\
		}							\
	} while (0)

#define SKIP(...)							\
	do {								\
		fprintf(stderr, "SKIP: ");				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		exit(PTT_SKIP);						\
	} while (0)

/* exit status for main(): 0 when no check failed. */
int ptt_done(void);

/* Read /sys or /proc files; -1 when absent. */
long long ptt_read_ll(const char *path);
int ptt_read_str(const char *path, char *buf, size_t len);

/* open("/dev/ptN"), -1 with errno on failure. */
int ptt_open_cpu(int cpu, int flags);

/* Pin the calling thread to one CPU. */
int ptt_pin_cpu(int cpu);

/* Packet counts from a libipt packet-decoder walk of a buffer. */
struct ptt_packet_stats {
	__u64 packets;
	__u64 errors;	/* decode errors other than end of stream */
	__u64 psb, psbend, fup, tip, tip_pge, tip_pgd, tnt;
	__u64 mode_exec, mode_tsx, pip, tsc, tma, cbr, mtc, cyc;
	__u64 ptw, pwre, pwrx, exstop, mwait, ovf, vmcs, pad, other;
	__u64 first_error_offset;
};

/*
 * Walk every packet from the first PSB with libipt's packet decoder.
 * Returns 0 when the buffer held at least one PSB, -1 otherwise; decode
 * errors are counted in stats->errors (the decoder resyncs at next PSB).
 */
int ptt_decode_packets(const __u8 *buf, size_t len,
		       struct ptt_packet_stats *stats);

struct pt_packet;
typedef void (*ptt_packet_fn)(const struct pt_packet *pkt, void *ctx);

/*
 * The same walk, calling @fn (if not NULL) for every packet decoded;
 * @stats may be NULL.  Returns -1 when @buf holds no PSB, else 0.
 */
int ptt_walk_packets(const __u8 *buf, size_t len,
		     struct ptt_packet_stats *stats, ptt_packet_fn fn,
		     void *ctx);

/* The model's PTW sequence numbers (model_seq=1) in a buffer. */
struct ptt_seq {
	unsigned long long ptws;	/* PTW packets */
	unsigned long long breaks;	/* payloads that are not last + 1 */
	unsigned long long first, last;
};

void ptt_ptw_seq(const __u8 *buf, size_t len, struct ptt_seq *seq);

/*
 * Busy user-space work for the tracer: @loops iterations of a loop with
 * a system call every 512, so that user and kernel code both run.
 */
void ptt_busy(unsigned long loops);

/* This process's pinned memory (/proc/self/status VmPin), KiB; -1 if unknown. */
long ptt_vmpin_kb(void);

/* Write @s to a sysfs/debugfs file: 0 or -errno. */
int ptt_write_str(const char *path, const char *s);

/* Kernel log lines (the ring's) matching POSIX basic @regex, or -1. */
int ptt_dmesg_count(const char *regex);

#endif /* PTT_TEST_H */
