// SPDX-License-Identifier: GPL-2.0
/*
 * perf's intel_pt, as far as the driver meets it (model.rst, "perf's
 * intel_pt"; and intel_bts, below): an exclusive perf PMU named
 * "intel_pt", registered while
 * the model module is loaded (model_perf_pmu=1, the default), so that
 * the driver's reservation (ownership.c) runs in the tests against the
 * same perf core rules as on a machine with PT: the PMU's type in
 * /sys/bus/event_source/devices/intel_pt/type, PERF_PMU_CAP_EXCLUSIVE
 * (one CPU-wide event per CPU, per-task events refused while one
 * exists), events detached when a CPU goes offline.
 *
 * An event of it that perf schedules in on a CPU plays perf's sched-in
 * there, and its sched-out perf's sched-out: the "foreign" agent's start
 * and stop (agents.c), with every write faulting where silicon's would.
 * So when the reservation is missing, a user's `perf record -e
 * intel_pt//` does to the model what it does to silicon.  Events are
 * accepted whatever their config, as perf's would be for a plain
 * `-e intel_pt//`; no AUX buffer or trace is ever produced for perf.
 *
 * Registered in the model module's own init, not at the driver's load:
 * a user's event pins this module (perf takes a reference on
 * pmu->module), never the driver.  Its callbacks run with IRQs off and
 * act only while the model's per-CPU state exists (between the driver's
 * hw init and exit); the exit waits for callbacks in flight with
 * synchronize_rcu().
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>

#include "model.h"

static bool model_perf_pmu = true;
module_param(model_perf_pmu, bool, 0444);
MODULE_PARM_DESC(model_perf_pmu,
		 "model: register exclusive 'intel_pt' and 'intel_bts' perf PMUs standing in for perf's (default 1; 0: a machine without them)");

static bool pt_perf_pmu_live;
static bool pt_perf_pmu_registered;
static bool pt_bts_pmu_registered;
static struct pmu pt_perf_pmu;
static struct pmu pt_bts_pmu;

static int pt_perf_pmu_event_init(struct perf_event *event)
{
	if (event->attr.type != pt_perf_pmu.type)
		return -ENOENT;
	return 0;
}

static void pt_perf_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
	if (READ_ONCE(pt_perf_pmu_live))
		pt_model_foreign_sched(true);
}

static void pt_perf_pmu_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	event->hw.state = PERF_HES_STOPPED;
	if (READ_ONCE(pt_perf_pmu_live))
		pt_model_foreign_sched(false);
}

static int pt_perf_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		pt_perf_pmu_start(event, 0);
	return 0;
}

static void pt_perf_pmu_del(struct perf_event *event, int flags)
{
	pt_perf_pmu_stop(event, PERF_EF_UPDATE);
}

static void pt_perf_pmu_read(struct perf_event *event)
{
}

static struct pmu pt_perf_pmu = {
	.module		= THIS_MODULE,
	/* As perf's intel_pt: software context, exclusive. */
	.task_ctx_nr	= perf_sw_context,
	.capabilities	= PERF_PMU_CAP_EXCLUSIVE,
	.event_init	= pt_perf_pmu_event_init,
	.add		= pt_perf_pmu_add,
	.del		= pt_perf_pmu_del,
	.start		= pt_perf_pmu_start,
	.stop		= pt_perf_pmu_stop,
	.read		= pt_perf_pmu_read,
};

/*
 * perf's intel_bts: also exclusive (one CPU-wide event per CPU, per-task
 * events refused while one exists), so that the driver's reservation of
 * it while BTS is in use (ownership_bts.c) meets the same rules.  Its
 * events only exist: they store no branches (the model's BTS is driven
 * through DEBUGCTL alone, bts.c), so its callbacks only keep perf's
 * event state.
 */
static int pt_bts_pmu_event_init(struct perf_event *event)
{
	if (event->attr.type != pt_bts_pmu.type)
		return -ENOENT;
	return 0;
}

static void pt_bts_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void pt_bts_pmu_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

static int pt_bts_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = flags & PERF_EF_START ? 0 : PERF_HES_STOPPED;
	return 0;
}

static void pt_bts_pmu_del(struct perf_event *event, int flags)
{
	pt_bts_pmu_stop(event, PERF_EF_UPDATE);
}

static struct pmu pt_bts_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_sw_context,
	.capabilities	= PERF_PMU_CAP_EXCLUSIVE,
	.event_init	= pt_bts_pmu_event_init,
	.add		= pt_bts_pmu_add,
	.del		= pt_bts_pmu_del,
	.start		= pt_bts_pmu_start,
	.stop		= pt_bts_pmu_stop,
	.read		= pt_perf_pmu_read,
};

int pt_model_perf_pmu_register(void)
{
	int ret;

	if (!model_perf_pmu)
		return 0;
	ret = perf_pmu_register(&pt_bts_pmu, "intel_bts", -1);
	if (ret) {
		pr_err("model: registering the 'intel_bts' perf PMU failed (%d): is perf's own there? load with model_perf_pmu=0\n",
		       ret);
		return ret;
	}
	pt_bts_pmu_registered = true;
	ret = perf_pmu_register(&pt_perf_pmu, "intel_pt", -1);
	if (ret) {
		pr_err("model: registering the 'intel_pt' perf PMU failed (%d): is perf's own there? load with model_perf_pmu=0\n",
		       ret);
		perf_pmu_unregister(&pt_bts_pmu);
		pt_bts_pmu_registered = false;
		return ret;
	}
	pt_perf_pmu_registered = true;
	pr_info("model: perf PMUs 'intel_pt' (type %d) and 'intel_bts' (type %d) stand in for perf's: the driver reserves them as on silicon\n",
		pt_perf_pmu.type, pt_bts_pmu.type);
	return 0;
}

void pt_model_perf_pmu_unregister(void)
{
	if (pt_perf_pmu_registered)
		perf_pmu_unregister(&pt_perf_pmu);
	pt_perf_pmu_registered = false;
	if (pt_bts_pmu_registered)
		perf_pmu_unregister(&pt_bts_pmu);
	pt_bts_pmu_registered = false;
}

/* The model's per-CPU state exists (@live) or is about to go. */
void pt_model_perf_pmu_live(bool live)
{
	WRITE_ONCE(pt_perf_pmu_live, live);
	if (!live)
		synchronize_rcu();	/* callbacks run with IRQs off */
}
