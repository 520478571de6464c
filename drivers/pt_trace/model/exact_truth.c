// SPDX-License-Identifier: GPL-2.0
/*
 * The exact model's ground truth (debugfs model/exact/): per CPU a
 * bounded ring of what the stepper saw, read (and consumed) as text from
 * truth_cpuN, and the counters in exact/stats.
 *
 * Each CPU writes only its own ring, with IRQs off (the #DB notifier,
 * the probes, an enable in an IPI); lines made in NMI wait in a small
 * queue for the CPU's next line (pt_truth_nmi_put()); the reader is one
 * task at a time (a mutex).  A full ring drops new lines and counts them
 * (truth_lost): a test must read as it goes or keep its program within
 * PT_TRUTH_RECS lines per CPU.  Lines (hex IPs and CR3, decimal rest):
 *
 *   TSC CPU PID TID CR3 IP       one retired user instruction
 *   # KIND TSC CPU PID TID IP    a transition: resume (the task returns
 *                                to user code at IP), out (it left user
 *                                code at IP: FUP + TIP.PGD), psb (a PSB+
 *                                was written), exec, stray (a step of a
 *                                task no longer traced: TF cleared)
 *   # out TSC CPU PID TID IP VEC
 *                                PT: an out by an interrupt or exception
 *                                taken in user code at IP, its vector
 *                                as kentry's; the task returns to IP
 *                                (TIP.PGE at its next step)
 *   # kentry TSC CPU PID TID IP VEC
 *                                BTS: an interrupt or exception at IP,
 *                                its vector (decimal, -1: a device
 *                                interrupt's, not known): a test tells
 *                                an injected interrupt by it
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/msr.h>

#include "model.h"

#define PT_TRUTH_RECS	BIT(18)		/* per CPU, 40 bytes each */

struct pt_truth_rec {
	u64 tsc, ip, cr3;
	u32 pid, tid;
	u32 kind;
};

/*
 * Lines made in NMI (a PMI's stream service retires a syscall, model.c
 * pt_model_exact_disabling()) wait here: an NMI may interrupt a writer
 * of the ring.  The CPU's next writer outside NMI moves them to the ring
 * first, so the ring keeps the order they were made in.
 */
#define PT_TRUTH_NMI_RECS	8

struct pt_exact_cpu {
	struct pt_truth_rec *ring;	/* vmalloc: PT_TRUTH_RECS */
	u64 head, tail;			/* written by the CPU, the reader */
	u64 lost;
	struct pt_truth_rec nmi[PT_TRUTH_NMI_RECS];
	unsigned int nmi_head, nmi_tail;	/* NMI's, the writer's */
	u64 nmi_lost;				/* NMI's: the queue was full */
	struct pt_exact_stats stats;
};

/* Allocated: the modules' static per-CPU area is small (debug kernel). */
static struct pt_exact_cpu __percpu *pt_exact_pc;
static DEFINE_MUTEX(pt_truth_read_lock);

struct pt_exact_stats *pt_exact_stats_this(void)
{
	static struct pt_exact_stats sink;

	return pt_exact_pc ? &this_cpu_ptr(pt_exact_pc)->stats : &sink;
}

/* IRQs off, not in NMI. */
static void pt_truth_put(struct pt_exact_cpu *pc, const struct pt_truth_rec *r)
{
	u64 head = pc->head;

	/* The reader's tail: the slots before it are free to reuse. */
	if (!pc->ring || head - smp_load_acquire(&pc->tail) >= PT_TRUTH_RECS) {
		pc->lost++;
		return;
	}
	pc->ring[head % PT_TRUTH_RECS] = *r;
	/* The record is complete before the reader sees it. */
	smp_store_release(&pc->head, head + 1);
}

/*
 * One producer (NMI, which does not nest) and one consumer (this CPU
 * outside NMI, IRQs off): the same CPU, so compiler barriers order them.
 */
static void pt_truth_nmi_put(struct pt_exact_cpu *pc,
			     const struct pt_truth_rec *r)
{
	unsigned int head = READ_ONCE(pc->nmi_head);

	if (head - READ_ONCE(pc->nmi_tail) >= PT_TRUTH_NMI_RECS) {
		pc->nmi_lost++;
		return;
	}
	pc->nmi[head % PT_TRUTH_NMI_RECS] = *r;
	barrier();
	WRITE_ONCE(pc->nmi_head, head + 1);
}

