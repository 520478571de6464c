/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reserving PT against perf's intel_pt for as long as the module is
 * loaded (ownership.c).
 */
#ifndef _PT_TRACE_OWNERSHIP_H
#define _PT_TRACE_OWNERSHIP_H

#include <linux/types.h>

/* What protects a CPU's PT against perf (one per CPU, and overall). */
enum pt_own_state {
	PT_OWN_MODEL,		/* backend=model: perf's PT is not the model */
	PT_OWN_NO_PMU,		/* no intel_pt PMU: nothing to reserve from */
	PT_OWN_RESERVED,	/* our CPU-wide intel_pt event is installed */
	PT_OWN_PERF_BUSY,	/* perf has intel_pt events: not reserved */
	PT_OWN_FAILED,		/* reservation failed otherwise */
};

/* Pure: the state from the backend, the PMU search and the creation. */
enum pt_own_state pt_own_decide(bool model, int pmu_type, int create_err);
const char *pt_own_str(enum pt_own_state s);

void pt_own_init(void);
void pt_own_exit(void);
/* Before a START on @cpu (process context, no lock): 0 or -EBUSY. */
int pt_own_start(unsigned int cpu);
/* What protects PT now, over the online CPUs (sysfs). */
enum pt_own_state pt_own_summary(void);

struct perf_event;
/* perf's PMU @name's type (sysfs), or -1 when there is none. */
int pt_own_pmu_type(const char *name);
/* A disabled CPU-wide event of PMU @type on @cpu: the reservation. */
struct perf_event *pt_own_create(int type, unsigned int cpu);

/*
 * perf's intel_bts, reserved while /dev/btsN is in use (ownership_bts.c):
 * at the first START (0, or -EBUSY while perf holds it on @cpu), held
 * across STOP and START, released at the device's last close or when
 * @cpu goes offline.
 */
void bts_own_init(void);
int bts_own_start(unsigned int cpu);
void bts_own_release(unsigned int cpu);

#endif /* _PT_TRACE_OWNERSHIP_H */
