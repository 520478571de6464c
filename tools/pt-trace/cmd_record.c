// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace record: configure, start and drain /dev/ptN for a set of CPUs
 * while a command, a PID or the whole system runs, and write an output
 * directory: cpuN.pt per CPU, cpuN.loss per CPU in stream mode, and
 * sideband.txt with what a decoder needs.
 *
 * This file holds the options (--help, parsing) and the entry point,
 * which runs the recording in order; the pieces are named for their job:
 *   rec_ctx.h        the options, the per-device recorders, the run
 *   rec_device.c     /dev/ptN: open, configure, target, start
 *   rec_sym_range.c  --filter/--stop-at SYMBOL into address ranges
 *   rec_cmd_trace.c  -- COMMAND: its start at exec, its stops, its end
 *                    (rec_command.c: the ptrace mechanics under it)
 *   rec_wait.c       the loop while tracing runs, the status line
 *   rec_ring.c       ring to cpuN.pt and cpuN.loss (stream and flight)
 *   rec_hotplug.c    a trace the driver stopped, started again
 *   rec_snapshot.c   -S snapshots
 *   rec_finish.c     the end: last read, summary
 *   rec_sideband.c   sideband.txt's header, TSC and per-CPU lines
 *   rec_bts_ring.c   --bts: /dev/btsN recorded as PT (rec_bts.c: device)
 *   rec_end.c, rec_follow.c, rec_symbol.c, perf_collect.c, proc_maps.c,
 *   vdso_image.c, kernel_image.c: as their headers say.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_image.h"
#include "perf_collect.h"
#include "proc_maps.h"
#include "ptdev.h"
#include "rec_bts.h"
#include "rec_bts_ring.h"
#include "rec_cmd_trace.h"
#include "rec_command.h"
#include "rec_ctx.h"
#include "rec_device.h"
#include "rec_end.h"
#include "rec_finish.h"
#include "rec_follow.h"
#include "rec_ring.h"
#include "rec_sideband.h"
#include "rec_snapshot.h"
#include "rec_sym_range.h"
#include "rec_wait.h"
#include "sideband.h"
#include "tool.h"
#include "vdso_image.h"

#define REC_MAX_CPUS	4096

/* Set by the signal handlers (rec_ctx.h). */
int rec_stop, rec_snap;

static void rec_on_signal(int sig)
{
	__atomic_store_n(sig == SIGUSR2 ? &rec_snap : &rec_stop, 1,
			 __ATOMIC_RELAXED);
}