static void pt_truth_nmi_drain(struct pt_exact_cpu *pc)
{
	unsigned int tail;

	for (tail = pc->nmi_tail; tail != READ_ONCE(pc->nmi_head); tail++) {
		pt_truth_put(pc, &pc->nmi[tail % PT_TRUTH_NMI_RECS]);
		barrier();
		WRITE_ONCE(pc->nmi_tail, tail + 1);
	}
}

/* @arg: CR3 for an instruction, the vector for a kentry. */
static void pt_exact_truth_rec(enum pt_truth_kind kind, u64 ip,
			       struct task_struct *t, u64 arg)
{
	struct pt_truth_rec r = {
		.tsc = rdtsc(), .ip = ip, .cr3 = arg,
		.pid = task_tgid_nr(t), .tid = task_pid_nr(t), .kind = kind,
	};
	struct pt_exact_cpu *pc;
	unsigned long flags;

	if (!pt_exact_pc)
		return;
	if (in_nmi()) {
		pt_truth_nmi_put(this_cpu_ptr(pt_exact_pc), &r);
		return;
	}
	local_irq_save(flags);
	pc = this_cpu_ptr(pt_exact_pc);
	pt_truth_nmi_drain(pc);
	pt_truth_put(pc, &r);
	local_irq_restore(flags);
}

void pt_exact_truth(enum pt_truth_kind kind, u64 ip, struct task_struct *t)
{
	pt_exact_truth_rec(kind, ip, t,
			   kind == PT_TRUTH_INSN ? pt_model_ctx_cr3(true) : 0);
}

void pt_exact_truth_kentry(u64 ip, struct task_struct *t, int vec)
{
	pt_exact_truth_rec(PT_TRUTH_KENTRY, ip, t, (u64)(s64)vec);
}

void pt_exact_truth_kout(u64 ip, struct task_struct *t, int vec)
{
	pt_exact_truth_rec(PT_TRUTH_KOUT, ip, t, (u64)(s64)vec);
}

static const char *const pt_truth_names[] = {
	[PT_TRUTH_RESUME] = "resume",
	[PT_TRUTH_OUT] = "out",
	[PT_TRUTH_PSB] = "psb",
	[PT_TRUTH_EXEC] = "exec",
	[PT_TRUTH_STRAY] = "stray",
	[PT_TRUTH_KENTRY] = "kentry",
};

static int pt_truth_line(char *buf, size_t n, const struct pt_truth_rec *r,
			 int cpu)
{
	if (r->kind == PT_TRUTH_INSN)
		return scnprintf(buf, n, "%llu %d %u %u %llx %016llx\n",
				 r->tsc, cpu, r->pid, r->tid, r->cr3, r->ip);
	if (r->kind == PT_TRUTH_KENTRY || r->kind == PT_TRUTH_KOUT)
		return scnprintf(buf, n, "# %s %llu %d %u %u %016llx %d\n",
				 r->kind == PT_TRUTH_KOUT ? "out" : "kentry",
				 r->tsc, cpu, r->pid, r->tid, r->ip,
				 (int)(s64)r->cr3);
	return scnprintf(buf, n, "# %s %llu %d %u %u %016llx\n",
			 r->kind < ARRAY_SIZE(pt_truth_names) &&
			 pt_truth_names[r->kind] ? pt_truth_names[r->kind] : "?",
			 r->tsc, cpu, r->pid, r->tid, r->ip);
}

/*
 * The lines a read formats before it copies them out: one copy_to_user()
 * per chunk, not per line (a test reads 10^5 lines, and each copy is a
 * might_fault() check, costly under lockdep).
 */
#define PT_TRUTH_CHUNK	8192

