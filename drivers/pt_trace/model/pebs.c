// SPDX-License-Identifier: GPL-2.0
/*
 * PEBS in the model: the records another agent's precise counters store
 * through IA32_DS_AREA, the MSR the BTS source also writes (SDM Vol. 3B
 * 18.4.4.1 and the "PEBS Programming Environment"), and that agent,
 * perf, played when a test asks.  The driver never enables PEBS; what
 * it must survive is perf doing so on a CPU where BTS owns the area.
 *
 * Rules.  While IA32_PEBS_ENABLE has a bit set, each generator tick on
 * the CPU stands for one PEBS assist (a precise counter overflowed): a
 * record of the profile's size (pebs_record: Ice Lake's adaptive basic
 * record, 32 bytes; Broadwell's format 2, 192) is written at the DS
 * area's PEBS index, which then moves on by that size.  None is written
 * at or past the PEBS absolute maximum ("the processor will not write
 * any PEBS record beyond the end of PEBS buffer, when PEBS Index equals
 * PEBS Absolute Maximum"): counted in pebs_dropped, so an area whose
 * PEBS part is all zero stores nothing.  Below it the record is written
 * whole even where it runs past the maximum: the SDM promises nothing
 * for an index less than one record short of it (perf sets the maximum
 * a whole number of records from the base; an area that does not must
 * have room past its maximum).  When a record
 * moves the index from below the PEBS interrupt threshold to or past it
 * ("if the PEBS Index reaches the threshold"), a PMI with
 * IA32_PERF_GLOBAL_STATUS bit 62 (PEBS_Ovf).  The area and the record
 * must lie in the kernel's direct map, else pebs_ds_errors and nothing
 * is stored (silicon would fault).  A record holds the applicable
 * counters (IA32_PEBS_ENABLE) and the tick's IP, the rest zero.
 *
 * The agent, debugfs pebs_agent, "CPU ACTION": perf's PEBS as
 * arch/x86/events/intel/ds.c drives it.
 *   reserve  its DS area (one page per CPU: the PEBS buffer from 1 KiB,
 *            threshold one record from the base, as perf's
 *            single-record PEBS) into IA32_DS_AREA, as perf's
 *            reserve_ds_buffers() -> init_debug_store_on_cpu() write it
 *            at its first event, whatever the MSR held;
 *   on       IA32_PEBS_ENABLE = 1: a PEBS event's sched-in;
 *   arm      the same, but its counter has not overflowed yet: no
 *            assist, no record, until "on";
 *   off      IA32_PEBS_ENABLE = 0: its sched-out;
 *   release  IA32_DS_AREA = 0, as perf's last release.
 * Its NMI handler, like perf's intel_pmu_handle_irq(), acknowledges bit
 * 62, drains its own area (cpuc->ds: the records it finds there count
 * in 'records'; never the area the MSR points at) and unmasks LVTPC.
 * Reading the file gives a line per CPU it reserved:
 * "cpuN ds_area agent|other records R pmis P".
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/nmi.h>

#include "../bts_regs.h"
#include "../regs.h"
#include "model.h"

/* Where the agent's PEBS buffer starts in its area page. */
#define PT_PEBS_AGENT_BUF	1024

struct pt_pebs_agent {
	struct page *area;	/* its DS area and PEBS buffer */
	bool reserved;		/* IA32_DS_AREA written by it */
	bool quiet;		/* "arm": enabled, no overflow yet */
	u64 records;		/* drained from its own area */
	u64 pmis;		/* bit-62 PMIs it took */
};

static DEFINE_PER_CPU(struct pt_pebs_agent, pt_pebs_agent);

static unsigned int pt_pebs_record(void)
{
	return pt_model_prof->pebs_record ?: 192;
}

static bool pt_pebs_mem_ok(u64 addr, size_t len)
{
	return virt_addr_valid((void *)(unsigned long)addr) &&
	       virt_addr_valid((void *)(unsigned long)(addr + len - 1));
}

static int pt_pebs_ovf_fn(struct pt_model_cpu *st, struct pt_model_state *s,
			  void *arg)
{
	s->regs.global_status |= BTS_GLOBAL_STATUS_PEBS_OVF;
	return 0;
}

