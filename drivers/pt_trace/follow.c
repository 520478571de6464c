// SPDX-License-Identifier: GPL-2.0
/*
 * Following tasks (PT_TRACE_IOC_FOLLOW, Documentation/abi.rst): a device
 * traces its CPU only while a task of its followed set runs there, as
 * perf's per-task events do.
 *
 * The set is a table of processes, each named by its thread-group
 * struct pid (a reference held, so the pointer is never reused while in
 * the table): every thread of a process in the table is followed, with
 * no work per thread.  With PT_FOLLOW_INHERIT a new process whose parent
 * is followed joins at sched_process_fork, before it can run; a process
 * leaves at the exit of its last thread, or at an exec that makes it
 * undumpable when the follower was not perfmon-capable (perf drops its
 * events there too).  A task is followed only until its own exit: from
 * PF_EXITING on it is not, and its exit tracepoint switches its CPU off.
 *
 * Only the kernel's scheduler tracepoints are used (found with
 * for_each_kernel_tracepoint(), registered at the first FOLLOW, or the
 * first BTS configuration with switch records, whose records the switch
 * probe also asks for (bts_src_switch()); gone at unload after
 * tracepoint_synchronize_unregister()).  sched_switch runs
 * on the switching CPU with IRQs off and the runqueue locked: it looks
 * the next task up in the set under RCU (no lock, no allocation) and
 * asks the streaming layer to park or resume the hardware
 * (pt_stream_follow()), which serialises with the PMI as the IPIs do.
 * Whether a device is following is decided in its start and stop IPIs,
 * on the traced CPU with IRQs off, so a switch never races a start or
 * stop; CPU hotplug stops the trace through the same stop IPI, and a
 * migrating task is switched out on one CPU and in on the other.
 *
 * The fork, exit and exec probes run in the task's context with
 * preemption disabled: they walk the list of sets under RCU and change
 * a table under its spinlock (GFP_ATOMIC: a process that cannot be added,
 * for want of memory or because the set holds follow_max_procs already,
 * is counted in join_failures, never traced, and the recorder says so at
 * the end).  A set is freed (close,
 * CLEAR, another FOLLOW) only while its device is stopped, after an RCU
 * grace period.
 */
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/pt_trace.h>

#include "core.h"
#include "follow.h"
#include "source.h"
#include "source_pt.h"
#include "stream.h"

/*
 * Processes per set, the followed one included (it always joins): beyond
 * it descendants are not followed and count as join failures.  It bounds
 * the memory a fork bomb under a follower pins (GFP_ATOMIC, in the fork
 * path); tests lower it to make joins fail on purpose.  Read at each join.
 */
static unsigned int follow_max_procs = 65536;
module_param(follow_max_procs, uint, 0644);
MODULE_PARM_DESC(follow_max_procs,
		 "processes per followed set (FOLLOW with inherit): descendants beyond it are not traced, counted in GET_FOLLOW's join_failures (default 65536)");

struct pt_follow_proc {
	struct hlist_node node;
	struct pid *tgid;		/* referenced */
	struct rcu_head rcu;
};

struct pt_follow {
	struct list_head link;		/* pt_follow_sets */
	pid_t pid;			/* as given */
	u32 flags;			/* PT_FOLLOW_* as given */
	bool priv;			/* the follower was perfmon-capable */
	spinlock_t lock;		/* the table and the counters below */
	DECLARE_HASHTABLE(procs, 6);
	u64 nprocs, joined, left, join_failures;
	/* The traced CPU's (switch probe, IRQs off). */
	u64 switches_in, switches_out;
	bool in;			/* a member runs there, traced */
};

/* Every set, for the fork, exit and exec probes (RCU; writers: mutex). */
static LIST_HEAD(pt_follow_sets);
static DEFINE_MUTEX(pt_follow_mutex);
static bool pt_follow_registered;

static bool pt_follow_has(struct pt_follow *f, struct pid *tgid)
{
	struct pt_follow_proc *p;

	hash_for_each_possible_rcu(f->procs, p, node, (unsigned long)tgid)
		if (p->tgid == tgid)
			return true;
	return false;
}

/* Is @t followed by @f?  Any context; @t alive (current, or switching). */
static bool pt_follow_member(struct pt_follow *f, struct task_struct *t)
{
	if (t->flags & (PF_EXITING | PF_KTHREAD))
		return false;
	return pt_follow_has(f, task_tgid(t));
}

