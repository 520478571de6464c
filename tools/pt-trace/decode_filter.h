/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode's filters, as perf script names them: --pid, --tid, --time A,B
 * and the CPU list (-C/--cpus; decode's --cpu is the CPU model, as in
 * ptdump).  Each applies to every output: the listing, --format=ip,
 * --calls and --timeline.
 */
#ifndef PT_TRACE_DECODE_FILTER_H
#define PT_TRACE_DECODE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#define DFLT_MAX_IDS	64

struct decode_filter {
	int pid[DFLT_MAX_IDS];
	size_t npid;		/* 0: every process */
	int tid[DFLT_MAX_IDS];
	size_t ntid;		/* 0: every thread */
	int have_time;		/* --time: [from_ns, to_ns] */
	uint64_t from_ns, to_ns;
	uint64_t *cpus;		/* bitmap, NULL: every CPU */
	int max_cpu;
};

/* "1,2,3" appended to --pid or --tid: 0 or -EINVAL. */
int dflt_parse_ids(const char *s, int *ids, size_t *n);
/* "0,2-3": 0 or -EINVAL. */
int dflt_parse_cpus(struct decode_filter *f, const char *s);
/*
 * "A,B" in seconds (decimals to the nanosecond, as decode prints them),
 * either end may be left out ("A," or ",B"): 0 or -EINVAL.
 */
int dflt_parse_time(struct decode_filter *f, const char *s);

/* Whether each filter lets it through. */
int dflt_cpu(const struct decode_filter *f, int cpu);
int dflt_task(const struct decode_filter *f, int pid, int tid);
int dflt_time(const struct decode_filter *f, int have_ns, uint64_t ns);
/* Any filter that needs the tasks or the time of each instruction. */
static inline int dflt_per_insn(const struct decode_filter *f)
{
	return f->npid || f->ntid || f->have_time;
}

void dflt_free(struct decode_filter *f);

#endif /* PT_TRACE_DECODE_FILTER_H */
