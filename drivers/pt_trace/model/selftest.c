// SPDX-License-Identifier: GPL-2.0
/*
 * A self-test hook that drives the model without the driver: it builds
 * an output buffer in kernel memory (a ToPA table of equal regions, or
 * one single-range region), programs the model's MSRs on one CPU the way
 * a driver would, lets the generator run, stops, and exposes the trace,
 * linearised oldest byte first, for an in-VM test to decode with libipt.
 *
 *   echo "MODE CTL SIZE MS CPU" > selftest
 *	MODE  topa (END wraps), topa_stop (STOP on the last region),
 *	      topa_int (INT on every region: PMIs), single
 *	CTL   IA32_RTIT_CTL without TraceEn/ToPA (hex)
 *	SIZE  region size in bytes, a power of two, 4 KiB .. 1 MiB
 *   cat selftest          key=value results of the last run
 *   cat selftest_trace    the trace bytes
 *
 * Writes made here count in gp_faults_test, never in gp_faults.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pt_trace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/nmi.h>

#include "../regs.h"
#include "model.h"

#define PT_ST_MAX_REGIONS	4

enum { ST_TOPA, ST_TOPA_STOP, ST_TOPA_INT, ST_SINGLE };

struct pt_selftest {
	int mode;
	u64 ctl;
	u32 size;
	u32 nregions;
	int cpu;
	struct page *region[PT_ST_MAX_REGIONS];
	u64 *table;
	/* results */
	int rc;
	u64 status, mask, base, written, lost, pmis, handled, gp_test;
	bool wrapped;
	u8 *trace;
	size_t trace_len;
};

static DEFINE_MUTEX(pt_st_lock);
static struct pt_selftest pt_st;
static int pt_st_active_cpu = -1;
static atomic_t pt_st_nmis = ATOMIC_INIT(0);

/* The PMI handler a driver would have, minus the buffer management. */
static int pt_st_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pt_model_cpu *st;
	u64 gs;

	if (READ_ONCE(pt_st_active_cpu) != smp_processor_id())
		return NMI_DONE;
	st = this_cpu_ptr(pt_model_cpus);
	if (pt_model_do_rdmsr(st, PT_MSR_PERF_GLOBAL_STATUS, &gs) ||
	    !(gs & PT_GLOBAL_STATUS_TOPA_PMI))
		return NMI_DONE;
	pt_model_do_wrmsr(st, PT_MSR_PERF_GLOBAL_STATUS_RESET,
			  PT_GLOBAL_STATUS_TOPA_PMI, true);
	WRITE_ONCE(st->lvtpc_masked, false);
	atomic_inc(&pt_st_nmis);
	return NMI_HANDLED;
}

static void pt_st_free(struct pt_selftest *t)
{
	unsigned int i;

	for (i = 0; i < PT_ST_MAX_REGIONS; i++) {
		if (t->region[i])
			__free_pages(t->region[i], get_order(t->size));
		t->region[i] = NULL;
	}
	free_page((unsigned long)t->table);
	t->table = NULL;
	vfree(t->trace);
	t->trace = NULL;
	t->trace_len = 0;
}

struct pt_st_prog {
	struct pt_selftest *t;
	bool start;
	int ret;
};

static void pt_st_on_cpu(void *info)
{
	struct pt_st_prog *p = info;
	struct pt_selftest *t = p->t;
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);
	bool topa = t->mode != ST_SINGLE;
	u64 ctl = t->ctl | (topa ? PT_CTL_TOPA : 0);
	int ret = 0;

	if (p->start) {
		ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_STATUS, 0, true);
		if (topa) {
			ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_OUTPUT_BASE,
						 virt_to_phys(t->table), true);
			ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_OUTPUT_MASK,
						 0, true);
		} else {
			ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_OUTPUT_BASE,
						 page_to_phys(t->region[0]),
						 true);
			ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_OUTPUT_MASK,
						 t->size - 1, true);
		}
		ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_CTL, ctl, true);
		if (!ret)
			ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_CTL,
						 ctl | PT_CTL_TRACEEN, true);
	} else {
		ret |= pt_model_do_wrmsr(st, PT_MSR_RTIT_CTL, ctl, true);
		ret |= pt_model_do_rdmsr(st, PT_MSR_RTIT_STATUS, &t->status);
		ret |= pt_model_do_rdmsr(st, PT_MSR_RTIT_OUTPUT_MASK, &t->mask);
		ret |= pt_model_do_rdmsr(st, PT_MSR_RTIT_OUTPUT_BASE, &t->base);
	}
	p->ret = ret;
}