void pt_follow_start_ipi(struct pt_cpu *pc, u64 base, u64 mask)
{
	struct pt_stream *s = &pc->stream;
	struct pt_follow *f = pc->follow;

	s->parked = f && !pt_follow_member(f, current);
	s->park_status = 0;
	s->park_base = base;
	s->park_mask = mask;
	if (!f)
		return;
	/* A member runs here: START begins its traced run (switches_in). */
	f->in = !s->parked;
	if (f->in)
		f->switches_in++;
}

/* f->lock held. */
static void pt_follow_add_locked(struct pt_follow *f, struct pid *tgid,
				 gfp_t gfp)
{
	struct pt_follow_proc *p;

	if (pt_follow_has(f, tgid))
		return;
	/* The first process (FOLLOW's) always has room. */
	p = !f->joined || f->nprocs < READ_ONCE(follow_max_procs) ?
	    kmalloc(sizeof(*p), gfp) : NULL;
	if (!p) {
		f->join_failures++;
		return;
	}
	p->tgid = get_pid(tgid);
	hash_add_rcu(f->procs, &p->node, (unsigned long)tgid);
	f->nprocs++;
	f->joined++;
}

static void pt_follow_proc_free(struct rcu_head *rcu)
{
	struct pt_follow_proc *p = container_of(rcu, struct pt_follow_proc,
						rcu);

	put_pid(p->tgid);
	kfree(p);
}

static void pt_follow_remove(struct pt_follow *f, struct pid *tgid)
{
	struct pt_follow_proc *p;

	spin_lock(&f->lock);
	hash_for_each_possible(f->procs, p, node, (unsigned long)tgid) {
		if (p->tgid != tgid)
			continue;
		hash_del_rcu(&p->node);
		call_rcu(&p->rcu, pt_follow_proc_free);
		f->nprocs--;
		f->left++;
		break;
	}
	spin_unlock(&f->lock);
}

/*
 * The current task may have left its CPU's set (exit, exec): switch the
 * trace off now rather than at the next switch.  IRQs off, as an IPI.
 */
static void pt_follow_recheck_current(void)
{
	struct pt_cpu *pc;
	unsigned long flags;

	local_irq_save(flags);
	pc = pt_core_cpu(smp_processor_id());
	if (pc && READ_ONCE(pc->stream.follow_on) && pc->follow->in &&
	    !pt_follow_member(pc->follow, current)) {
		pc->follow->in = false;
		pc->follow->switches_out++;
		pt_stream_follow(pc, false);
	}
	local_irq_restore(flags);
}

/* ---- The probes ---- */

static void pt_follow_switch(void *data, bool preempt,
			     struct task_struct *prev,
			     struct task_struct *next,
			     unsigned int prev_state)
{
	struct pt_cpu *pc = pt_core_cpu(smp_processor_id());
	struct pt_follow *f;
	bool in;

	bts_src_switch(next);
	if (!pc || !READ_ONCE(pc->stream.follow_on))
		return;
	f = pc->follow;
	in = pt_follow_member(f, next);
	if (in && f->in && prev != next) {
		/*
		 * From one followed task to another: tracing goes off and on
		 * again, as two per-task perf events would do it, so the trace
		 * has the timing packets of an enable (a TSC at TraceEn 0->1)
		 * right at this switch: a decoder tells the two tasks' code
		 * apart by the switch records, even with user-only tracing,
		 * where nothing else in the trace marks the switch.
		 */
		f->switches_out++;
		pt_stream_follow(pc, false);
	} else if (in == f->in) {
		return;
	}
	f->in = in;
	if (in)
		f->switches_in++;
	else
		f->switches_out++;
	pt_stream_follow(pc, in);
}

static void pt_follow_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct pt_follow *f;

	/* A new thread is followed with its process. */
	if (same_thread_group(parent, child))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(f, &pt_follow_sets, link) {
		if (!(f->flags & PT_FOLLOW_INHERIT) ||
		    !pt_follow_member(f, parent))
			continue;
		spin_lock(&f->lock);
		pt_follow_add_locked(f, task_tgid(child), GFP_ATOMIC);
		spin_unlock(&f->lock);
	}
	rcu_read_unlock();
}

