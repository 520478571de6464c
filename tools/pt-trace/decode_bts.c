// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace decode FILE.bts: the branches of a Branch Trace Store
 * recording (record --bts), one line each, like perf script's branch
 * lines for intel_bts:
 *
 *   [CPU]  FROM sym+off (dso) => TO sym+off (dso)
 *
 * Symbols come from the same address spaces as the PT decoder's
 * (decode_aspace.c: the recording's sideband.perf mmap records, its
 * sideband.txt map= lines, --elf files, libdwfl; kernel addresses from
 * the recording's kallsyms copy).  A BTS record carries neither a time
 * nor a process: user addresses are named in the recorded command's
 * address space (another process's branches on that CPU may then show
 * [unknown]), and there are no timestamps to print.  In stream mode the
 * records that found the ring full are a gap (cpuN.bts.loss), printed
 * where they were lost.
 *
 * --calls builds the call tree PT's --calls prints (call_tree.c, the
 * same code): a record is a call when the instruction at its from is a
 * call (call, far call, syscall, int n), a return when it is a ret (ret,
 * far ret, iret, sysret); its to is the next instruction that runs.  The
 * instruction is read from the recording's files (das_read()) and
 * classified by capstone; one that no file holds counts as neither (a
 * warning says how many).  A record whose from is no branch at all is an
 * interrupt or exception (the SDM stores those too, from the interrupted
 * instruction to the handler): a call, which the handler's iret returns
 * from.  A record from user code into the kernel followed by user code
 * again is a kernel visit that was not traced (-u, BTS_OFF_OS: the
 * return to user is not stored): as PT's user-only tree, it is no
 * call.
 *
 * Threads: records carry no time, so the sideband's switch records
 * cannot place them; the driver's own switch records in the data
 * (PT_BTS_SWITCH, record --bts asks for them) say where each thread's
 * branches start, and matched in order to the sideband's switch-ins
 * (dbts_sb_switch()) give each run its name and program (an exec
 * between runs); an exec within a run is its return to user mode at the
 * next program's entry, in the run the sideband's exec record lies in
 * (dbts_exec()).  From one on, addresses are named in that process's
 * address space, --calls keeps one tree per thread (as PT's: a line
 * names the thread, its depth is kept while it is switched out), the
 * timeline puts the spans on the thread's track (the idle task's on the
 * CPU's) and --pid/--tid select threads.  Without them (older
 * recordings) everything is the recorded command's, one tree per file.
 */
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>
#include <linux/pt_trace.h>

#include "call_tree.h"
#include "decode_aspace.h"
#include "decode_bts.h"
#include "decode_filter.h"
#include "decode_out.h"
#include "elf_image.h"
#include "lossfile.h"

static void dbts_addr(struct outbuf *ob, struct das_proc *p, uint64_t a)
{
	const struct elf_sym *s = p ? elf_symtab_lookup(&p->st, a) : NULL;

	ob_printf(ob, "%16llx ", (unsigned long long)a);
	if (!s) {
		/* a file with no symbol there is still named */
		const char *dso = p ? elf_symtab_dso(&p->st, a) : NULL;

		ob_printf(ob, "[unknown] (%s)", dso ? dso : "[unknown]");
		return;
	}
	ob_printf(ob, "%.*s", (int)s->namelen, s->name);
	if (a != s->addr)
		ob_printf(ob, "+%#llx", (unsigned long long)(a - s->addr));
	ob_printf(ob, " (%s)", s->dso ? s->dso : "[unknown]");
}