static void rec_usage(FILE *f)
{
	fputs("usage: pt-trace record [options] [-- COMMAND [ARGS...]]\n"
	      "\n"
	      "Trace a program, a process or the CPUs through /dev/ptN.  With a COMMAND\n"
	      "it follows the command and its children on every CPU (stream mode: all\n"
	      "of it), from its first instruction until it exits; -p follows a running\n"
	      "process and its threads (and what it forks) until they have all exited;\n"
	      "-a (or no COMMAND) traces every task on the CPUs for -d seconds or until\n"
	      "Ctrl-C (flight mode).\n"
	      "Output: DIR/cpuN.pt (raw trace per CPU), DIR/cpuN.loss (stream mode:\n"
	      "the gaps), DIR/sideband.txt (what a decoder needs) and DIR/sideband.perf\n"
	      "(perf's mmap/comm/fork/exit/switch records; as text in sideband.perf.txt).\n"
	      "A CPU that goes offline is traced again when it comes back (not with -S):\n"
	      "the new run follows in cpuN.pt after a 'restart' loss record in\n"
	      "cpuN.loss (also in flight mode).  CPUs offline at the start are not traced.\n"
	      "\n"
	      "options:\n"
	      "  -o, --output DIR        output directory (default: pt-trace.data)\n"
	      "  -a, --all-tasks         every task on the CPUs, not only COMMAND's\n"
	      "  -C, --cpu LIST          CPUs, e.g. 0 or 0,2-3 (default: all)\n"
	      "  -d, --duration SEC      stop after SEC seconds\n"
	      "  -p, --pid PID           follow this process and its threads\n"
	      "      --no-inherit        follow COMMAND's or PID's threads only, not\n"
	      "                          the processes it forks (perf's --no-inherit;\n"
	      "                          threads are always followed)\n"
	      "      --cr3 VALUE         trace only this CR3, on every task (with a\n"
	      "                          COMMAND only with -a: COMMAND never runs\n"
	      "                          in VALUE's address space)\n"
	      "      --cr3-filter        COMMAND or -p PID by its CR3 (the hardware's\n"
	      "                          CR3 filter) instead of following its tasks:\n"
	      "                          its address space on the CPUs of -C, all\n"
	      "                          its threads, not the children it forks\n"
	      "  -u, --user              user mode only      -k, --kernel  kernel only\n"
	      "      --cyc[=THRESH]      cycle-accurate mode (CYC packets)\n"
	      "      --mtc[=FREQ]        MTC timing packets, period FREQ (default 3);\n"
	      "                          on by default where the CPU has MTC and\n"
	      "                          that period, as perf's\n"
	      "      --no-mtc            no MTC packets\n"
	      "      --no-tsc            no TSC packets (on by default)\n"
	      "      --psb-period N      PSBFreq encoding: a PSB every 2^(N+11) bytes\n"
	      "      --ptw               PTWRITE packets (with FUP)\n"
	      "      --no-ret-compression  DisRETC: every RET a TIP packet, none a\n"
	      "                          TNT bit (larger traces, any decoder can\n"
	      "                          start anywhere on the call stack)\n"
	      "      --power-events      power event trace (PWRE/PWRX/EXSTOP/MWAIT)\n"
	      "      --filter A-B|SYMBOL trace only inside [A,B] or the function\n"
	      "                          SYMBOL (repeatable; looked up as --stop-at's)\n"
	      "      --stop-at A-B|SYMBOL  stop tracing on entering [A,B] or the\n"
	      "                          function SYMBOL of COMMAND (its executable,\n"
	      "                          ld.so, the libraries its loader maps at\n"
	      "                          start, else one it loads later: dlopen;\n"
	      "                          tracing starts when it is mapped) or of\n"
	      "                          -p PID (any mapped library);\n"
	      "                          flight mode: the trace ends exactly there\n"
	      "  -S, --snapshot          flight recorders; each SIGUSR2 and the end\n"
	      "                          write the newest data to DIR/snapshot.N/\n"
	      "                          (with --bts, its records too)\n"
	      "  -b, --buffer-size N     bytes per CPU, K/M/G suffix (default: driver's)\n"
	      "  -m, --mode MODE         stream (keep everything, gaps recorded; the\n"
	      "                          default with COMMAND or -p) or flight (keep\n"
	      "                          the newest buffer-full; the default with -a)\n"
	      "  -w, --watermark N       stream: wake the recorder after N bytes\n"
	      "                          (K/M suffix; default: half the buffer)\n"
	      "      --drain-interval MS stream: drain every MS milliseconds instead of\n"
	      "                          at the watermark (a slow reader: shows losses)\n"
	      "      --output-scheme S   auto (the driver's choice: ToPA where it\n"
	      "                          has several entries), topa or single (one\n"
	      "                          contiguous range, where the CPU has it)\n"
	      "      --bts               also Branch Trace Store on each CPU, in the\n"
	      "                          same mode (-m): its records (from, to) in\n"
	      "                          DIR/cpuN.bts (pt-trace dump reads them), stream\n"
	      "                          losses in DIR/cpuN.bts.loss; refused under\n"
	      "                          page table isolation (pt-trace info says)\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "While recording, a status line (seconds, MB, MB/s, losses) is shown on a\n"
	      "terminal; at the end a summary per CPU, the loss totals and the tasks.\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace record -o out -- ./workload arg     # the program, all of it\n"
	      "  pt-trace record -u -o out -- make -j4        # make and its children\n"
	      "  pt-trace record --no-inherit -u -o out -- ./server  # not its children\n"
	      "  pt-trace record -p 1234 -u --mtc --cyc -o out\n"
	      "  pt-trace record -d 2 -o out                  # all CPUs, 2 seconds\n"
	      "  pt-trace record -S -u -o out -- ./server &   # kill -USR2 $! to snapshot\n"
	      "  pt-trace record --stop-at crash_handler -o out -- ./prog\n"
	      "  pt-trace record -m stream -b 16K --drain-interval 200 -d 1 -o out\n"
	      "  pt-trace record --bts -k -C 0 -d 1 -o out     # + out/cpu0.bts\n"
	      "  pt-trace record --bts -m stream -k -C 0 -d 1 -o out\n"
	      "\n"
	      "exit status: 0 recorded, 1 bad usage, 2 output not writable,\n"
	      "3 device missing/busy/refused (the message says which and what to do),\n"
	      "4 no Intel PT on this CPU, 5 internal error, 130 interrupted before\n"
	      "tracing started.  Ctrl-C while tracing ends the recording normally (0).\n",
	      f);
}

