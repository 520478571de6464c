// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs for the model, under pt_trace/model/: counters summed over the
 * CPUs (gp_faults must stay 0 in every normal test), per-CPU detail, and
 * test hooks that reach the model directly, without the driver:
 *   msr           "CPU MSR VAL" writes (a #GP fails the write with EIO and
 *                 counts in gp_faults_test), "CPU MSR" reads; reading the
 *                 file returns the last value read.
 *   ovf           "CPU": the next tick on CPU overflows (OVF packet).
 *   nmi_selftest  read "CPU": 1 when a model NMI arrived in NMI context.
 *   drop_pmis     write N: the next N PMIs (any CPU) are swallowed, as
 *                 lost interrupts (bit 55 set, no NMI); reads what is
 *                 left.  pmis_dropped counts those swallowed.
 *   ctl_fault     write "CPU": the driver's next RTIT_CTL write on CPU
 *                 that clears TraceEn #GPs (counted in gp_faults_test)
 *                 and leaves TraceEn set: a disabling write that fails.
 *   foreign, late_pmi, vmx, foreign_*: the other agents (agents.c);
 *   pebs_agent (pebs.c); kvm_agent, KVM's DEBUGCTL window (kvm.c).
 *   vmx_guest_code  the model guests' code, 64 KiB (vmx.c).
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "model.h"

struct pt_counter_file {
	const char *name;
	size_t off;
};

#define PT_CTR(n) { #n, offsetof(struct pt_model_stats, n) }

static const struct pt_counter_file pt_counters[] = {
	PT_CTR(gp_faults), PT_CTR(gp_faults_test), PT_CTR(op_errors),
	PT_CTR(bytes_written), PT_CTR(packets), PT_CTR(lost_bytes),
	PT_CTR(pmis_raised), PT_CTR(pmis_masked), PT_CTR(nmi_races),
	PT_CTR(ticks), PT_CTR(psbs), PT_CTR(ovfs), PT_CTR(burst_bytes),
	PT_CTR(tick_ns), PT_CTR(tick_ns_ktask),
	PT_CTR(bts_records), PT_CTR(bts_filtered), PT_CTR(bts_dropped),
	PT_CTR(bts_pmis), PT_CTR(bts_ds_errors), PT_CTR(bts_pti_faults),
	PT_CTR(bts_exact_busy), PT_CTR(bts_exact_exceptions),
	PT_CTR(bts_exact_returns), PT_CTR(bts_tail), PT_CTR(bts_late),
	PT_CTR(pebs_records), PT_CTR(pebs_dropped), PT_CTR(pebs_pmis),
	PT_CTR(pebs_ds_errors),
};