/* Consuming read: each line is returned once. */
static ssize_t pt_truth_read(struct file *f, char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	int cpu = (long)f->f_inode->i_private;
	struct pt_exact_cpu *pc = per_cpu_ptr(pt_exact_pc, cpu);
	size_t done = 0, len, room;
	char line[128], *buf;
	u64 tail, head, t;
	int n;

	buf = kmalloc(PT_TRUTH_CHUNK, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&pt_truth_read_lock);
	tail = pc->tail;
	/* Pairs with the writer's release: records up to head are whole. */
	head = smp_load_acquire(&pc->head);
	while (tail != head && done < count) {
		room = min_t(size_t, count - done, PT_TRUTH_CHUNK);
		len = 0;
		for (t = tail; t != head; t++) {
			n = pt_truth_line(line, sizeof(line),
					  &pc->ring[t % PT_TRUTH_RECS], cpu);
			if (len + n > room)
				break;
			memcpy(buf + len, line, n);
			len += n;
		}
		if (!len)
			break;	/* not even one line fits in count */
		if (copy_to_user(ubuf + done, buf, len)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		done += len;
		tail = t;
		/* The slots are read before the writer may reuse them. */
		smp_store_release(&pc->tail, tail);
	}
	mutex_unlock(&pt_truth_read_lock);
	kfree(buf);
	return done;
}

static int pt_truth_open(struct inode *inode, struct file *f)
{
	return stream_open(inode, f);
}

static const struct file_operations pt_truth_fops = {
	.owner = THIS_MODULE,
	.open = pt_truth_open,
	.read = pt_truth_read,
};

#define PT_STAT(x) { #x, offsetof(struct pt_exact_stats, x) }
static const struct {
	const char *name;
	size_t off;
} pt_exact_stat_names[] = {
	PT_STAT(steps), PT_STAT(insns), PT_STAT(rep_iters),
	PT_STAT(unclassified), PT_STAT(strays), PT_STAT(desync),
	PT_STAT(syscalls_out), PT_STAT(restarts),
	PT_STAT(arms), PT_STAT(arm_full), PT_STAT(signals), PT_STAT(execs),
	PT_STAT(forks), PT_STAT(step_ns), PT_STAT(traps), PT_STAT(trap_irqs),
	PT_STAT(ret_irqs), PT_STAT(fault_sigs),
};

static int pt_exact_stats_show(struct seq_file *m, void *v)
{
	unsigned int i;
	u64 lost = 0;
	int cpu;

	for (i = 0; i < ARRAY_SIZE(pt_exact_stat_names); i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(*(u64 *)((char *)&per_cpu_ptr(pt_exact_pc, cpu)->stats +
						  pt_exact_stat_names[i].off));
		seq_printf(m, "%s %llu\n", pt_exact_stat_names[i].name, sum);
	}
	for_each_possible_cpu(cpu)
		lost += READ_ONCE(per_cpu_ptr(pt_exact_pc, cpu)->lost) +
			READ_ONCE(per_cpu_ptr(pt_exact_pc, cpu)->nmi_lost);
	seq_printf(m, "truth_lost %llu\n", lost);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_exact_stats);

int pt_exact_truth_alloc(void)
{
	int cpu;

	if (pt_exact_pc)
		return 0;
	pt_exact_pc = alloc_percpu(struct pt_exact_cpu);
	if (!pt_exact_pc)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pt_exact_cpu *pc = per_cpu_ptr(pt_exact_pc, cpu);

		pc->ring = vmalloc(array_size(PT_TRUTH_RECS, sizeof(*pc->ring)));
		if (!pc->ring) {
			pt_exact_truth_free();
			return -ENOMEM;
		}
	}
	return 0;
}

void pt_exact_truth_files(struct dentry *dir)
{
	char name[32];
	int cpu;

	debugfs_create_file("stats", 0444, dir, NULL, &pt_exact_stats_fops);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "truth_cpu%d", cpu);
		debugfs_create_file(name, 0400, dir, (void *)(long)cpu,
				    &pt_truth_fops);
	}
}

/* After the files are gone and nothing logs any more. */
void pt_exact_truth_free(void)
{
	int cpu;

	if (!pt_exact_pc)
		return;
	for_each_possible_cpu(cpu)
		vfree(per_cpu_ptr(pt_exact_pc, cpu)->ring);
	free_percpu(pt_exact_pc);
	pt_exact_pc = NULL;
}