static int rec_parse_size(const char *s, uint64_t *v)
{
	char buf[32];
	size_t n = strlen(s);
	uint64_t mul = 1;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	if (buf[n - 1] == 'K' || buf[n - 1] == 'k')
		mul = 1024;
	else if (buf[n - 1] == 'M' || buf[n - 1] == 'm')
		mul = 1024 * 1024;
	else if (buf[n - 1] == 'G' || buf[n - 1] == 'g')
		mul = 1024 * 1024 * 1024;
	if (mul != 1)
		buf[n - 1] = 0;
	if (ptt_parse_u64(buf, v) || *v > UINT64_MAX / mul)
		return -EINVAL;
	*v *= mul;
	return 0;
}

/* "0,2-3" or "all" into a CPU list. */
static int rec_parse_cpus(const char *s, int *cpus, int max)
{
	char buf[256], *tok, *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t a, b;
		char *dash = strchr(tok, '-');

		if (dash) {
			*dash = 0;
			if (ptt_parse_u64(tok, &a) || ptt_parse_u64(dash + 1, &b))
				return -EINVAL;
		} else {
			if (ptt_parse_u64(tok, &a))
				return -EINVAL;
			b = a;
		}
		if (a > b || b >= REC_MAX_CPUS)
			return -EINVAL;
		for (; a <= b; a++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = (int)a;
		}
	}
	return n ? n : -EINVAL;
}

/* Every online CPU (offline ones have no /dev/ptN). */
static int rec_online_cpus(int *cpus)
{
	char line[256] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = -1, i;

	if (f) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			n = rec_parse_cpus(line, cpus, REC_MAX_CPUS);
		}
		fclose(f);
	}
	if (n > 0)
		return n;
	n = ptdev_nr_cpus();
	if (n > REC_MAX_CPUS)
		n = REC_MAX_CPUS;
	for (i = 0; i < n; i++)
		cpus[i] = i;
	return n;
}