static int pt_counter_get(void *data, u64 *val)
{
	const struct pt_counter_file *c = data;
	int cpu;

	*val = 0;
	for_each_possible_cpu(cpu) {
		struct pt_model_cpu *st = pt_model_cpu_ptr(cpu);

		*val += atomic64_read((atomic64_t *)((char *)&st->stats + c->off));
	}
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(pt_counter_fops, pt_counter_get, NULL, "%llu\n");

static int pt_detail_show(struct seq_file *m, void *v)
{
	int cpu, i;

	seq_printf(m, "profile %s\n", pt_model_prof->name);
	/* model_burst is a benchmark aid: say so wherever the model is read. */
	seq_printf(m, "generator %s\n",
		   READ_ONCE(pt_model_burst) ? "burst (repeated blocks, not silicon behaviour)" :
					       "normal");
	for_each_online_cpu(cpu) {
		struct pt_model_cpu *st = pt_model_cpu_ptr(cpu);
		const struct pt_model_regs *r = &READ_ONCE(st->active)->regs;

		seq_printf(m, "cpu%d ctl %#llx status %#llx base %#llx mask %#llx cr3_match %#llx global_status %#llx running %d lvtpc_masked %d\n",
			   cpu, r->ctl, r->status, r->base, r->mask | 0x7f,
			   r->cr3_match, r->global_status, st->running,
			   st->lvtpc_masked);
		seq_printf(m, "cpu%d bts debugctl %#llx ds_area %#llx\n",
			   cpu, r->debugctl, r->ds_area);
		seq_printf(m, "cpu%d last_gp msr %#x val %#llx why %s last_operr %s\n",
			   cpu, st->stats.last_gp_msr, st->stats.last_gp_val,
			   pt_model_gp_str(st->stats.last_gp_why),
			   pt_model_operr_str(st->stats.last_operr));
		for (i = 1; i < PT_GP_NR; i++) {
			u64 n = atomic64_read(&st->stats.gp_by_reason[i]);

			if (n)
				seq_printf(m, "cpu%d gp %s %llu\n", cpu,
					   pt_model_gp_str(i), n);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_detail);

/* tick_ns_ktask per CPU, one line each ("CPU NS"), for benchmarks. */
static int pt_tick_cpu_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_possible_cpu(cpu)
		seq_printf(m, "%d %lld\n", cpu,
			   atomic64_read(&pt_model_cpu_ptr(cpu)->stats.tick_ns_ktask));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_tick_cpu);

/* The msr hook. */
struct pt_msr_req {
	u32 msr;
	u64 val;
	bool write;
	int ret;
};

static u64 pt_msr_last;

static void pt_msr_on_cpu(void *info)
{
	struct pt_msr_req *q = info;
	struct pt_model_cpu *st = this_cpu_ptr(pt_model_cpus);

	if (q->write)
		q->ret = pt_model_do_wrmsr(st, q->msr, q->val, true);
	else
		q->ret = pt_model_do_rdmsr(st, q->msr, &q->val);
}

static ssize_t pt_msr_write(struct file *f, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct pt_msr_req q = { 0 };
	unsigned int cpu;
	char buf[80];
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%u %x %llx", &cpu, &q.msr, &q.val);
	if (n < 2)
		return -EINVAL;
	q.write = n == 3;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	ret = smp_call_function_single(cpu, pt_msr_on_cpu, &q, 1);
	if (ret)
		return ret;
	if (q.ret)
		return q.ret;
	if (!q.write)
		pt_msr_last = q.val;
	return len;
}

static ssize_t pt_msr_read(struct file *f, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	char buf[24];
	int n = scnprintf(buf, sizeof(buf), "%#llx\n", pt_msr_last);

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations pt_msr_fops = {
	.owner = THIS_MODULE,
	.write = pt_msr_write,
	.read = pt_msr_read,
	.llseek = default_llseek,
};

static int pt_ovf_fn(struct pt_model_cpu *st, struct pt_model_state *s,
		     void *arg)
{
	s->ovf_pending = true;
	return 0;
}

static void pt_ovf_on_cpu(void *info)
{
	pt_model_update(this_cpu_ptr(pt_model_cpus), pt_ovf_fn, NULL, true);
}

static int pt_ovf_set(void *data, u64 cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	return smp_call_function_single(cpu, pt_ovf_on_cpu, NULL, 1);
}
DEFINE_DEBUGFS_ATTRIBUTE(pt_ovf_fops, NULL, pt_ovf_set, "%llu\n");

static int pt_ctl_fault_set(void *data, u64 cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	WRITE_ONCE(pt_model_cpu_ptr(cpu)->fail_disable, 1);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(pt_ctl_fault_fops, NULL, pt_ctl_fault_set, "%llu\n");

static unsigned int pt_nmi_test_cpu;

static int pt_nmi_test_get(void *data, u64 *val)
{
	int ret;

	if (!cpu_online(pt_nmi_test_cpu))
		return -EINVAL;
	ret = pt_model_pmi_selftest(pt_nmi_test_cpu);
	if (ret < 0)
		return ret;
	*val = ret;
	return 0;
}

static int pt_nmi_test_set(void *data, u64 cpu)
{
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	pt_nmi_test_cpu = cpu;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(pt_nmi_test_fops, pt_nmi_test_get, pt_nmi_test_set,
			 "%llu\n");

static struct dentry *pt_model_debugfs_dir;

int pt_model_debugfs_init(struct dentry *parent)
{
	struct dentry *dir;
	unsigned int i;
	int ret;

	dir = debugfs_create_dir("model", parent);
	pt_model_debugfs_dir = dir;
	for (i = 0; i < ARRAY_SIZE(pt_counters); i++)
		debugfs_create_file_unsafe(pt_counters[i].name, 0444, dir,
					   (void *)&pt_counters[i],
					   &pt_counter_fops);
	debugfs_create_file("detail", 0444, dir, NULL, &pt_detail_fops);
	debugfs_create_file("tick_ns_ktask_cpu", 0444, dir, NULL,
			    &pt_tick_cpu_fops);
	debugfs_create_file("msr", 0600, dir, NULL, &pt_msr_fops);
	debugfs_create_file_unsafe("ovf", 0200, dir, NULL, &pt_ovf_fops);
	debugfs_create_file_unsafe("ctl_fault", 0200, dir, NULL,
				   &pt_ctl_fault_fops);
	debugfs_create_file_unsafe("nmi_selftest", 0600, dir, NULL,
				   &pt_nmi_test_fops);
	debugfs_create_atomic_t("drop_pmis", 0600, dir, &pt_model_drop_pmis);
	debugfs_create_atomic_t("pmis_dropped", 0444, dir,
				&pt_model_pmis_dropped);
	pt_model_selftest_init(dir);
	pt_model_witness_init(dir);
	pt_model_exact_init(dir);
	pt_model_vmx_debugfs_init(dir);
	ret = pt_model_agents_init(dir);
	if (ret)
		return ret;
	ret = pt_model_bts_init(dir);
	if (ret) {
		pt_model_agents_exit();
		return ret;
	}
	ret = pt_model_pebs_init(dir);
	if (ret) {
		pt_model_bts_exit();
		pt_model_agents_exit();
		return ret;
	}
	ret = pt_model_kvm_init(dir);
	if (ret) {
		pt_model_pebs_exit();
		pt_model_bts_exit();
		pt_model_agents_exit();
	}
	return ret;
}

/*
 * Remove the files before the model's state goes away: debugfs_remove()
 * waits for readers and writers in flight, so no hook can reach freed
 * state during unload.
 */
void pt_model_debugfs_exit(void)
{
	debugfs_remove_recursive(pt_model_debugfs_dir);
	pt_model_debugfs_dir = NULL;
	pt_model_witness_exit();
}