static u8 *pt_st_region(struct pt_selftest *t, unsigned int i)
{
	return page_address(t->region[i]);
}

/* Copy the trace out, oldest byte first. */
static int pt_st_linearise(struct pt_selftest *t)
{
	size_t cap = (size_t)t->size * t->nregions, pos, i;
	u32 off = t->mask >> 32;
	u32 idx = (t->mask & PT_MASK_TABLE_OFFSET_MASK) >> PT_MASK_TABLE_OFFSET_SHIFT;
	u8 *lin;

	if (t->mode == ST_SINGLE)
		pos = off;
	else
		pos = min_t(size_t, (size_t)idx * t->size + off, cap);
	lin = vmalloc(cap);
	if (!lin)
		return -ENOMEM;
	for (i = 0; i < t->nregions; i++)
		memcpy(lin + i * t->size, pt_st_region(t, i), t->size);
	t->wrapped = t->written > cap ||
		     (t->written == cap && t->mode != ST_TOPA_STOP);
	if (t->wrapped && pos < cap) {
		t->trace = vmalloc(cap);
		if (!t->trace) {
			vfree(lin);
			return -ENOMEM;
		}
		memcpy(t->trace, lin + pos, cap - pos);
		memcpy(t->trace + cap - pos, lin, pos);
		t->trace_len = cap;
		vfree(lin);
	} else {
		t->trace = lin;
		t->trace_len = t->wrapped ? cap : pos;
	}
	return 0;
}

static int pt_st_run(struct pt_selftest *t, unsigned int ms)
{
	struct pt_model_cpu *st = pt_model_cpu_ptr(t->cpu);
	bool mentry = pt_mp_ecx(pt_model_prof, PT_MP_MENTRY);
	struct pt_st_prog p = { .t = t };
	u64 w0, l0, p0, g0;
	unsigned int i;
	int ret;

	if (READ_ONCE(st->active)->regs.ctl & PT_CTL_TRACEEN)
		return -EBUSY;	/* the driver is tracing there */
	t->nregions = (t->mode == ST_SINGLE || !mentry) ? 1 : PT_ST_MAX_REGIONS;
	for (i = 0; i < t->nregions; i++) {
		t->region[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO,
					   get_order(t->size));
		if (!t->region[i])
			return -ENOMEM;
	}
	t->table = (u64 *)get_zeroed_page(GFP_KERNEL);
	if (!t->table)
		return -ENOMEM;
	for (i = 0; i < t->nregions && t->mode != ST_SINGLE; i++) {
		u64 e = page_to_phys(t->region[i]) |
			(u64)ilog2(t->size >> 12) << PT_TOPA_SIZE_SHIFT;

		if (t->mode == ST_TOPA_INT)
			e |= PT_TOPA_INT;
		if (t->mode == ST_TOPA_STOP && i == t->nregions - 1)
			e |= PT_TOPA_STOP;
		t->table[i] = e;
	}
	t->table[t->nregions] = virt_to_phys(t->table) | PT_TOPA_END;

	w0 = atomic64_read(&st->stats.bytes_written);
	l0 = atomic64_read(&st->stats.lost_bytes);
	p0 = atomic64_read(&st->stats.pmis_raised);
	g0 = atomic64_read(&st->stats.gp_faults_test);
	atomic_set(&pt_st_nmis, 0);
	WRITE_ONCE(pt_st_active_cpu, t->cpu);
	ret = register_nmi_handler(NMI_LOCAL, pt_st_nmi, 0, "pt_model_st");
	if (ret)
		goto out;

	p.start = true;
	ret = smp_call_function_single(t->cpu, pt_st_on_cpu, &p, 1);
	if (!ret && !p.ret)
		msleep(ms);
	p.start = false;
	ret = ret ?: smp_call_function_single(t->cpu, pt_st_on_cpu, &p, 1);
	unregister_nmi_handler(NMI_LOCAL, "pt_model_st");
out:
	WRITE_ONCE(pt_st_active_cpu, -1);
	t->written = atomic64_read(&st->stats.bytes_written) - w0;
	t->lost = atomic64_read(&st->stats.lost_bytes) - l0;
	t->pmis = atomic64_read(&st->stats.pmis_raised) - p0;
	t->gp_test = atomic64_read(&st->stats.gp_faults_test) - g0;
	t->handled = atomic_read(&pt_st_nmis);
	if (ret)
		return ret;
	if (p.ret)
		return -EIO;
	return pt_st_linearise(t);
}