static int rec_parse(int argc, char **argv, struct rec_opts *o, int *cpus,
		     int *ncpus)
{
	enum { O_CR3 = 256, O_CYC, O_MTC, O_NOMTC, O_NOTSC, O_PSB, O_PTW, O_PWR,
	       O_FILTER, O_STOPAT, O_DRAIN, O_BTS, O_NORETC, O_CR3FILT,
	       O_NOINHERIT, O_SCHEME };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all-tasks", no_argument, NULL, 'a' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cr3", required_argument, NULL, O_CR3 },
		{ "cr3-filter", no_argument, NULL, O_CR3FILT },
		{ "no-inherit", no_argument, NULL, O_NOINHERIT },
		{ "no-ret-compression", no_argument, NULL, O_NORETC },
		{ "user", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "cyc", optional_argument, NULL, O_CYC },
		{ "mtc", optional_argument, NULL, O_MTC },
		{ "no-mtc", no_argument, NULL, O_NOMTC },
		{ "no-tsc", no_argument, NULL, O_NOTSC },
		{ "psb-period", required_argument, NULL, O_PSB },
		{ "ptw", no_argument, NULL, O_PTW },
		{ "power-events", no_argument, NULL, O_PWR },
		{ "filter", required_argument, NULL, O_FILTER },
		{ "stop-at", required_argument, NULL, O_STOPAT },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "watermark", required_argument, NULL, 'w' },
		{ "drain-interval", required_argument, NULL, O_DRAIN },
		{ "bts", no_argument, NULL, O_BTS },
		{ "output-scheme", required_argument, NULL, O_SCHEME },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	uint32_t v;
	int c, li;

	optind = 1;
	for (;;) {
		/* li: the long option's index, for the message at "bad" */
		li = -1;
		c = getopt_long(argc, argv, "+o:aSC:d:p:ukb:m:w:h", opts, &li);
		if (c == -1)
			break;
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'a':
			o->all = 1;
			break;
		case 'S':
			o->snapshot = 1;
			break;
		case 'C':
			*ncpus = rec_parse_cpus(optarg, cpus, REC_MAX_CPUS);
			if (*ncpus < 0)
				goto bad;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || !(o->duration > 0 && o->duration < 1e6))
				goto bad;
			break;
		case 'p':
			if (ptt_parse_u32(optarg, &v) || !v || v > INT32_MAX)
				goto bad;
			o->pid = (pid_t)v;
			break;
		case O_CR3:
			if (ptt_parse_u64(optarg, &o->cr3))
				goto bad;
			o->have_cr3 = 1;
			break;
		case 'u':
			o->user = 1;
			break;
		case 'k':
			o->kernel = 1;
			break;
		case O_BTS:
			o->bts = 1;
			break;
		case O_SCHEME:
			if (!strcmp(optarg, "auto"))
				o->output = PT_OUTPUT_AUTO;
			else if (!strcmp(optarg, "topa"))
				o->output = PT_OUTPUT_TOPA;
			else if (!strcmp(optarg, "single"))
				o->output = PT_OUTPUT_SINGLE;
			else
				goto bad;
			break;
		case O_CYC:
			o->cyc = 1;
			if (optarg && (ptt_parse_u32(optarg, &o->cyc_thresh) ||
				       o->cyc_thresh > 15))
				goto bad;
			break;
		case O_MTC:
			o->mtc = 1;
			if (optarg && (ptt_parse_u32(optarg, &o->mtc_freq) ||
				       o->mtc_freq > 15))
				goto bad;
			break;
		case O_NOMTC:
			o->mtc = 0;
			break;
		case O_NOTSC:
			o->tsc = 0;
			break;
		case O_PSB:
			if (ptt_parse_u32(optarg, &o->psb_freq) ||
			    o->psb_freq > 15)
				goto bad;
			o->psb = 1;
			break;
		case O_PTW:
			o->ptw = 1;
			break;
		case O_NORETC:
			o->disretc = 1;
			break;
		case O_CR3FILT:
			o->by_cr3 = 1;
			break;
		case O_NOINHERIT:
			o->no_inherit = 1;
			break;
		case O_PWR:
			o->pwr = 1;
			break;
		case O_STOPAT:
		case O_FILTER:
			/*
			 * not A-B: a function name, resolved at the start
			 * ("" is neither: optarg + 1 would be past its end)
			 */
			if (*optarg && !strchr(optarg + 1, '-') &&
			    (isalpha((unsigned char)*optarg) ||
			     *optarg == '_' || *optarg == '.')) {
				/* one --stop-at: the recording ends there */
				if (c == O_STOPAT && o->stop_sym) {
					ptt_err("--stop-at %s: one --stop-at SYMBOL only (%s given)",
						optarg, o->stop_sym);
					return -1;
				}
				if (o->nsyms == PT_TRACE_MAX_ADDR_RANGES) {
					ptt_err("%s %s: more symbols than address ranges (%d)",
						c == O_FILTER ? "--filter" :
						"--stop-at", optarg,
						PT_TRACE_MAX_ADDR_RANGES);
					return -1;
				}
				if (c == O_STOPAT)
					o->stop_sym = optarg;
				o->sym[o->nsyms].name = optarg;
				o->sym[o->nsyms++].cfg = c == O_FILTER ?
					PT_ADDR_CFG_FILTER : PT_ADDR_CFG_STOP;
				break;
			}
			if (o->nranges == PT_TRACE_MAX_ADDR_RANGES ||
			    ptt_parse_range(optarg, &o->range[o->nranges].a,
					    &o->range[o->nranges].b))
				goto bad;
			o->range[o->nranges++].cfg = c == O_FILTER ?
				PT_ADDR_CFG_FILTER : PT_ADDR_CFG_STOP;
			break;
		case 'b':
			if (rec_parse_size(optarg, &o->bufsize))
				goto bad;
			break;
		case 'm':
			if (!strcmp(optarg, "flight"))
				o->mode = PT_MODE_FLIGHT;
			else if (!strcmp(optarg, "stream"))
				o->mode = PT_MODE_STREAM;
			else
				goto bad;
			o->mode_set = 1;
			break;
		case 'w':
			if (rec_parse_size(optarg, &o->watermark))
				goto bad;
			break;
		case O_DRAIN:
			o->drain_ms = strtod(optarg, &end);
			if (*end || !(o->drain_ms > 0 && o->drain_ms < 1e7))
				goto bad;
			break;
		case 'h':
			rec_usage(stdout);
			return 1;
		default:
			rec_usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->pid && o->have_cr3) {
		ptt_err("use either --pid or --cr3, not both");
		return -1;
	}
	if (o->pid && o->cmd) {
		ptt_err("use either --pid or a COMMAND, not both");
		return -1;
	}
	/*
	 * Following COMMAND with a CR3 filter of VALUE on top would trace
	 * nothing: its tasks run in the address spaces its exec and forks
	 * make, whose CR3s nobody can name before they exist.  Without -a a
	 * COMMAND means "trace it" (as perf record's), so refuse rather than
	 * trace VALUE system-wide behind the user's back; -a -- COMMAND keeps
	 * COMMAND as what sets the duration.
	 */
	if (o->have_cr3 && o->cmd && !o->all) {
		ptt_err("--cr3 0x%llx -- COMMAND: COMMAND never runs in that address space (its exec and forks make its own), so following it with that CR3 filter would trace nothing",
			(unsigned long long)o->cr3);
		ptt_err("use -a --cr3 VALUE -- COMMAND to trace that address space on every CPU while COMMAND runs, or --cr3-filter -- COMMAND to trace COMMAND by its own CR3");
		return -1;
	}
	if (o->by_cr3 && ((!o->pid && !o->cmd) || o->all)) {
		ptt_err("--cr3-filter traces a COMMAND or -p PID by its CR3: give one (and no -a; --cr3 VALUE names any other address space)");
		return -1;
	}
	if (o->no_inherit && ((!o->pid && !o->cmd) || o->all || o->have_cr3 ||
			      o->by_cr3)) {
		ptt_err("--no-inherit follows a COMMAND or -p PID without its children: give one (without -a, --cr3 or --cr3-filter, which never trace the children)");
		return -1;
	}
	if (o->nsyms && !o->pid && !o->cmd) {
		ptt_err("%s %s: a symbol needs a COMMAND or -p PID to look it up in (or give an address range A-B)",
			rec_sym_opt(o->sym[0].cfg), o->sym[0].name);
		return -1;
	}
	if ((o->snapshot || o->stop_sym) && o->mode_set &&
	    o->mode != PT_MODE_FLIGHT) {
		ptt_err("%s keeps a flight recorder: leave out -m stream",
			o->snapshot ? "-S" : "--stop-at");
		return -1;
	}
	/* Following a program keeps all of it; system-wide stays as it was. */
	if (!o->mode_set && !o->snapshot && !o->stop_sym && !o->all &&
	    (o->cmd || o->pid))
		o->mode = PT_MODE_STREAM;
	if ((o->watermark || o->drain_ms) && o->mode != PT_MODE_STREAM) {
		ptt_err("--watermark and --drain-interval need -m stream");
		return -1;
	}
	return 0;
