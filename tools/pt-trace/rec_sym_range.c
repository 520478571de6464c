// SPDX-License-Identifier: GPL-2.0
/*
 * record --filter SYMBOL, --stop-at SYMBOL: the function's address range
 * in the target's mappings, one more FILTER or STOP range for the
 * devices and a "filter"/"stop_at" sideband line (rec_sym_range.h).  A
 * COMMAND's symbols not mapped at its exec are waited for while its
 * loader (or a dlopen) maps them.  The lookup itself is rec_symbol.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rec_command.h"
#include "rec_sym_range.h"
#include "rec_symbol.h"
#include "sideband.h"
#include "tool.h"

/* The option that names a symbol of range kind @cfg. */
const char *rec_sym_opt(uint32_t cfg)
{
	return cfg == PT_ADDR_CFG_STOP ? "--stop-at" : "--filter";
}

/*
 * --filter SYMBOL, --stop-at SYMBOL found at [@a, @b) in @file: one more
 * FILTER or STOP range (sideband "filter" or "stop_at").
 */
static int rec_add_sym_range(struct rec_opts *o, FILE *sb, const char *sym,
			     uint32_t cfg, uint64_t a, uint64_t b,
			     const char *file)
{
	if (o->nranges == PT_TRACE_MAX_ADDR_RANGES) {
		ptt_err("%s %s: no address range left", rec_sym_opt(cfg), sym);
		return PTT_EXIT_USAGE;
	}
	o->range[o->nranges].a = a;
	o->range[o->nranges].b = b - 1;
	o->range[o->nranges].sym = 1;
	o->range[o->nranges++].cfg = cfg;
	ptsb_put(sb, cfg == PT_ADDR_CFG_STOP ? "stop_at" : "filter",
		 "%s 0x%llx 0x%llx %s", sym, (unsigned long long)a,
		 (unsigned long long)(b - 1), file);
	fprintf(stderr, "%s %s: 0x%llx-0x%llx in %s\n",
		cfg == PT_ADDR_CFG_STOP ? "stop at" : "filter", sym,
		(unsigned long long)a, (unsigned long long)(b - 1), file);
	return 0;
}

/* --filter SYMBOL, --stop-at SYMBOL: its range in the target's mappings. */
static int rec_resolve_sym(struct rec_opts *o, FILE *sb, const char *sym,
			   uint32_t cfg)
{
	const char *opt = rec_sym_opt(cfg);
	uint64_t a, b;
	char file[4096];
	int err;

	err = rec_symbol_resolve(o->target, sym, &a, &b, file, sizeof(file));
	if (err) {
		ptt_err("%s %s: %s in the executable mappings of process %d",
			opt, sym, err == -ENOENT ? "no such function" :
			strerror(-err), (int)o->target);
		return PTT_EXIT_USAGE;
	}
	return rec_add_sym_range(o, sb, sym, cfg, a, b, file);
}

int rec_resolve_syms(struct rec_opts *o, FILE *sb)
{
	int i, err = 0;

	for (i = 0; i < o->nsyms && !err; i++)
		err = rec_resolve_sym(o, sb, o->sym[i].name, o->sym[i].cfg);
	return err;
}

/* Where a COMMAND's --filter or --stop-at symbol was found, and when. */
struct rec_sym_where {
	uint64_t a, b;		/* [a, b) */
	char file[4096];
	int found;		/* 0 not yet, 1 at the exec stop, 2 at start */
				/* (the loader's), 3 later (a dlopen) */
};

/* rcmd_await_libs()'s questions, about @w[0..@o->nsyms). */
struct rec_sym_wait {
	const struct rec_opts *o;
	struct rec_sym_where *w;
	struct rec_run *run;
	int later;		/* the loader's start-up is over */
};

static int rec_sym_look(void *arg, pid_t pid)
{
	struct rec_sym_wait *sw = arg;
	struct rec_sym_where *w = sw->w;
	int i, left = 0;

	/*
	 * The thread that stopped: the threads share their mappings, but
	 * the first one's are empty once it has ended (pthread_exit()).
	 */
	for (i = 0; i < sw->o->nsyms; i++) {
		if (w[i].found)
			continue;
		if (!rec_symbol_resolve(pid, sw->o->sym[i].name,
					&w[i].a, &w[i].b, w[i].file,
					sizeof(w[i].file)))
			w[i].found = sw->later ? 3 : 2;
		else
			left++;
	}
	return left;
}

