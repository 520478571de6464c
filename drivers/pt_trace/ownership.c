// SPDX-License-Identifier: GPL-2.0
/*
 * PT belongs to us on every CPU for as long as the module is loaded, and
 * perf knows it (silicon-review C1).  perf's intel_pt PMU is
 * PERF_PMU_CAP_EXCLUSIVE: exclusive_event_init() refuses a per-task
 * event of it while a CPU-wide one exists (and the reverse), and
 * exclusive_event_installable() refuses a second CPU-wide one on a CPU
 * that has one.  So at load we create, on each online CPU, one disabled
 * CPU-wide intel_pt event with perf_event_create_kernel_counter(): it
 * never counts or traces (disabled, never enabled), and from then on a
 * `perf record -e intel_pt//`, per-task or CPU-wide, fails with EBUSY
 * instead of sharing the MSRs with us.  (It also keeps perf's PMI
 * handler active, which claims a stray bit 55, silicon-review M3.)
 *
 * The PMU type is dynamic and perf_pmu lookup is not exported, so we
 * search it: perf_event_create_kernel_counter() with each type from
 * PERF_TYPE_MAX finds the registered PMU by type (idr), -ENOENT for a
 * hole, and the event's pmu->name says which one it is; a wrong one is
 * released at once (disabled, it never ran).  pt_type= names the type
 * (from /sys/bus/event_source/devices/intel_pt/type) and skips the
 * search.  Checked against the 6.1 source (kernel/events/core.c) and
 * built against 6.1 and 6.12; never run on silicon, and the VM has no
 * intel_pt PMU, so only pt_own_decide() is tested (KUnit).
 *
 * Where perf already has intel_pt events at load, the reservation fails
 * with EBUSY on those CPUs (or all, for a per-task event); START tries
 * again there and, while perf holds it, fails with EBUSY and one log
 * line naming perf.  Limits: a CPU that goes offline loses its event from
 * perf's context (perf_event_exit_cpu), so after it comes back a
 * CPU-wide perf event can be installed there (per-task ones stay
 * refused); START's TraceEn check and the takeover checks (stream.c)
 * remain the defence there.
 */
#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/pt_trace.h>

#include "hw.h"
#include "ownership.h"

static int pt_type = -1;
module_param(pt_type, int, 0444);
MODULE_PARM_DESC(pt_type,
		 "perf's intel_pt PMU type (/sys/bus/event_source/devices/intel_pt/type); default: searched");

/* How far the search goes: dynamic types are allocated from the bottom. */
#define PT_OWN_MAX_TYPE		(PERF_TYPE_MAX + 256)

static DEFINE_PER_CPU(struct perf_event *, pt_own_event);
static DEFINE_PER_CPU(enum pt_own_state, pt_own_cpu_state);
static DEFINE_MUTEX(pt_own_lock);
static enum pt_own_state pt_own_load_state;

enum pt_own_state pt_own_decide(bool model, int pmu_type, int create_err)
{
	if (model)
		return PT_OWN_MODEL;
	if (pmu_type < 0)
		return PT_OWN_NO_PMU;
	if (!create_err)
		return PT_OWN_RESERVED;
	return create_err == -EBUSY ? PT_OWN_PERF_BUSY : PT_OWN_FAILED;
}

const char *pt_own_str(enum pt_own_state s)
{
	switch (s) {
	case PT_OWN_MODEL:
		return "model backend: perf's intel_pt (if any) drives the real PT, not the model";
	case PT_OWN_NO_PMU:
		return "intel_pt PMU absent: nothing else can own PT through perf";
	case PT_OWN_RESERVED:
		return "reserved through perf";
	case PT_OWN_PERF_BUSY:
		return "perf's intel_pt is in use: not reserved";
	default:
		return "reservation through perf failed: not protected against perf";
	}
}

