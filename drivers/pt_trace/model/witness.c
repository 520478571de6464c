// SPDX-License-Identifier: GPL-2.0
/*
 * The witness of following (debugfs model/witness): a per-CPU hrtimer,
 * independent of the generator (which ticks only while TraceEn=1),
 * samples every 'period' microseconds the user-mode context it
 * interrupted and counts, per thread, the samples taken while the
 * modelled RTIT_CTL.TraceEn was 1 ("traced") and 0 ("untraced").  A test
 * that follows a set of tasks then proves from the ground truth that no
 * user instruction outside the set ran with tracing on, and that none
 * inside it ran with tracing off.  Kernel-mode samples are not counted:
 * the driver switches tracing in the scheduler, inside the kernel.
 *
 * Write a period in microseconds (at least 100) to clear the counts and
 * start on every online CPU, 0 to stop; a CPU brought online later is
 * sampled from the next write.  Read: one line per thread seen,
 * "cpu tid tgid traced untraced comm", then per CPU
 * "cpu N samples S user U full F" (F: samples of threads beyond the
 * table, which a test must treat as unknown).
 */
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/pt_trace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>

#include "model.h"

#define PT_WITNESS_THREADS	64

struct pt_witness_thread {
	pid_t tid, tgid;
	u64 traced, untraced;
	char comm[TASK_COMM_LEN];
};

struct pt_witness_cpu {
	struct hrtimer timer;
	bool on;
	unsigned int n;
	u64 samples, user, full;
	struct pt_witness_thread t[PT_WITNESS_THREADS];
};

/* Allocated: the modules' static per-CPU area is small (debug kernel). */
static struct pt_witness_cpu __percpu *pt_witness;
static DEFINE_MUTEX(pt_witness_lock);
static unsigned int pt_witness_period_us;

static void pt_witness_count(struct pt_witness_cpu *w, bool traced)
{
	struct pt_witness_thread *t;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (w->t[i].tid == current->pid)
			break;
	if (i == w->n) {
		if (w->n == PT_WITNESS_THREADS) {
			w->full++;
			return;
		}
		t = &w->t[w->n];
		t->tid = current->pid;
		t->tgid = current->tgid;
		t->traced = 0;
		t->untraced = 0;
		/* Not get_task_comm(): its task_lock is not for hardirq. */
		strscpy(t->comm, current->comm, sizeof(t->comm));
		/* Visible to a reader only with its fields set. */
		smp_store_release(&w->n, w->n + 1);
	}
	t = &w->t[i];
	if (traced)
		WRITE_ONCE(t->traced, t->traced + 1);
	else
		WRITE_ONCE(t->untraced, t->untraced + 1);
}

static enum hrtimer_restart pt_witness_tick(struct hrtimer *timer)
{
	struct pt_witness_cpu *w = container_of(timer, struct pt_witness_cpu,
						timer);
	struct pt_regs *regs = get_irq_regs();
	bool traced;

	/* A CPU going offline migrates its timers: stop there. */
	if (!READ_ONCE(w->on) || w != this_cpu_ptr(pt_witness))
		return HRTIMER_NORESTART;
	WRITE_ONCE(w->samples, w->samples + 1);
	if (regs && user_mode(regs)) {
		traced = READ_ONCE(this_cpu_ptr(pt_model_cpus)->active)->regs.ctl &
			 PT_CTL_TRACEEN;
		WRITE_ONCE(w->user, w->user + 1);
		pt_witness_count(w, traced);
	}
	hrtimer_forward_now(timer, ns_to_ktime(READ_ONCE(pt_witness_period_us) *
					       NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void pt_witness_start_ipi(void *info)
{
	struct pt_witness_cpu *w = this_cpu_ptr(pt_witness);

	w->n = 0;
	w->samples = 0;
	w->user = 0;
	w->full = 0;
	WRITE_ONCE(w->on, true);
	hrtimer_start(&w->timer, ns_to_ktime(pt_witness_period_us *
					     NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void pt_witness_stop(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_witness_cpu *w = per_cpu_ptr(pt_witness, cpu);

		WRITE_ONCE(w->on, false);
		hrtimer_cancel(&w->timer);
	}
}

static ssize_t pt_witness_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	unsigned int us;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &us);
	if (ret)
		return ret;
	if (us && us < 100)
		return -EINVAL;
	mutex_lock(&pt_witness_lock);
	pt_witness_stop();
	pt_witness_period_us = us;
	if (us)
		on_each_cpu(pt_witness_start_ipi, NULL, 1);
	mutex_unlock(&pt_witness_lock);
	return len;
}

static int pt_witness_show(struct seq_file *m, void *v)
{
	unsigned int cpu, i, n;

	for_each_online_cpu(cpu) {
		struct pt_witness_cpu *w = per_cpu_ptr(pt_witness, cpu);

		/* Pairs with pt_witness_count(): rows with their fields. */
		n = smp_load_acquire(&w->n);
		for (i = 0; i < n; i++)
			seq_printf(m, "%u %d %d %llu %llu %s\n", cpu,
				   w->t[i].tid, w->t[i].tgid,
				   READ_ONCE(w->t[i].traced),
				   READ_ONCE(w->t[i].untraced), w->t[i].comm);
	}
	for_each_online_cpu(cpu) {
		struct pt_witness_cpu *w = per_cpu_ptr(pt_witness, cpu);

		seq_printf(m, "cpu %u samples %llu user %llu full %llu\n", cpu,
			   READ_ONCE(w->samples), READ_ONCE(w->user),
			   READ_ONCE(w->full));
	}
	return 0;
}

static int pt_witness_open(struct inode *inode, struct file *file)
{
	return single_open(file, pt_witness_show, NULL);
}

static const struct file_operations pt_witness_fops = {
	.owner		= THIS_MODULE,
	.open		= pt_witness_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= pt_witness_write,
};

void pt_model_witness_init(struct dentry *dir)
{
	unsigned int cpu;

	pt_witness = alloc_percpu(struct pt_witness_cpu);
	if (!pt_witness)
		return;		/* no witness file: the tests skip */
	for_each_possible_cpu(cpu) {
		struct pt_witness_cpu *w = per_cpu_ptr(pt_witness, cpu);

		hrtimer_init(&w->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		w->timer.function = pt_witness_tick;
	}
	debugfs_create_file("witness", 0600, dir, NULL, &pt_witness_fops);
}

/* After the debugfs files are gone: no write starts a timer again. */
void pt_model_witness_exit(void)
{
	if (!pt_witness)
		return;
	pt_witness_stop();
	free_percpu(pt_witness);
	pt_witness = NULL;
}