static void pt_follow_task_exit(void *data, struct task_struct *p)
{
	struct pt_follow *f;

	if (list_empty(&pt_follow_sets))
		return;
	/* PF_EXITING is set: this task is followed no more. */
	pt_follow_recheck_current();
	/* The last thread of its process (signal->live already counted). */
	if (atomic_read(&p->signal->live))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(f, &pt_follow_sets, link)
		pt_follow_remove(f, task_tgid(p));
	rcu_read_unlock();
}

static void pt_follow_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct pt_follow *f;
	bool gone = false;

	if (list_empty(&pt_follow_sets) ||
	    get_dumpable(p->mm) == SUID_DUMP_USER)
		return;
	/* Setuid, setgid or file capabilities: as perf, not followed. */
	rcu_read_lock();
	list_for_each_entry_rcu(f, &pt_follow_sets, link) {
		if (f->priv)
			continue;
		pt_follow_remove(f, task_tgid(p));
		gone = true;
	}
	rcu_read_unlock();
	if (gone)
		pt_follow_recheck_current();
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} pt_follow_tps[] = {
	{ "sched_switch", pt_follow_switch },
	{ "sched_process_fork", pt_follow_fork },
	{ "sched_process_exit", pt_follow_task_exit },
	{ "sched_process_exec", pt_follow_exec },
};

static void pt_follow_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_follow_tps); i++)
		if (!strcmp(tp->name, pt_follow_tps[i].name))
			pt_follow_tps[i].tp = tp;
}

static void pt_follow_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_follow_tps); i++)
		if (pt_follow_tps[i].tp)
			tracepoint_probe_unregister(pt_follow_tps[i].tp,
						    pt_follow_tps[i].probe,
						    NULL);
	tracepoint_synchronize_unregister();
}

/* pt_follow_mutex held: the probes, once for the module's lifetime. */
static int pt_follow_register(void)
{
	unsigned int i;
	int ret = 0;

	if (pt_follow_registered)
		return 0;
	for_each_kernel_tracepoint(pt_follow_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(pt_follow_tps); i++) {
		if (!pt_follow_tps[i].tp) {
			pr_err("following tasks needs the scheduler tracepoint %s, which this kernel does not have\n",
			       pt_follow_tps[i].name);
			ret = -EOPNOTSUPP;
			break;
		}
		ret = tracepoint_probe_register(pt_follow_tps[i].tp,
						pt_follow_tps[i].probe, NULL);
		if (ret) {
			pt_follow_tps[i].tp = NULL;
			break;
		}
	}
	if (ret) {
		pt_follow_unregister();
		for (i = 0; i < ARRAY_SIZE(pt_follow_tps); i++)
			pt_follow_tps[i].tp = NULL;
		return ret;
	}
	pt_follow_registered = true;
	return 0;
}

int pt_follow_probes(void)
{
	int ret;

	mutex_lock(&pt_follow_mutex);
	ret = pt_follow_register();
	mutex_unlock(&pt_follow_mutex);
	return ret;
}

void pt_follow_exit(void)
{
	if (pt_follow_registered)
		pt_follow_unregister();
	/* The processes removed by the probes: their RCU callbacks. */
	rcu_barrier();
}

/* ---- Sets ---- */

/* @listed: on pt_follow_sets, where probes may still walk it. */
static void pt_follow_free(struct pt_follow *f, bool listed)
{
	struct pt_follow_proc *p;
	struct hlist_node *tmp;
	unsigned int bkt;

	if (!f)
		return;
	if (listed) {
		mutex_lock(&pt_follow_mutex);
		list_del_rcu(&f->link);
		mutex_unlock(&pt_follow_mutex);
		/* No probe walks it any more. */
		synchronize_rcu();
	}
	hash_for_each_safe(f->procs, bkt, tmp, p, node) {
		put_pid(p->tgid);
		kfree(p);
	}
	kfree(f);
}

/*
 * The followed process of @req: its thread group, if the caller may
 * trace it (the rule of PT_CR3_BY_PID, pt_src_may_trace()).
 */
static struct pt_follow *pt_follow_new(const struct pt_trace_follow *req)
{
	struct signal_struct *sig;
	struct task_struct *task;
	struct mm_struct *mm;
	struct pt_follow *f;
	struct pid *p;
	int ret = 0;