static struct perf_event *pt_own_create(int type, unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.disabled = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

/*
 * The intel_pt PMU's type, or -1; an event of it on @cpu is kept.  A
 * type that refuses with EBUSY is an exclusive PMU in use (intel_pt or
 * intel_bts): it cannot be named that way, so it is only reported.
 */
static int pt_own_find(unsigned int cpu, struct perf_event **ev,
		       int *busy_type)
{
	int type;

	*ev = NULL;
	*busy_type = -1;
	if (pt_type >= 0) {
		*ev = pt_own_create(pt_type, cpu);
		return pt_type;
	}
	for (type = PERF_TYPE_MAX; type < PT_OWN_MAX_TYPE; type++) {
		struct perf_event *e = pt_own_create(type, cpu);

		if (IS_ERR(e)) {
			if (PTR_ERR(e) == -EBUSY && *busy_type < 0)
				*busy_type = type;
			continue;
		}
		if (!strcmp(e->pmu->name, "intel_pt")) {
			*ev = e;
			return type;
		}
		perf_event_release_kernel(e);
	}
	return -1;
}

/* Reserve @cpu (online, pt_own_lock held). */
static enum pt_own_state pt_own_cpu(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(pt_own_event, cpu);
	int err;

	if (ev)
		return PT_OWN_RESERVED;
	if (pt_type < 0)
		return PT_OWN_FAILED;
	ev = pt_own_create(pt_type, cpu);
	err = IS_ERR(ev) ? PTR_ERR(ev) : 0;
	if (!err)
		per_cpu(pt_own_event, cpu) = ev;
	return pt_own_decide(false, pt_type, err);
}

void pt_own_init(void)
{
	struct perf_event *ev = NULL;
	unsigned int cpu, n = 0, busy = 0;
	int type = -1, busy_type = -1;

	mutex_lock(&pt_own_lock);
	if (pt_hw->backend == PT_BACKEND_MODEL) {
		pt_own_load_state = PT_OWN_MODEL;
		goto out;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		enum pt_own_state s;

		if (type < 0) {
			type = pt_own_find(cpu, &ev, &busy_type);
			if (type < 0)
				break;
			pt_type = type;
			s = pt_own_decide(false, type,
					  IS_ERR(ev) ? PTR_ERR(ev) : 0);
			if (!IS_ERR(ev))
				per_cpu(pt_own_event, cpu) = ev;
		} else {
			s = pt_own_cpu(cpu);
		}
		per_cpu(pt_own_cpu_state, cpu) = s;
		n += s == PT_OWN_RESERVED;
		busy += s == PT_OWN_PERF_BUSY;
	}
	cpus_read_unlock();
	if (type < 0 && busy_type >= 0) {
		pt_own_load_state = PT_OWN_FAILED;
		pr_notice("ownership: PMU type %d (an exclusive one: intel_pt or intel_bts) is in use by perf, so intel_pt could not be found: reload with pt_type= from /sys/bus/event_source/devices/intel_pt/type\n",
			  busy_type);
	} else if (type < 0) {
		pt_own_load_state = PT_OWN_NO_PMU;
	} else if (busy) {
		pt_own_load_state = PT_OWN_PERF_BUSY;
	} else {
		pt_own_load_state = n ? PT_OWN_RESERVED : PT_OWN_FAILED;
	}
out:
	if (pt_own_load_state == PT_OWN_PERF_BUSY)
		pr_notice("PT on %u CPU(s) %s (PMU type %d): START fails there with EBUSY until those perf sessions end\n",
			  busy, pt_own_str(PT_OWN_PERF_BUSY), type);
	else
		pr_info("ownership: %s\n", pt_own_str(pt_own_load_state));
	mutex_unlock(&pt_own_lock);
}

int pt_own_start(unsigned int cpu)
{
	enum pt_own_state s;

	if (pt_own_load_state == PT_OWN_MODEL ||
	    pt_own_load_state == PT_OWN_NO_PMU)
		return 0;
	mutex_lock(&pt_own_lock);
	s = pt_own_cpu(cpu);
	mutex_unlock(&pt_own_lock);
	if (s != PT_OWN_PERF_BUSY)
		return 0;
	pr_notice_ratelimited("CPU %u: perf's intel_pt is in use (perf record -e intel_pt): START refused; end that perf session and START again\n",
			      cpu);
	return -EBUSY;
}

enum pt_own_state pt_own_summary(void)
{
	return pt_own_load_state;
}

void pt_own_exit(void)
{
	unsigned int cpu;

	mutex_lock(&pt_own_lock);
	for_each_possible_cpu(cpu) {
		struct perf_event *ev = per_cpu(pt_own_event, cpu);

		per_cpu(pt_own_event, cpu) = NULL;
		if (ev)
			perf_event_release_kernel(ev);
	}
	mutex_unlock(&pt_own_lock);
}