static int rec_sym_startup_over(void *arg)
{
	struct rec_sym_wait *sw = arg;
	int i;

	sw->later = 1;
	for (i = 0; i < sw->o->nsyms; i++)
		if (!sw->w[i].found)
			fprintf(stderr,
				"%s %s: not in %s's executable, ld.so or the libraries its loader mapped at start: waiting for %s to load it (dlopen); tracing starts then\n",
				rec_sym_opt(sw->o->sym[i].cfg), sw->o->sym[i].name,
				sw->o->cmd[0], sw->o->cmd[0]);
	return 0;
}

/* While waiting: the perf sideband's ring must not overflow. */
static void rec_sym_tick(void *arg)
{
	struct rec_sym_wait *sw = arg;

	if (sw->run->perf.ring)
		pcol_drain(&sw->run->perf);
}

/*
 * A command's --filter and --stop-at symbols, at its exec stop; those
 * in none of the files mapped there are looked for in the libraries the
 * loader maps at start and then in those the command loads itself
 * (rcmd_await_libs()), and the trace starts where the last of them was
 * mapped.  The ranges are added in the options' order.
 */
int rec_resolve_cmd_syms(struct rec_opts *o, struct rec_run *run)
{
	struct rec_sym_where w[PT_TRACE_MAX_ADDR_RANGES];
	struct rec_sym_wait sw = { .o = o, .w = w, .run = run };
	struct rcmd_look look = {
		.look = rec_sym_look, .startup_over = rec_sym_startup_over,
		.tick = rec_sym_tick, .stop = &rec_stop, .arg = &sw,
	};
	int i, err, late = 0;

	for (i = 0; i < o->nsyms; i++) {
		w[i].found = 0;
		err = rec_symbol_resolve(run->cmd.pid, o->sym[i].name, &w[i].a,
					 &w[i].b, w[i].file,
					 sizeof(w[i].file));
		if (!err)
			w[i].found = 1;
		else if (err == -ENOENT)
			late++;
		else	/* says why */
			return rec_resolve_sym(o, run->sb, o->sym[i].name,
					       o->sym[i].cfg);
	}
	err = late ? rcmd_await_libs(&run->cmd, &look, &run->child_status) : 0;
	if (err == -ECHILD)
		run->exited = 1;
	if (err == -EINTR || (err == -ECHILD &&
			      __atomic_load_n(&rec_stop, __ATOMIC_RELAXED)))
		return PTT_EXIT_INTERRUPTED;
	for (i = 0; err && i < o->nsyms; i++) {
		const char *opt = rec_sym_opt(o->sym[i].cfg);
		const char *sym = o->sym[i].name, *cmd = o->cmd[0];

		if (w[i].found)
			continue;
		if (err == -ECHILD && sw.later) {
			ptt_err("%s %s: %s ended without loading a library with that function (looked for in its executable, ld.so, the libraries its loader mapped at start and those it loaded later)",
				opt, sym, cmd);
		} else if (err == -ECHILD) {
			ptt_err("%s %s: %s ended before its loader mapped a library with that function",
				opt, sym, cmd);
		} else if (err == -ENOENT) {
			ptt_err("%s %s: no such function in the executable mappings of %s (no loader: a static program has nothing more mapped at start)",
				opt, sym, cmd);
		} else {
			ptt_err("%s %s: following %s's loader under ptrace: %s",
				opt, sym, cmd, strerror(-err));
			return PTT_EXIT_INTERNAL;
		}
	}
	if (err)
		return PTT_EXIT_USAGE;
	if (late)
		ptt_maps_write(run->sb, run->cmd.stopped, &run->maps);
	for (i = 0; i < o->nsyms && !err; i++) {
		if (w[i].found >= 2)
			fprintf(stderr,
				"%s %s: in a library %s: tracing starts there\n",
				o->sym[i].cfg == PT_ADDR_CFG_STOP ? "stop at" :
				"filter", o->sym[i].name, w[i].found == 2 ?
				"the loader mapped at start" :
				"the command loaded (dlopen)");
		err = rec_add_sym_range(o, run->sb, o->sym[i].name,
					o->sym[i].cfg, w[i].a, w[i].b,
					w[i].file);
	}
	return err;
}