	p = find_get_pid(req->pid);
	task = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!task)
		return ERR_PTR(-ESRCH);
	if (task->flags & PF_KTHREAD) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * The probes first: registering them (static keys, the hotplug
	 * lock) under the exec lock below would tie the two together.
	 */
	ret = pt_follow_probes();
	if (ret)
		goto out;
	/*
	 * From the check to the listing no exec may commit new credentials
	 * (perf_event_open() holds the same lock): else an exec of a setuid
	 * program could pass its probe, which removes the process from the
	 * sets listed then, before this one is listed, and a process checked
	 * as the caller's would be followed running as root
	 * (tests/vm/follow_exec_race.c).
	 */
	sig = task->signal;
	ret = down_read_interruptible(&sig->exec_update_lock);
	if (ret)
		goto out;
	mm = pt_src_group_mm(&task);
	if (!mm) {
		ret = -ESRCH;		/* exiting */
		goto unlock;
	}
	if (!perfmon_capable() && !pt_src_may_trace(task, mm))
		ret = -EPERM;
	mmput(mm);
	if (ret)
		goto unlock;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		ret = -ENOMEM;
		goto unlock;
	}
	f->pid = req->pid;
	f->flags = req->flags;
	f->priv = perfmon_capable();
	spin_lock_init(&f->lock);
	hash_init(f->procs);
	spin_lock(&f->lock);
	pt_follow_add_locked(f, task_tgid(task), GFP_ATOMIC);
	spin_unlock(&f->lock);
	if (!f->nprocs) {
		kfree(f);
		ret = -ENOMEM;
		goto unlock;
	}
	mutex_lock(&pt_follow_mutex);
	list_add_rcu(&f->link, &pt_follow_sets);
	mutex_unlock(&pt_follow_mutex);
	/* Died before the exit probe could see the set: not followed. */
	if (!atomic_read(&task->signal->live))
		pt_follow_remove(f, task_tgid(task));
unlock:
	up_read(&sig->exec_update_lock);
out:
	put_task_struct(task);
	return ret ? ERR_PTR(ret) : f;
}

int pt_follow_set(struct pt_cpu *pc, const struct pt_trace_follow *req)
{
	struct pt_follow *f = NULL, *old;
	int ret = 0;

	if (req->reserved || (req->flags & ~(PT_FOLLOW_INHERIT |
					     PT_FOLLOW_CLEAR)))
		return -EINVAL;
	/* CLEAR alone and pid 0; a process otherwise. */
	if ((req->flags & PT_FOLLOW_CLEAR) ?
	    req->pid || req->flags != PT_FOLLOW_CLEAR : req->pid <= 0)
		return -EINVAL;
	if (!(req->flags & PT_FOLLOW_CLEAR)) {
		f = pt_follow_new(req);
		if (IS_ERR(f))
			return PTR_ERR(f);
	}
	mutex_lock(&pc->lock);
	if (pc->running) {
		old = f;		/* refused: the new one goes */
		ret = -EBUSY;
	} else {
		old = pc->follow;
		pc->follow = f;
	}
	mutex_unlock(&pc->lock);
	pt_follow_free(old, true);
	return ret;
}

void pt_follow_get(struct pt_cpu *pc, struct pt_trace_follow_status *st)
{
	struct pt_follow *f;

	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	mutex_lock(&pc->lock);
	f = pc->follow;
	if (f) {
		spin_lock(&f->lock);
		st->pid = f->pid;
		st->flags = f->flags;
		st->state = PT_FOLLOW_ACTIVE;
		if (!f->nprocs)
			st->state |= PT_FOLLOW_EMPTY;
		st->processes = f->nprocs;
		st->joined = f->joined;
		st->left = f->left;
		st->join_failures = f->join_failures;
		spin_unlock(&f->lock);
		if (pc->running && READ_ONCE(f->in))
			st->state |= PT_FOLLOW_SWITCHED_IN;
		st->switches_in = READ_ONCE(f->switches_in);
		st->switches_out = READ_ONCE(f->switches_out);
	}
	mutex_unlock(&pc->lock);
}

void pt_follow_release(struct pt_cpu *pc)
{
	struct pt_follow *f;

	mutex_lock(&pc->lock);
	f = pc->follow;
	pc->follow = NULL;
	mutex_unlock(&pc->lock);
	pt_follow_free(f, true);
}