void pt_model_pebs_tick(struct pt_model_cpu *st, u64 ip)
{
	const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;
	unsigned int size = pt_pebs_record();
	struct bts_ds_area *area;
	u64 enable = r->pebs_enable, idx, rec[2];

	if (!enable || READ_ONCE(per_cpu_ptr(&pt_pebs_agent, st->cpu)->quiet))
		return;
	if (!pt_pebs_mem_ok(r->ds_area, sizeof(*area))) {
		atomic64_inc(&st->stats.pebs_ds_errors);
		return;
	}
	area = (struct bts_ds_area *)(unsigned long)r->ds_area;
	idx = READ_ONCE(area->pebs_index);
	if (idx < area->pebs_base || idx >= area->pebs_max) {
		atomic64_inc(&st->stats.pebs_dropped);
		return;
	}
	if (!pt_pebs_mem_ok(idx, size)) {
		atomic64_inc(&st->stats.pebs_ds_errors);
		return;
	}
	rec[0] = enable;
	rec[1] = ip;
	memset((void *)(unsigned long)idx, 0, size);
	memcpy((void *)(unsigned long)idx, rec,
	       min_t(size_t, size, sizeof(rec)));
	atomic64_inc(&st->stats.pebs_records);
	WRITE_ONCE(area->pebs_index, idx + size);
	if (idx < area->pebs_thresh && idx + size >= area->pebs_thresh) {
		atomic64_inc(&st->stats.pebs_pmis);
		pt_model_update(st, pt_pebs_ovf_fn, NULL, true);
		pt_model_pmi_send(st);
	}
}

/* The agent's area: empty, threshold one record on. */
static u64 pt_pebs_agent_arm(struct pt_pebs_agent *ag)
{
	struct bts_ds_area *a = page_address(ag->area);
	u64 base = (u64)(unsigned long)a + PT_PEBS_AGENT_BUF;
	unsigned int size = pt_pebs_record();

	memset(a, 0, PAGE_SIZE);
	a->pebs_base = base;
	a->pebs_index = base;
	a->pebs_max = base + (PAGE_SIZE - PT_PEBS_AGENT_BUF) / size * size;
	a->pebs_thresh = base + size;
	return (u64)(unsigned long)a;
}

/* What its PMI handler drains: its own area only. */
static void pt_pebs_agent_drain(struct pt_pebs_agent *ag)
{
	struct bts_ds_area *a = page_address(ag->area);
	u64 idx = READ_ONCE(a->pebs_index);

	if (idx > a->pebs_base && idx <= a->pebs_max) {
		WRITE_ONCE(ag->records, ag->records +
			   div_u64(idx - a->pebs_base, pt_pebs_record()));
		WRITE_ONCE(a->pebs_index, a->pebs_base);
	}
}

static int pt_pebs_agent_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pt_pebs_agent *ag = this_cpu_ptr(&pt_pebs_agent);
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	u64 gs = 0;

	if (!READ_ONCE(ag->reserved))
		return NMI_DONE;
	pt_model_do_rdmsr(st, PT_MSR_PERF_GLOBAL_STATUS, &gs);
	if (!(gs & BTS_GLOBAL_STATUS_PEBS_OVF))
		return NMI_DONE;
	pt_model_do_wrmsr(st, PT_MSR_PERF_GLOBAL_STATUS_RESET,
			  BTS_GLOBAL_STATUS_PEBS_OVF, true);
	pt_pebs_agent_drain(ag);
	WRITE_ONCE(ag->pmis, ag->pmis + 1);
	WRITE_ONCE(st->lvtpc_masked, false);
	return NMI_HANDLED;
}

enum pt_pebs_op { PT_PEBS_RESERVE, PT_PEBS_ON, PT_PEBS_ARM, PT_PEBS_OFF,
		  PT_PEBS_RELEASE };

static const char * const pt_pebs_ops[] = {
	[PT_PEBS_RESERVE] = "reserve", [PT_PEBS_ON] = "on",
	[PT_PEBS_ARM] = "arm", [PT_PEBS_OFF] = "off",
	[PT_PEBS_RELEASE] = "release",
};

