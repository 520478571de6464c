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
 * The PMU type is dynamic and perf's PMU lookup is not exported, so it
 * is read where perf publishes it, /sys/bus/event_source/devices/
 * intel_pt/type (pt_type= overrides it).  No other PMU's event_init is
 * ever called.  Under the model, the model registers an exclusive PMU
 * of that name standing in for perf's (model.rst, "perf's intel_pt"),
 * so this whole file runs in the tests.  Never run on silicon.
 *
 * Where perf already has intel_pt events at load, the reservation fails
 * with EBUSY on those CPUs (or all, for a per-task event); START tries
 * again there and, while perf holds it, fails with EBUSY and one log
 * line naming perf.  A CPU that goes offline loses its events from
 * perf's context (perf_event_exit_cpu()), so a CPU-wide perf event could
 * be installed there once it is back: our event is released when the
 * CPU goes down and created again when it comes up (a cpuhp state of
 * our own, after perf's CPUHP_AP_PERF_ONLINE).  Between those two
 * steps of one bring-up, a CPU-wide intel_pt event can be opened on the
 * CPU and ours is then refused: a module's dynamic state cannot run
 * before perf's.  START retries the reservation and refuses (EBUSY,
 * naming perf) until that event is closed (design.rst, "perf").
 */
#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
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

static DEFINE_PER_CPU(struct perf_event *, pt_own_event);
static DEFINE_PER_CPU(enum pt_own_state, pt_own_cpu_state);
static DEFINE_MUTEX(pt_own_lock);
static enum pt_own_state pt_own_load_state;
static int pt_own_cpuhp = -1;

enum pt_own_state pt_own_decide(bool model, int pmu_type, int create_err)
{
	if (pmu_type < 0)
		return model ? PT_OWN_MODEL : PT_OWN_NO_PMU;
	if (!create_err)
		return PT_OWN_RESERVED;
	return create_err == -EBUSY ? PT_OWN_PERF_BUSY : PT_OWN_FAILED;
}

const char *pt_own_str(enum pt_own_state s)
{
	switch (s) {
	case PT_OWN_MODEL:
		return "model backend, model_perf_pmu=0: no intel_pt PMU to reserve";
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

struct perf_event *pt_own_create(int type, unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.disabled = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

/* perf's PMU @name's type from sysfs, or -1 when there is none. */
int pt_own_pmu_type(const char *name)
{
	char path[80];
	struct file *f;
	char buf[16] = "";
	loff_t pos = 0;
	ssize_t n;
	int type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return -1;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &type) || type < PERF_TYPE_MAX)
		return -1;
	return type;
}

/*
 * Reserve @cpu (pt_own_lock held, @cpu online and kept so): a stale
 * event, which perf detached when the CPU went down, is replaced.
 */
static enum pt_own_state pt_own_cpu(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(pt_own_event, cpu);
	enum pt_own_state s;
	int err;

	if (ev)
		return PT_OWN_RESERVED;
	ev = pt_own_create(pt_type, cpu);
	err = IS_ERR(ev) ? PTR_ERR(ev) : 0;
	if (!err)
		per_cpu(pt_own_event, cpu) = ev;
	s = pt_own_decide(pt_hw->backend == PT_BACKEND_MODEL, pt_type, err);
	per_cpu(pt_own_cpu_state, cpu) = s;
	return s;
}

static void pt_own_release(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(pt_own_event, cpu);

	per_cpu(pt_own_event, cpu) = NULL;
	per_cpu(pt_own_cpu_state, cpu) = PT_OWN_FAILED;
	if (ev)
		perf_event_release_kernel(ev);
}

/* cpuhp: a CPU coming up is reserved again (see the top of the file). */
static int pt_own_online(unsigned int cpu)
{
	mutex_lock(&pt_own_lock);
	pt_own_cpu(cpu);
	mutex_unlock(&pt_own_lock);
	return 0;
}

static int pt_own_offline(unsigned int cpu)
{
	mutex_lock(&pt_own_lock);
	pt_own_release(cpu);
	mutex_unlock(&pt_own_lock);
	return 0;
}

void pt_own_init(void)
{
	bool model = pt_hw->backend == PT_BACKEND_MODEL;
	unsigned int cpu, n = 0, busy = 0;
	int ret;

	if (pt_type < 0)
		pt_type = pt_own_pmu_type("intel_pt");
	if (pt_type < 0) {
		pt_own_load_state = pt_own_decide(model, -1, 0);
		pr_info("ownership: %s\n", pt_own_str(pt_own_load_state));
		return;
	}
	/* Reserves every online CPU now, and each one that comes up. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pt_trace/own:online",
				pt_own_online, pt_own_offline);
	if (ret < 0) {
		pt_own_load_state = PT_OWN_FAILED;
		pr_notice("ownership: cpuhp state failed (%d): %s\n", ret,
			  pt_own_str(PT_OWN_FAILED));
		return;
	}
	pt_own_cpuhp = ret;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		enum pt_own_state s = per_cpu(pt_own_cpu_state, cpu);

		n += s == PT_OWN_RESERVED;
		busy += s == PT_OWN_PERF_BUSY;
	}
	cpus_read_unlock();
	if (busy)
		pt_own_load_state = PT_OWN_PERF_BUSY;
	else
		pt_own_load_state = n ? PT_OWN_RESERVED : PT_OWN_FAILED;
	if (pt_own_load_state == PT_OWN_PERF_BUSY)
		pr_notice("PT on %u CPU(s) %s (PMU type %d): START fails there with EBUSY until those perf sessions end\n",
			  busy, pt_own_str(PT_OWN_PERF_BUSY), pt_type);
	else
		pr_info("ownership: %s (PMU type %d)\n",
			pt_own_str(pt_own_load_state), pt_type);
}

int pt_own_start(unsigned int cpu)
{
	enum pt_own_state s = PT_OWN_RESERVED;

	/*
	 * The caller holds cpus_read_lock() (lockdep_assert_cpus_held() is
	 * not exported): a CPU going down releases its event.
	 */
	if (pt_own_cpuhp < 0)
		return 0;
	mutex_lock(&pt_own_lock);
	if (cpu_online(cpu))
		s = pt_own_cpu(cpu);
	mutex_unlock(&pt_own_lock);
	if (s != PT_OWN_PERF_BUSY)
		return 0;
	pr_notice_ratelimited("CPU %u: perf's intel_pt is in use (perf record -e intel_pt): START refused; end that perf session and START again\n",
			      cpu);
	return -EBUSY;
}

/*
 * What protects PT now (sysfs): perf's while any online CPU is left to
 * it, else reserved where every online CPU is; the load's answer when
 * nothing could be reserved at all (no PMU, the model without one).
 */
enum pt_own_state pt_own_summary(void)
{
	enum pt_own_state s = PT_OWN_RESERVED;
	unsigned int cpu;

	if (pt_own_cpuhp < 0)
		return pt_own_load_state;
	cpus_read_lock();
	mutex_lock(&pt_own_lock);
	for_each_online_cpu(cpu) {
		enum pt_own_state c = per_cpu(pt_own_cpu_state, cpu);

		if (c == PT_OWN_PERF_BUSY)
			s = c;
		else if (c != PT_OWN_RESERVED && s == PT_OWN_RESERVED)
			s = PT_OWN_FAILED;
	}
	mutex_unlock(&pt_own_lock);
	cpus_read_unlock();
	return s;
}

void pt_own_exit(void)
{
	if (pt_own_cpuhp >= 0)
		cpuhp_remove_state(pt_own_cpuhp);
	pt_own_cpuhp = -1;
}
