// SPDX-License-Identifier: GPL-2.0
/*
 * perf's intel_bts PMU is exclusive too (one CPU-wide event per CPU, no
 * per-task event while one exists), and it programs the same DEBUGCTL
 * and DS_AREA as /dev/btsN.  So while a BTS device is in use, from each
 * START to the device's last close, its CPU holds one disabled CPU-wide
 * intel_bts event (ownership.c's pt_own_create()): a `perf record -e
 * intel_bts//` there, CPU-wide or per task, fails with EBUSY instead of
 * sharing the registers.  Where perf holds intel_bts on the CPU, START
 * fails with EBUSY and a log line naming perf.
 *
 * Unlike intel_pt's (held for the module's life) the reservation is made
 * at the first START and held to the last close: a STOP and a START
 * again on the open device keep the same event, so perf never finds
 * the CPU's intel_bts free while /dev/btsN is in use (issue 10: a START
 * that released it and created it anew gave perf that window, and then
 * failed with EBUSY itself).  A CPU that goes offline loses the event
 * from perf's context (perf_event_exit_cpu()): it is released then
 * (source_bts.c's offline, from core.c's hotplug callback once the
 * device is stopped) and the next START creates a fresh one.  The PMU type comes
 * from sysfs
 * (/sys/bus/event_source/devices/intel_bts/type) at load;
 * without that PMU nothing can take BTS through perf's intel_bts and
 * nothing is reserved.  perf's other BTS user (a branch-instructions
 * event with period 1, arch/x86/events/intel/ds.c) shows in DEBUGCTL,
 * which START checks (source_bts.c).  Under the model, the model's
 * "intel_bts" PMU stands in for perf's (model/perf_pmu.c).
 */
#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>

#include "ownership.h"

static DEFINE_PER_CPU(struct perf_event *, bts_own_event);
static DEFINE_MUTEX(bts_own_lock);
static int bts_own_type = -1;	/* -1: no PMU */

static struct perf_event *bts_own_take(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(bts_own_event, cpu);

	per_cpu(bts_own_event, cpu) = NULL;
	return ev;
}

/*
 * At load, not at START: reading sysfs takes kernfs locks that a write
 * to a CPU's "online" holds around the hotplug lock START holds.
 */
void bts_own_init(void)
{
	bts_own_type = pt_own_pmu_type("intel_bts");
}

int bts_own_start(unsigned int cpu)
{
	struct perf_event *ev;
	int err = 0;

	/*
	 * The caller holds cpus_read_lock(): no event on a CPU going down,
	 * and none left from before its offline (released there).
	 */
	mutex_lock(&bts_own_lock);
	if (bts_own_type < 0 || per_cpu(bts_own_event, cpu) || !cpu_online(cpu))
		goto out;
	ev = pt_own_create(bts_own_type, cpu);
	if (!IS_ERR(ev))
		per_cpu(bts_own_event, cpu) = ev;
	else if (PTR_ERR(ev) == -EBUSY)
		err = -EBUSY;
out:
	mutex_unlock(&bts_own_lock);
	if (err)
		pr_notice_ratelimited("CPU %u: perf's intel_bts is in use (perf record -e intel_bts): BTS START refused; end that perf session and START again\n",
				      cpu);
	return err;
}

void bts_own_release(unsigned int cpu)
{
	struct perf_event *ev;

	mutex_lock(&bts_own_lock);
	ev = bts_own_take(cpu);
	mutex_unlock(&bts_own_lock);
	if (ev)
		perf_event_release_kernel(ev);
}