struct pt_pebs_call {
	enum pt_pebs_op op;
	int ret;
};

/* The agent's writes: a #GP is the test's (no PEBS here), not a bug. */
static void pt_pebs_agent_on_cpu(void *info)
{
	struct pt_pebs_call *c = info;
	struct pt_pebs_agent *ag = this_cpu_ptr(&pt_pebs_agent);
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	switch (c->op) {
	case PT_PEBS_RESERVE:
		c->ret = pt_model_do_wrmsr(st, BTS_MSR_DS_AREA,
					   pt_pebs_agent_arm(ag), true);
		WRITE_ONCE(ag->reserved, !c->ret);
		break;
	case PT_PEBS_ON:
	case PT_PEBS_ARM:
		WRITE_ONCE(ag->quiet, c->op == PT_PEBS_ARM);
		c->ret = pt_model_do_wrmsr(st, BTS_MSR_PEBS_ENABLE, 1, true);
		break;
	case PT_PEBS_OFF:
		c->ret = pt_model_do_wrmsr(st, BTS_MSR_PEBS_ENABLE, 0, true);
		WRITE_ONCE(ag->quiet, false);
		break;
	case PT_PEBS_RELEASE:
		c->ret = pt_model_do_wrmsr(st, BTS_MSR_DS_AREA, 0, true);
		WRITE_ONCE(ag->reserved, false);
		break;
	}
}

static ssize_t pt_pebs_agent_write(struct file *f, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct pt_pebs_call c = { 0 };
	char name[PT_AGENT_NAME];
	unsigned int cpu;
	int ret, n;

	ret = pt_model_agent_args(ubuf, len, &cpu, name);
	if (ret)
		return ret;
	n = match_string(pt_pebs_ops, ARRAY_SIZE(pt_pebs_ops), name);
	if (n < 0)
		return -EINVAL;
	c.op = n;
	ret = smp_call_function_single(cpu, pt_pebs_agent_on_cpu, &c, 1);
	ret = ret ?: c.ret;
	return ret ? ret : len;
}

static int pt_pebs_agent_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct pt_pebs_agent *ag = per_cpu_ptr(&pt_pebs_agent, cpu);
		struct pt_model_cpu *st = pt_model_cpu_ptr(cpu);
		u64 ds = READ_ONCE(st->active)->regs.ds_area;

		if (!READ_ONCE(ag->reserved))
			continue;
		seq_printf(m, "cpu%d ds_area %s records %llu pmis %llu\n", cpu,
			   ds == (u64)(unsigned long)page_address(ag->area) ?
			   "agent" : "other", READ_ONCE(ag->records),
			   READ_ONCE(ag->pmis));
	}
	return 0;
}

static int pt_pebs_agent_open(struct inode *inode, struct file *f)
{
	return single_open(f, pt_pebs_agent_show, NULL);
}

static const struct file_operations pt_pebs_agent_fops = {
	.owner = THIS_MODULE,
	.open = pt_pebs_agent_open,
	.read = seq_read,
	.write = pt_pebs_agent_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void pt_pebs_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_pebs_agent *ag = per_cpu_ptr(&pt_pebs_agent, cpu);

		if (ag->area)
			__free_page(ag->area);
		ag->area = NULL;
	}
}

int pt_model_pebs_init(struct dentry *dir)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct pt_pebs_agent *ag = per_cpu_ptr(&pt_pebs_agent, cpu);

		memset(ag, 0, sizeof(*ag));
		ag->area = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!ag->area) {
			pt_pebs_free();
			return -ENOMEM;
		}
	}
	ret = register_nmi_handler(NMI_LOCAL, pt_pebs_agent_nmi, 0,
				   "pt_model_pebs");
	if (ret) {
		pt_pebs_free();
		return ret;
	}
	debugfs_create_file("pebs_agent", 0600, dir, NULL, &pt_pebs_agent_fops);
	return 0;
}

/*
 * After the generator stopped (no tick stores into an agent's area) and
 * the driver is gone: the agent's areas freed.
 */
void pt_model_pebs_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "pt_model_pebs");
	pt_pebs_free();
}