static int dbts_kernel(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

/*
 * The instruction at @from as libipt would class it (ptic_other: no
 * branch at all, an interrupt or exception stopped it), with its
 * length in *@size; ptic_error where no file holds it.
 */
static enum pt_insn_class dbts_class(struct decode_aspaces *as,
				     struct das_proc *p, csh cs, cs_insn *ci,
				     uint64_t from, uint8_t *len)
{
	uint8_t code[16];
	const uint8_t *c = code;
	uint64_t ip = from;
	size_t size;
	int n = ci ? das_read(as, p, from, code, sizeof(code)) : -1;

	if (n <= 0)
		return ptic_error;
	size = (size_t)n;
	if (!cs_disasm_iter(cs, &c, &size, &ip, ci))
		return ptic_error;
	*len = (uint8_t)ci->size;
	switch (ci->id) {
	case X86_INS_CALL:
		return ptic_call;
	case X86_INS_LCALL: case X86_INS_SYSCALL: case X86_INS_SYSENTER:
	case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO:
		return ptic_far_call;
	case X86_INS_RET:
		return ptic_return;
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
	case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return ptic_far_return;
	}
	return cs_insn_group(cs, ci, CS_GRP_JUMP) ? ptic_jump : ptic_other;
}

/* The gaps whose file offset is @off, before the record there. */
static void dbts_gaps(const struct ptl_file *lf, size_t *at, uint64_t off,
		      int cpu, int quiet, struct outbuf *ob,
		      struct decode_bts_stats *st, struct call_tree *ct,
		      struct tl_track *tl)
{
	static const char lost[] =
		"[%03d]  [lost %llu branches: the stream's ring was full]\n";
	/* record's gaps around a CPU hotplug (rec_hotplug()) */
	static const char restart[] =
		"[%03d]  [not traced for %.3f ms: CPU offline or a suspend, BTS started again]\n";
	static const char offline[] =
		"[%03d]  [not traced from here: CPU offline, BTS not started again]\n";

	for (; lf && *at < lf->n && lf->rec[*at].offset <= off; (*at)++) {
		const struct ptl_record *r = &lf->rec[*at];

		st->gaps++;
		ct_lost(ct);
		if (tl)
			tl_gap(tl, r);
		if (r->bytes_known)
			st->lost += r->bytes / PT_BTS_RECORD_SIZE;
		else
			st->unknown++;
		if (quiet)
			continue;
		if (r->bytes_known)
			ob_printf(ob, lost, cpu, (unsigned long long)
				  (r->bytes / PT_BTS_RECORD_SIZE));
		else if (r->flags & PTL_FLAG_RESTART)
			ob_printf(ob, restart, cpu,
				  (double)(r->end_ns - r->start_ns) / 1e6);
		else if (r->flags & PTL_FLAG_CPU_OFFLINE)
			ob_printf(ob, offline, cpu);
		else
			ob_printf(ob, "[%03d]  [lost an unknown number of branches]\n",
				  cpu);
	}
}

/*
 * One record in the call tree; @nx is the next one (NULL at the end),
 * @cls and @len its from's (dbts_class()).
 */
static void dbts_call(struct das_proc *p, struct call_tree *ct,
		      struct outbuf *ob, const struct pt_trace_bts_record *r,
		      const struct pt_trace_bts_record *nx,
		      enum pt_insn_class cls, uint8_t len)
{
	const struct elf_symtab *sym = p ? &p->st : NULL;
	uint64_t next = r->from + len;
	enum ct_branch kind;

	switch (cls) {
	case ptic_call: case ptic_far_call:
		kind = CT_CALL;
		break;
	case ptic_return: case ptic_far_return:
		kind = CT_RETURN;
		break;
	case ptic_other:
		/* the handler's iret comes back to the interrupted one */
		kind = CT_CALL;
		next = r->from;
		break;
	default:
		kind = CT_OTHER;
		break;
	}
	ct_insn(ct, ob, sym, r->from);
	if (!dbts_kernel(r->from) && dbts_kernel(r->to) &&
	    (!nx || !dbts_kernel(nx->from))) {
		/* An untraced kernel visit: back where it left. */
		ct_after(ct, CT_OTHER, 0);
		return;
	}
	ct_after(ct, kind, next);
	ct_insn(ct, ob, sym, r->to);
}

/* Is @r the driver's switch record rather than a branch? */
static int dbts_is_switch(const struct pt_trace_bts_record *r)
{
	return (r->flags & PT_BTS_SWITCH) && r->from == PT_BTS_SWITCH_FROM;
}

/* The thread whose branches follow, and each thread's call depth. */
struct dbts_threads {
	int pid, tid;		/* -1: not known (no switch record yet) */
	int shown;		/* the filters keep its branches */
	int tl_pid, tl_tid;	/* the CPU's own timeline track (idle) */
	struct { int tid, depth; } *t;
	size_t n;
	size_t sw_at;		/* the sideband's switch-ins matched so far */
	/* this run's times by the sideband (dbts_exec_in_run()) */
	int run_known;
	uint64_t run_tsc, run_out;
	/*
	 * --timeline with the sideband's clock: the run's records
	 * (@run_n) spread over its time, @run_k branch ends placed so far
	 * (dbts_when()).
	 */
	uint64_t run_n, run_k;
};

static int *dbts_depth(struct dbts_threads *th, int tid)
{
	void *n;
	size_t i;

	for (i = 0; i < th->n; i++)
		if (th->t[i].tid == tid)
			return &th->t[i].depth;
	n = realloc(th->t, (th->n + 1) * sizeof(*th->t));
	if (!n)
		return NULL;
	th->t = n;
	th->t[th->n].tid = tid;
	th->t[th->n].depth = -1;	/* no tree yet */
	return &th->t[th->n++].depth;
}

/*
 * The sideband's switch-in that a switch record of the driver's stands
 * for: both are made at the same context switch, in the same order on
 * the CPU, so it is the next one of @pid/@tid after the last matched.
 * One missing on either side (a record lost in stream mode, a sideband
 * record perf lost) is passed over.  NULL: none left (no sideband.perf,
 * a task it does not follow): names fall back to dbts_comm().
 */
static const struct das_switch *dbts_sb_switch(struct decode_aspaces *as,
					       int cpu, int pid, int tid,
					       struct dbts_threads *th)
{
	const struct das_switch *sw;
	size_t n, i;

	sw = das_switches(as, cpu, &n);
	for (i = th->sw_at; sw && i < n; i++)
		if (sw[i].tid == tid && sw[i].pid == pid) {
			th->sw_at = i + 1;
			return &sw[i];
		}
	return NULL;
}

/*
 * @tid's name in the sideband's switch records of @cpu, or NULL: the
 * last one, where no switch-in matches (dbts_sb_switch()); perf's ":TID"
 * stands for a name not yet known.
 */
static const char *dbts_comm(struct decode_aspaces *as, int cpu, int tid)
{
	const struct das_switch *sw;
	size_t n, i;

	sw = das_switches(as, cpu, &n);
	for (i = n; sw && i-- > 0;)
		if (sw[i].tid == tid && sw[i].comm[0] && sw[i].comm[0] != ':')
			return sw[i].comm;
	return NULL;
}

/*
 * A switch record: the branches after it are thread pid/tid's, named in
 * its process's address space (the recorded command's where the
 * recording has none for it).  *@p becomes that space.
 */
static void dbts_switch(struct decode_aspaces *as, struct das_proc **p,
			const struct pt_trace_bts_record *r, int cpu,
			const struct decode_filter *f, int calls, int quiet,
			struct call_tree *ct, struct tl_track *tl,
			struct dbts_threads *th, struct outbuf *ob)
{
	int pid = (int)PT_BTS_SWITCH_PID(r->to);
	int tid = (int)PT_BTS_SWITCH_TID(r->to);
	struct das_proc *np = NULL;
	const struct das_switch *sb;
	const char *comm = NULL;
	int *d;

	if (tid == th->tid && pid == th->pid) {
		/* Its run goes on: where it ends is not known. */
		th->run_out = UINT64_MAX;
		return;
	}
	sb = dbts_sb_switch(as, cpu, pid, tid, th);
	th->run_known = !!sb;
	if (sb) {
		th->run_tsc = sb->tsc;
		th->run_out = sb->out;
	}
	th->run_k = 0;
	/*
	 * The program and name in effect at the matched switch-in (an
	 * exec between two runs renames the thread); without one, no
	 * time: the last program and name.
	 */
	if (pid > 0)
		np = sb ? das_find_at(as, pid, sb->tsc) : das_find(as, pid);
	if (np)
		*p = das_use(as, np);
	else if (pid > 0)
		*p = das_use(as, das_find(as, as->main_pid));
	if (sb && sb->comm[0] && sb->comm[0] != ':')
		comm = sb->comm;
	/* A program it exec'd away from: the tid's last name is not its. */
	if (!comm && np && np->next && np->comm[0])
		comm = np->comm;
	if (!comm)
		comm = dbts_comm(as, cpu, tid);
	if (!comm)
		comm = np && np->comm[0] ? np->comm :
		       pid ? "[unknown]" : "swapper";
	if (calls) {
		d = th->tid >= 0 ? dbts_depth(th, th->tid) : NULL;
		if (d)
			*d = ct_suspend(ct);
		d = dbts_depth(th, tid);
		ct_resume(ct, d ? *d : -1);
	}
	th->pid = pid;
	th->tid = tid;
	th->shown = dflt_task(f, pid, tid);
	if (tl && tid > 0)
		tl_track_thread(tl, pid, tid, comm);
	else if (tl)
		tl_track_thread(tl, th->tl_pid, th->tl_tid, "idle");
	if (!quiet && th->shown)
		ob_printf(ob, "[thread %s %d/%d, cpu %d]\n", comm, pid, tid,
			  cpu);
}

/*
 * Can the run that @th's records belong to hold the exec that starts
 * @next?  The sideband says when the exec was (its COMM record with the
 * exec flag) and when the run was (the switch-in its switch record
 * matched, dbts_sb_switch(), to the next switch): an exec outside it is
 * none of this run's, whatever address a return to user mode lands at.
 * Without those times (no sideband.perf, no switch records) it can.
 */
static int dbts_exec_in_run(const struct dbts_threads *th,
			    const struct das_proc *next)
{
	if (!th->run_known || !next->exec_time)
		return 1;
	return next->exec_tsc >= th->run_tsc && next->exec_tsc < th->run_out;
}

/*
 * An exec in the middle of a run (no switch record for it): the return
 * to user mode from the exec's system call, a record from a kernel
 * address to the entry of the program the process execs next (the
 * executable's or ld.so's, as mapped after the exec).  From it on,
 * addresses are that program's and the thread has its name: a line says
 * so, as a switch record's does.  The address alone does not make an
 * exec: an interrupt or exception taken at an instruction of the old
 * program that lies at the next one's entry returns there too.  So the
 * exec must be one of this run's by the sideband's times
 * (dbts_exec_in_run(), tests/host decode-bts-exec-irq); and, where it
 * is, a branch from user code to that address (two programs at one
 * place) is none, nor a return to where the last branch went (@last_to:
 * an interrupt or exception taken right there, the old program's,
 * tests/vm/bts_exec).  Records carry no time, so an interrupt's return
 * to that address earlier in the exec's own run, further on in the
 * block @last_to starts, cannot be told from the exec without the old
 * program's instructions (not done).
 */
static void dbts_exec(struct decode_aspaces *as, struct das_proc **p,
		      const struct pt_trace_bts_record *r, uint64_t last_to,
		      int cpu, int quiet, struct tl_track *tl,
		      const struct dbts_threads *th, struct outbuf *ob)
{
	struct das_proc *n;
	int i, at = 0;

	if (!*p || !(*p)->next || th->pid <= 0 || (*p)->pid != th->pid ||
	    !dbts_kernel(r->from) || dbts_kernel(r->to) || r->to == last_to ||
	    !dbts_exec_in_run(th, (*p)->next))
		return;
	n = das_use(as, (*p)->next);
	for (i = 0; n && i < n->nentry; i++)
		at |= n->entry[i] == r->to;
	if (!at)
		return;
	*p = n;
	if (!n->comm[0])
		return;
	if (tl)
		tl_track_thread(tl, th->pid, th->tid, n->comm);
	if (!quiet && th->shown)
		ob_printf(ob, "[thread %s %d/%d, cpu %d]\n", n->comm, th->pid,
			  th->tid, cpu);
}

/*
 * The records of the run that starts after the switch record at index
 * @i of @buf's @n: up to the next switch record.
 */
static uint64_t dbts_run_len(const uint8_t *buf, size_t n, size_t i)
{
	struct pt_trace_bts_record r;
	uint64_t k = 0;

	for (i++; i < n; i++, k++) {
		memcpy(&r, buf + i * PT_BTS_RECORD_SIZE, sizeof(r));
		if (dbts_is_switch(&r))
			break;
	}
	return k;
}

/*
 * The time of the next branch end of @th's run, by the sideband: BTS
 * records carry none, so a run's 2 * @run_n ends (a source and a target
 * per record) are spread evenly from its switch-in to its switch-out;
 * a run whose end the sideband does not have (still running when the
 * recording ended) counts one TSC tick per end from its switch-in.
 * 0 (no time: the timeline's clock stays) outside a run the sideband
 * places (before the first switch record, a record perf lost).
 */
static int dbts_when(struct dbts_threads *th, uint64_t *tsc)
{
	uint64_t ends = 2 * th->run_n + 1, k = ++th->run_k;

	if (!th->run_known)
		return 0;
	if (th->run_out == UINT64_MAX || th->run_out <= th->run_tsc ||
	    k >= ends)
		*tsc = th->run_tsc + k;
	else	/* span * k / ends, in 64 bits (k < ends) */
		*tsc = th->run_tsc + (th->run_out - th->run_tsc) / ends * k +
		       (th->run_out - th->run_tsc) % ends * k / ends;
	return 1;
}

/*
 * The timeline's view of a record: its from (class known or not) runs,
 * then its to, of unknown class (the next record's from says it when it
 * is the same instruction).  Time counts these, two per record, or
 * comes from the sideband's runs (@timed).
 */
static void dbts_timeline(struct das_proc *p, struct tl_track *tl,
			  const struct pt_trace_bts_record *r,
			  enum pt_insn_class cls, uint8_t len,
			  struct dbts_threads *th, int timed)
{
	const struct elf_symtab *sym = p ? &p->st : NULL;
	struct pt_insn in;
	uint64_t tsc = 0;
	int have;

	memset(&in, 0, sizeof(in));
	in.mode = ptem_64bit;
	in.ip = r->from;
	in.size = len;
	in.iclass = cls == ptic_error ? ptic_other : cls;
	have = timed && dbts_when(th, &tsc);
	tl_insn(tl, sym, &in, tsc, have);
	in.ip = r->to;
	in.size = 0;
	in.iclass = ptic_other;
	have = timed && dbts_when(th, &tsc);
	tl_insn(tl, sym, &in, tsc, have);
}

void decode_bts(struct decode_aspaces *as, const uint8_t *buf, size_t len,
		int cpu, const struct ptl_file *lf, int quiet, int calls,
		const struct decode_filter *f, struct tl_track *tl,
		struct outbuf *ob, struct decode_bts_stats *st)
{
	struct dbts_threads th = { .pid = -1, .tid = -1 };
	struct das_proc *p = das_use(as, das_find(as, as->main_pid));
	size_t n = len / PT_BTS_RECORD_SIZE, i, at = 0;
	uint64_t last_to = 0;	/* the last branch's target */
	struct call_tree ct = { 0 };
	cs_insn *ci = NULL;
	csh cs = 0;

	memset(st, 0, sizeof(*st));
	th.shown = dflt_task(f, -1, -1);
	if (tl) {
		th.tl_pid = tl->pid;
		th.tl_tid = tl->tid;
	}
	ct_restart(&ct);
	if ((calls && !quiet) || tl) {
		/* Without capstone every branch is unread (counted). */
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK &&
		    cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK)
			ci = cs_malloc(cs);
	}
	for (i = 0; i < n; i++) {
		struct pt_trace_bts_record r, nx;

		memcpy(&r, buf + i * PT_BTS_RECORD_SIZE, sizeof(r));
		dbts_gaps(lf, &at, i * PT_BTS_RECORD_SIZE, cpu, quiet, ob, st,
			  &ct, tl);
		if (dbts_is_switch(&r)) {
			st->switches++;
			dbts_switch(as, &p, &r, cpu, f, calls, quiet, &ct, tl,
				    &th, ob);
			th.run_n = dbts_run_len(buf, n, i);
			last_to = 0;
			continue;
		}
		st->records++;
		dbts_exec(as, &p, &r, last_to, cpu, quiet, tl, &th, ob);
		last_to = r.to;
		if (!th.shown) {
			st->hidden++;
			continue;
		}
		if (ci) {
			enum pt_insn_class cls;
			uint8_t ilen = 0;

			cls = dbts_class(as, p, cs, ci, r.from, &ilen);
			st->unread += cls == ptic_error;
			if (tl)
				dbts_timeline(p, tl, &r, cls, ilen, &th,
					      tl->tl->have_origin);
			if (i + 1 < n)
				memcpy(&nx, buf + (i + 1) * PT_BTS_RECORD_SIZE,
				       sizeof(nx));
			/* The next thread's branch says nothing of this. */
			if (calls && !quiet)
				dbts_call(p, &ct, ob, &r,
					  i + 1 < n && !dbts_is_switch(&nx) ?
					  &nx : NULL, cls, ilen);
		} else if ((calls && !quiet) || tl) {
			st->unread++;	/* no capstone */
		}
		if (quiet || calls)
			continue;
		ob_printf(ob, "[%03d]  ", cpu);
		dbts_addr(ob, p, r.from);
		ob_puts(ob, " => ");
		dbts_addr(ob, p, r.to);
		ob_puts(ob, "\n");
	}
	dbts_gaps(lf, &at, UINT64_MAX, cpu, quiet, ob, st, &ct, tl);
	if (tl)
		tl_track_end(tl);
	st->partial = len % PT_BTS_RECORD_SIZE;
	if (ci)
		cs_free(ci, 1);
	if (cs)
		cs_close(&cs);
	free(th.t);
}