bad:
	/* the option as the user wrote it: -b, --buffer-size (not its value) */
	if (li >= 0 && opts[li].val == c)
		ptt_err("bad value for option --%s: '%s' (try --help)",
			opts[li].name, optarg ? optarg : "");
	else
		ptt_err("bad value for option -%c: '%s' (try --help)", c,
			optarg ? optarg : "");
	return -1;
}

int cmd_record(int argc, char **argv)
{
	static int cpus[REC_MAX_CPUS];
	struct rec_opts o = { .outdir = "pt-trace.data", .tsc = 1, .mtc = -1,
			      .mtc_freq = 3, .mode = PT_MODE_FLIGHT };
	static struct rec_run run;
	struct rec_bts *bts = NULL;
	struct pt_trace_caps caps;
	struct rec_cpu *rcs;
	struct sigaction sa;
	int ncpus = 0, i, ret;
	char path[4096];

	ret = rec_parse(argc, argv, &o, cpus, &ncpus);
	if (ret)
		return ret > 0 ? PTT_EXIT_OK : PTT_EXIT_USAGE;
	if (ncpus <= 0)
		ncpus = rec_online_cpus(cpus);
	rcs = calloc((size_t)(unsigned int)ncpus, sizeof(*rcs));
	if (!rcs)
		return PTT_EXIT_INTERNAL;
	for (i = 0; i < ncpus; i++) {
		rcs[i].cpu = cpus[i];
		rcs[i].fd = -1;
		rcs[i].out = -1;
	}
	run.cmd.pid = -1;
	run.stop_cpu = -1;
	run.end.pidfd = -1;
	o.target = o.pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rec_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);

	ret = rec_open_all(rcs, ncpus, &o, &caps);
	if (ret)
		goto out;
	if (o.bts) {
		ret = rec_bts_open_all(&bts, rcs, ncpus, &o);
		if (ret)
			goto out;
	}
	if (mkdir(o.outdir, 0755) && errno != EEXIST) {
		ptt_err("cannot create %s: %s", o.outdir, strerror(errno));
		ret = PTT_EXIT_INPUT;
		goto out;
	}
	if (bts) {
		ret = rec_bts_rings_open(&run, bts, ncpus, o.outdir,
					 o.mode == PT_MODE_STREAM);
		if (ret)
			goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", o.outdir, PTSB_FILE_NAME);
	run.sb = ptsb_create(path);
	if (!run.sb) {
		ptt_err("cannot create %s: %s", path, strerror(errno));
		ret = PTT_EXIT_INPUT;
		goto out;
	}
	if (rec_create_outputs(rcs, ncpus, &o)) {
		ret = PTT_EXIT_INPUT;
		goto out_sb;
	}
	ptt_vdso_record(run.sb, o.outdir);
	if (rcs[0].cfg.ctl & PT_CTL_OS)
		ptt_kernel_record(run.sb, o.outdir);
	if (__atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		ret = PTT_EXIT_INTERRUPTED;
		goto out_sb;
	}

	if (o.cmd) {
		ret = rec_start_command(rcs, ncpus, &o, &caps, &run, cpus, bts);
	} else {
		if (o.pid > 0) {
			ptsb_put(run.sb, "pid", "%d", (int)o.pid);
			ptt_maps_write(run.sb, o.pid, &run.maps);
		}
		ret = rec_resolve_syms(&o, run.sb);
		if (!ret) {
			rec_perf_open(&run, cpus, ncpus, &o);
			ret = rec_start_all(rcs, ncpus, &o, &caps, run.sb);
		}
		if (!ret && !o.all)
			rec_end_watch(&run.end, o.pid, o.following);
	}
	for (i = 0; bts && !o.cmd && i < ncpus && !ret; i++)
		ret = rec_bts_start(&bts[i]);
	if (ret)
		goto out_sb;
	if (rec_wait(rcs, ncpus, &o, &run))
		ret = PTT_EXIT_INPUT;
	/* a stop just before the command's end */
	if (o.stop_armed && run.stop_cpu < 0 && o.mode == PT_MODE_FLIGHT)
		run.stop_cpu = rec_stopped_cpu(rcs, ncpus);
	if (run.stop_cpu >= 0) {
		fprintf(stderr, "the trace stopped at %s on cpu %d\n",
			o.stop_sym ? o.stop_sym : "the --stop-at range",
			run.stop_cpu);
		ptsb_put(run.sb, "stop_at.cpu", "%d", run.stop_cpu);
	}
	/* A process traced by pid may have mapped more since the start. */
	if (o.pid > 0)
		ptt_maps_write(run.sb, o.pid, &run.maps);
	if (o.snapshot && rec_snapshot_files(rcs, ncpus, &run, &o, ++run.snaps))
		ret = PTT_EXIT_INPUT;
	i = rec_finish(rcs, ncpus, &o, run.sb);
	if (!ret)
		ret = i;
	/* The descendants the driver could not follow: say so. */
	if (o.following) {
		struct rec_follow_sum fs = { 0 };

		for (i = 0; i < ncpus; i++)
			rec_follow_cpu(&fs, rcs[i].fd, rcs[i].cpu, run.sb);
		rec_follow_report(&fs, run.sb);
	}
	for (i = 0; i < run.nbts; i++) {
		int err = rec_bts_ring_finish(&run.bts[i], &o, run.sb);

		if (!ret)
			ret = err;
	}
	if (o.snapshot)
		fprintf(stderr, "snapshot %d (the end) in %s/snapshot.%d/\n",
			run.snaps, o.outdir, run.snaps);
	rec_finish_command(&run);
	if (run.perf.ring) {
		int err;

		/* the children's records are there, but not their trace */
		if (o.no_inherit && o.following)
			run.perf.only_pid = (uint32_t)o.target;
		err = pcol_close(&run.perf, o.outdir, run.sb);

		if (err)
			ptt_warn("%s/%s: %s", o.outdir, PTPSB_FILE_NAME,
				 strerror(-err));
		fprintf(stderr, "sideband: %llu perf records (%llu bytes) in %s/%s%s\n",
			(unsigned long long)run.perf.records,
			(unsigned long long)run.perf.bytes, o.outdir,
			PTPSB_FILE_NAME, run.perf.lost ? ", SOME LOST" : "");
		if (run.perf.lost)
			ptsb_put(run.sb, "perf.lost", "%llu",
				 (unsigned long long)run.perf.lost);
	}
	if (run.cmd.pid > 0 && run.exited && WIFEXITED(run.child_status))
		ptsb_put(run.sb, "exit_status", "%d",
			 WEXITSTATUS(run.child_status));
out_sb:
	if (run.cmd.pid > 0 && !run.exited)
		rcmd_kill(&run.cmd, NULL);
	rcmd_free(&run.cmd);
	if (run.perf.ring)
		pcol_close(&run.perf, o.outdir, run.sb);
	if (fclose(run.sb) && !ret)
		ret = PTT_EXIT_INPUT;
out:
	for (i = 0; i < ncpus; i++) {
		ptdev_unmap(&rcs[i].map);
		if (rcs[i].fd >= 0)
			close(rcs[i].fd);
		if (rcs[i].out >= 0)
			close(rcs[i].out);
		if (rcs[i].lossf && fclose(rcs[i].lossf) && !ret)
			ret = PTT_EXIT_INPUT;
	}
	for (i = 0; i < run.nbts; i++) {
		/* The fd is bts[i]'s. */
		ptdev_unmap(&run.bts[i].map);
		if (run.bts[i].out >= 0)
			close(run.bts[i].out);
		if (run.bts[i].lossf && fclose(run.bts[i].lossf) && !ret)
			ret = PTT_EXIT_INPUT;
	}
	free(run.bts);
	for (i = 0; bts && i < ncpus; i++)
		rec_bts_close(&bts[i]);
	free(bts);
	rec_end_close(&run.end);
	ptt_maps_free(&run.maps);
	free(rcs);
	return ret;
}