static ssize_t pt_st_write(struct file *f, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct pt_selftest *t = &pt_st;
	char buf[96], mode[16];
	unsigned int ms, size, cpu;
	u64 ctl;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%15s %llx %u %u %u", mode, &ctl, &size, &ms, &cpu) != 5)
		return -EINVAL;
	if (size < 4096 || size > SZ_1M || !is_power_of_2(size) || ms > 5000 ||
	    cpu >= nr_cpu_ids || !cpu_online(cpu) ||
	    (ctl & (PT_CTL_TRACEEN | PT_CTL_TOPA)))
		return -EINVAL;

	mutex_lock(&pt_st_lock);
	pt_st_free(t);
	memset(t, 0, sizeof(*t));
	if (!strcmp(mode, "topa"))
		t->mode = ST_TOPA;
	else if (!strcmp(mode, "topa_stop"))
		t->mode = ST_TOPA_STOP;
	else if (!strcmp(mode, "topa_int"))
		t->mode = ST_TOPA_INT;
	else if (!strcmp(mode, "single"))
		t->mode = ST_SINGLE;
	else
		t->mode = -1;
	t->ctl = ctl;
	t->size = size;
	t->cpu = cpu;
	ret = t->mode < 0 ? -EINVAL : pt_st_run(t, ms);
	t->rc = ret;
	if (ret)
		pt_st_free(t);
	mutex_unlock(&pt_st_lock);
	return ret ? ret : len;
}

static int pt_st_show(struct seq_file *m, void *v)
{
	struct pt_selftest *t = &pt_st;

	mutex_lock(&pt_st_lock);
	seq_printf(m, "rc=%d\nstatus=%#llx\nmask=%#llx\nbase=%#llx\nwritten=%llu\nlost=%llu\npmis=%llu\npmis_handled=%llu\ngp_test=%llu\nwrapped=%d\ntrace_len=%zu\nregions=%u\n",
		   t->rc, t->status, t->mask, t->base, t->written, t->lost,
		   t->pmis, t->handled, t->gp_test, t->wrapped, t->trace_len,
		   t->nregions);
	mutex_unlock(&pt_st_lock);
	return 0;
}

static int pt_st_open(struct inode *inode, struct file *f)
{
	return single_open(f, pt_st_show, NULL);
}

static const struct file_operations pt_st_fops = {
	.owner = THIS_MODULE,
	.open = pt_st_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = pt_st_write,
};

static ssize_t pt_st_trace_read(struct file *f, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pt_st_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, pt_st.trace,
				      pt_st.trace_len);
	mutex_unlock(&pt_st_lock);
	return ret;
}

static const struct file_operations pt_st_trace_fops = {
	.owner = THIS_MODULE,
	.read = pt_st_trace_read,
	.llseek = default_llseek,
};

void pt_model_selftest_init(struct dentry *dir)
{
	debugfs_create_file("selftest", 0600, dir, NULL, &pt_st_fops);
	debugfs_create_file("selftest_trace", 0400, dir, NULL,
			    &pt_st_trace_fops);
}

void pt_model_selftest_exit(void)
{
	mutex_lock(&pt_st_lock);
	pt_st_free(&pt_st);
	mutex_unlock(&pt_st_lock);
}
