// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs model/bts_selftest: the model's BTS rules exercised without a
 * driver, as a driver would use them (tests/vm/bts_model.sh).  Write
 *   CPU DEBUGCTL NREC THRESH SKEW MS
 * to set up, on CPU, a DS area whose BTS buffer holds NREC records with
 * the interrupt threshold THRESH records in and the absolute maximum
 * SKEW bytes past the last record (0: a valid layout), write IA32_DS_AREA
 * and DEBUGCTL (the model's #GP rules apply: EIO), let the generator run
 * for MS ms, claim and re-arm the BTS PMIs meanwhile, and restore both
 * MSRs.  Read back one line:
 *   rc records filtered dropped pmis claimed ds_errors pti_faults
 *   index kernel user bad
 * (counter deltas on that CPU; index in records from the base; the
 * records found below the index, or the whole buffer once it wrapped,
 * by mode, and 'bad' ones: a zero or non-canonical address).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "../bts_regs.h"
#include "model.h"

struct pt_bts_st {
	int cpu;
	u64 debugctl, ds_area;
	u64 saved_debugctl, saved_ds_area;
	int rc;
	char result[256];
};

static DEFINE_MUTEX(pt_bts_st_lock);
static struct pt_bts_st pt_bts_st;

static void pt_bts_st_arm(void *info)
{
	struct pt_bts_st *t = info;
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	pt_model_do_rdmsr(st, BTS_MSR_DEBUGCTL, &t->saved_debugctl);
	pt_model_do_rdmsr(st, BTS_MSR_DS_AREA, &t->saved_ds_area);
	t->rc = pt_model_do_wrmsr(st, BTS_MSR_DS_AREA, t->ds_area, true);
	t->rc = t->rc ?: pt_model_do_wrmsr(st, BTS_MSR_DEBUGCTL, t->debugctl,
					   true);
}

static void pt_bts_st_disarm(void *info)
{
	struct pt_bts_st *t = info;
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	pt_model_do_wrmsr(st, BTS_MSR_DEBUGCTL, t->saved_debugctl, true);
	pt_model_do_wrmsr(st, BTS_MSR_DS_AREA, t->saved_ds_area, true);
}

/* The BTS counters of one CPU, in the order of the result line. */
static void pt_bts_snap(struct pt_model_cpu *st, u64 c[6])
{
	c[0] = atomic64_read(&st->stats.bts_records);
	c[1] = atomic64_read(&st->stats.bts_filtered);
	c[2] = atomic64_read(&st->stats.bts_dropped);
	c[3] = atomic64_read(&st->stats.bts_pmis);
	c[4] = atomic64_read(&st->stats.bts_ds_errors);
	c[5] = atomic64_read(&st->stats.bts_pti_faults);
}

static int pt_bts_st_run(struct pt_bts_st *t, u32 nrec, u32 thresh,
			 u32 skew, u32 ms)
{
	struct pt_model_cpu *st = pt_model_cpu_ptr(t->cpu);
	u64 c0[6], c1[6], idx, n, i;
	u32 kernel = 0, user = 0, bad = 0;
	struct bts_ds_area *ds;
	struct bts_record *buf;
	int claimed;

	ds = kzalloc(sizeof(*ds), GFP_KERNEL);
	buf = kcalloc(nrec, BTS_RECORD_SIZE, GFP_KERNEL);
	if (!ds || !buf) {
		kfree(ds);
		kfree(buf);
		return -ENOMEM;
	}
	ds->bts_base = (unsigned long)buf;
	ds->bts_index = ds->bts_base;
	ds->bts_max = ds->bts_base + (u64)nrec * BTS_RECORD_SIZE - skew;
	ds->bts_thresh = ds->bts_base + (u64)thresh * BTS_RECORD_SIZE;
	t->ds_area = (unsigned long)ds;
	pt_bts_snap(st, c0);
	claimed = atomic_read(&pt_model_bts_pmis_claimed);
	pt_model_bts_claim_pmis(t->cpu);
	smp_call_function_single(t->cpu, pt_bts_st_arm, t, 1);
	if (!t->rc)
		msleep(ms);
	smp_call_function_single(t->cpu, pt_bts_st_disarm, t, 1);
	/* A batch staged before the disable is not stored after it. */
	msleep(20);
	pt_model_bts_claim_pmis(-1);
	pt_bts_snap(st, c1);
	idx = (READ_ONCE(ds->bts_index) - ds->bts_base) / BTS_RECORD_SIZE;
	n = c1[0] - c0[0] >= nrec ? nrec : idx;
	for (i = 0; i < n && i < nrec; i++) {
		const struct bts_record *r = &buf[i];

		if (!r->from || !r->to)
			bad++;
		else if (r->from >= TASK_SIZE_MAX)
			kernel++;
		else
			user++;
	}
	snprintf(t->result, sizeof(t->result),
		 "rc %d records %llu filtered %llu dropped %llu pmis %llu claimed %d ds_errors %llu pti_faults %llu index %llu kernel %u user %u bad %u\n",
		 t->rc, c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2],
		 c1[3] - c0[3],
		 atomic_read(&pt_model_bts_pmis_claimed) - claimed,
		 c1[4] - c0[4], c1[5] - c0[5], idx, kernel, user, bad);
	kfree(buf);
	kfree(ds);
	return 0;
}

static ssize_t pt_bts_st_write(struct file *f, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	u32 nrec, thresh, skew, ms;
	struct pt_bts_st *t = &pt_bts_st;
	char kbuf[128];
	int cpu, ret;
	u64 ctl;

	if (len >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, len))
		return -EFAULT;
	kbuf[len] = 0;
	if (sscanf(kbuf, "%d %llx %u %u %u %u", &cpu, &ctl, &nrec, &thresh,
		   &skew, &ms) != 6)
		return -EINVAL;
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu) || !nrec ||
	    nrec > 4096 || thresh > nrec || skew >= BTS_RECORD_SIZE ||
	    ms > 2000)
		return -EINVAL;
	mutex_lock(&pt_bts_st_lock);
	t->cpu = cpu;
	t->debugctl = ctl;
	ret = pt_bts_st_run(t, nrec, thresh, skew, ms);
	mutex_unlock(&pt_bts_st_lock);
	return ret ?: len;
}

static ssize_t pt_bts_st_read(struct file *f, char __user *ubuf, size_t len,
			      loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pt_bts_st_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, pt_bts_st.result,
				      strlen(pt_bts_st.result));
	mutex_unlock(&pt_bts_st_lock);
	return ret;
}

static const struct file_operations pt_bts_st_fops = {
	.owner = THIS_MODULE,
	.write = pt_bts_st_write,
	.read = pt_bts_st_read,
	.llseek = default_llseek,
};

/* Removed with the model's debugfs directory. */
void pt_model_bts_selftest_init(struct dentry *dir)
{
	debugfs_create_file("bts_selftest", 0600, dir, NULL, &pt_bts_st_fops);
}
