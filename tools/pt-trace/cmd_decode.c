// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace decode: the instruction flow of a trace, by libipt's
 * instruction decoder over ELF images (from --elf or the recorder's
 * sideband memory map).  Prints instructions with symbols, or a call
 * tree (--calls), and can write a Chrome/Perfetto timeline.
 *
 * With the recorder's loss records (cpuN.loss) each stretch between two
 * gaps is decoded on its own, from its first PSB: the data just before a
 * gap may end inside a packet and the data after it starts with a new
 * PSB+, so decoding across the gap would read the PSB as the rest of the
 * cut packet and report errors that are only the gap's.  Each gap is a
 * line in the listing and a "trace lost" span in the timeline.
 *
 * This file is the command: its options (the text in decode_usage.c),
 * the checks between them, the sideband and images set up, and the
 * order of the steps.  The state the decode_*.c files share is in
 * decode_ctx.h.  A PT trace is loaded and cut at its gaps in
 * decode_trace.c and decode_loss.c, walked by libipt's instruction
 * decoder in decode_walk.c, each instruction handled in decode_insn.c,
 * whose code runs followed in decode_follow.c, --jobs in decode_jobs*.c;
 * BTS files in decode_bts_files.c, --block-decoder in decode_block_run.c.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pt_trace.h>

#include "bts_dump.h"
#include "decode_aspace.h"
#include "decode_block_run.h"
#include "decode_bts_files.h"
#include "decode_cbr.h"
#include "decode_ctx.h"
#include "decode_filter.h"
#include "decode_out.h"
#include "decode_par.h"
#include "decode_stats.h"
#include "decode_timeline.h"
#include "decode_trace.h"
#include "decode_usage.h"
#include "decode_vmx.h"
#include "lossfile.h"
#include "outbuf.h"
#include "proc_maps.h"
#include "sideband.h"
#include "tool.h"
#include "trace_config.h"

#define DECODE_MAX_TRACES	256

/*
 * The recorded process's executable mappings from sideband.txt (map=
 * lines): the default address space, where a task without mmap records
 * in sideband.perf (or every task, without sideband.perf) is decoded.
 * With the build-ids of their map.build_id= lines: a file that is not
 * the recorded one is named (das_same_build()) and not used.
 */
static void decode_add_maps(struct das_proc *p, const struct ptsb *sb)
{
	struct ptt_map_rec m;
	size_t i;

	for (i = 0; i < sb->n; i++)
		if (ptt_map_parse(sb, i, &m) &&
		    das_add_map(p, m.path, m.start, m.end, m.pgoff,
				m.build_id, m.build_id_size))
			break;
}

/* "2.1G", "2100000000", "2100M": the TSC rate in Hz. */
static int decode_parse_hz(const char *s, double *hz)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v *= 1e3;
	else if (*end == 'M')
		v *= 1e6;
	else if (*end == 'G')
		v *= 1e9;
	if (*end && end[1])
		return -EINVAL;
	if ((*end && !strchr("kKMG", *end)) || v < 1e6 || v > 1e11)
		return -EINVAL;
	*hz = v;
	return 0;
}

int cmd_decode(int argc, char **argv)
{
	enum { O_ELF = 256, O_SB, O_CPU, O_MTC, O_NOM, O_EAX, O_EBX, O_CALLS,
	       O_TL, O_EVENTS, O_TIME, O_LOSS, O_NO_LOSS, O_HZ, O_FORMAT,
	       O_TL_MIN, O_TL_MAX,
	       O_INSN, O_LINES, O_DEBUGINFOD, O_TSC, O_PID, O_TID,
	       O_HOST_ONLY, O_GUEST_ONLY, O_VMCS, O_GUEST_IMAGE, O_GUEST_TSC,
	       O_SUMMARY, O_SYMFS, O_OPEN, O_FILTER_RANGE, O_STOP_RANGE, O_RAW,
	       O_EVENT_TIME, O_EVENT_TICK, O_STAT, O_STAT_INSN, O_STAT_BLOCKS,
	       O_BLOCK, O_INSN_DEC, O_BLOCK_SHOW, O_BLOCK_CALL, O_BLOCK_JUMP };
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, O_ELF },
		{ "raw", required_argument, NULL, O_RAW },
		{ "sideband", required_argument, NULL, O_SB },
		{ "loss", required_argument, NULL, O_LOSS },
		{ "no-loss", no_argument, NULL, O_NO_LOSS },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "mtc-freq", required_argument, NULL, O_MTC },
		{ "nom-freq", required_argument, NULL, O_NOM },
		{ "cpuid-0x15-eax", required_argument, NULL, O_EAX },
		{ "cpuid-0x15-ebx", required_argument, NULL, O_EBX },
		{ "filter-range", required_argument, NULL, O_FILTER_RANGE },
		{ "stop-range", required_argument, NULL, O_STOP_RANGE },
		{ "tsc-hz", required_argument, NULL, O_HZ },
		{ "calls", no_argument, NULL, O_CALLS },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "insn", no_argument, NULL, O_INSN },
		{ "lines", no_argument, NULL, O_LINES },
		{ "debuginfod", no_argument, NULL, O_DEBUGINFOD },
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "timeline", required_argument, NULL, O_TL },
		{ "open", no_argument, NULL, O_OPEN },
		{ "min-duration", required_argument, NULL, O_TL_MIN },
		{ "max-events", required_argument, NULL, O_TL_MAX },
		{ "events", no_argument, NULL, O_EVENTS },
		{ "event:time", no_argument, NULL, O_EVENT_TIME },
		{ "event:tick", no_argument, NULL, O_EVENT_TICK },
		{ "stat", no_argument, NULL, O_STAT },
		{ "stat:insn", no_argument, NULL, O_STAT_INSN },
		{ "stat:blocks", no_argument, NULL, O_STAT_BLOCKS },
		{ "block-decoder", no_argument, NULL, O_BLOCK },
		{ "insn-decoder", no_argument, NULL, O_INSN_DEC },
		{ "block:show-blocks", no_argument, NULL, O_BLOCK_SHOW },
		{ "block:end-on-call", no_argument, NULL, O_BLOCK_CALL },
		{ "block:end-on-jump", no_argument, NULL, O_BLOCK_JUMP },
		{ "time", required_argument, NULL, O_TIME },
		{ "tsc", no_argument, NULL, O_TSC },
		{ "pid", required_argument, NULL, O_PID },
		{ "tid", required_argument, NULL, O_TID },
		{ "cpus", required_argument, NULL, 'C' },
		{ "host-only", no_argument, NULL, O_HOST_ONLY },
		{ "guest-only", no_argument, NULL, O_GUEST_ONLY },
		{ "vmcs", required_argument, NULL, O_VMCS },
		{ "guest-image", required_argument, NULL, O_GUEST_IMAGE },
		{ "guest-tsc", required_argument, NULL, O_GUEST_TSC },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct decode_ctx c;
	struct decode_stats total = { 0 };
	struct decode_trace *tr = NULL;
	struct das_file files[64];
	const char *sb_path = NULL, *cpu_arg = NULL;
	const char *num_arg[4] = { NULL, NULL, NULL, NULL };
	const char *range_arg[4];
	uint32_t range_cfg[4];
	int nrange = 0;
	struct ptsb sb = { 0 };
	const char *source;
	char dir[4096];
	double hz;
	int shown_traces = 0;
	int nfile = 0, opt, err, ret = PTT_EXIT_OK, have_sb, sb_cpu = -1, i;

	memset(&c, 0, sizeof(c));
	c.asp = &c.as;
	c.o.jobs = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "qhC:j:", opts, NULL)) != -1) {
		switch (opt) {
		case O_ELF:
		case O_RAW:
			if (nfile == 64) {
				ptt_err("at most 64 --elf and --raw files");
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			files[nfile].raw = opt == O_RAW;
			files[nfile++].arg = optarg;
			break;
		case O_SB:
			sb_path = optarg;
			break;
		case 'j': {
			char *e;
			unsigned long j = strtoul(optarg, &e, 10);

			if (*e || !j || j > DPAR_MAX_JOBS) {
				ptt_err("--jobs: '%s' is not a count of threads from 1 to %d",
					optarg, DPAR_MAX_JOBS);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			c.o.jobs = (unsigned int)j;
			break;
		}
		case O_LOSS:
			c.o.loss_path = optarg;
			break;
		case O_NO_LOSS:
			c.o.no_loss = 1;
			break;
		case O_CPU:
			cpu_arg = optarg;
			break;
		case O_MTC:
			num_arg[0] = optarg;
			break;
		case O_NOM:
			num_arg[1] = optarg;
			break;
		case O_EAX:
			num_arg[2] = optarg;
			break;
		case O_EBX:
			num_arg[3] = optarg;
			break;
		case O_FILTER_RANGE:
		case O_STOP_RANGE:
			if (nrange == 4) {
				ptt_err("at most 4 --filter-range and --stop-range (IA32_RTIT_ADDR0..3)");
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			range_cfg[nrange] = opt == O_FILTER_RANGE ?
					    PT_ADDR_CFG_FILTER : PT_ADDR_CFG_STOP;
			range_arg[nrange++] = optarg;
			break;
		case O_HZ:
			if (decode_parse_hz(optarg, &c.o.tsc_hz)) {
				ptt_err("--tsc-hz: bad rate '%s' (Hz, or with k/M/G, 1 MHz to 100 GHz)",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_CALLS:
			c.o.calls = 1;
			break;
		case O_INSN:
			c.o.fmt.insn = 1;
			break;
		case O_LINES:
			c.o.fmt.lines = 1;
			c.as.want_lines = 1;
			break;
		case O_SYMFS:
			c.as.symfs = optarg;
			break;
		case O_DEBUGINFOD:
			c.as.debuginfod = 1;
			break;
		case O_FORMAT:
			c.o.fmt.ip_only = !strcmp(optarg, "ip");
			c.o.fmt.perf = !strcmp(optarg, "perf");
			if (!c.o.fmt.ip_only && !c.o.fmt.perf &&
			    strcmp(optarg, "raw")) {
				ptt_err("--format: unknown format '%s' (known: perf, raw, ip)",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			c.o.fmt_given = 1;
			break;
		case O_TL:
			c.o.timeline = optarg;
			break;
		case O_OPEN:
			c.o.open_timeline = 1;
			break;
		case O_TL_MIN:
			if (tl_parse_duration(optarg, &c.o.tl_min_ns)) {
				ptt_err("--min-duration: '%s' is not a duration such as 500ns, 2us, 1ms",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_TL_MAX:
			if (ptt_parse_u64(optarg, &c.o.tl_max) || !c.o.tl_max) {
				ptt_err("--max-events: '%s' is not a positive number",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_EVENTS:
			c.o.events = 1;
			break;
		case O_EVENT_TIME:
			c.o.events = 1;
			c.o.event_time = 1;
			break;
		case O_EVENT_TICK:
			c.o.events = 1;
			c.o.ticks = 1;
			break;
		case O_STAT:
			c.o.stat |= DECODE_STAT_ALL;
			break;
		case O_STAT_INSN:
			c.o.stat |= DECODE_STAT_INSN;
			break;
		case O_STAT_BLOCKS:
			c.o.stat |= DECODE_STAT_BLOCKS;
			break;
		/* the last of the two wins, as ptxed's */
		case O_BLOCK:
			c.o.block = 1;
			c.o.insn_dec = 0;
			break;
		case O_INSN_DEC:
			c.o.insn_dec |= c.o.block;	/* it came after */
			c.o.block = 0;
			break;
		case O_BLOCK_SHOW:
			c.o.show_blocks = 1;
			break;
		case O_BLOCK_CALL:
			c.o.end_on_call = 1;
			break;
		case O_BLOCK_JUMP:
			c.o.end_on_jump = 1;
			break;
		case O_TSC:
			c.o.fmt.show_time = 1;
			break;
		case O_TIME:
			if (dflt_parse_time(&c.o.filter, optarg)) {
				ptt_err("--time: '%s' is not a range A,B of seconds as decode prints them (e.g. 12.5,13 or 12.5, or ,13); the TSC column is --tsc",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_PID:
		case O_TID:
			if (opt == O_PID ?
			    dflt_parse_ids(optarg, c.o.filter.pid, &c.o.filter.npid) :
			    dflt_parse_ids(optarg, c.o.filter.tid, &c.o.filter.ntid)) {
				ptt_err("--%s: '%s' is not a list of ids such as 1234,1235 (at most %d)",
					opt == O_PID ? "pid" : "tid", optarg,
					DFLT_MAX_IDS);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case 'C':
			if (dflt_parse_cpus(&c.o.filter, optarg)) {
				ptt_err("-C/--cpus: '%s' is not a CPU list such as 0,2-3",
					optarg);
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_HOST_ONLY:
			c.vmx.host_only = 1;
			break;
		case O_GUEST_ONLY:
			c.vmx.guest_only = 1;
			break;
		case O_SUMMARY:
			c.vmx.summary = 1;
			break;
		case O_VMCS:
			if (dvmx_add_vmcs(&c.vmx, optarg)) {
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_GUEST_TSC:
			if (dvmx_add_guest_tsc(&c.vmx, optarg)) {
				ret = PTT_EXIT_USAGE;
				goto out_vmx;
			}
			break;
		case O_GUEST_IMAGE:
			if (dvmx_add_guest_image(&c.vmx, optarg)) {
				ret = PTT_EXIT_INPUT;
				goto out_vmx;
			}
			break;
		case 'q':
			c.o.quiet = 1;
			break;
		case 'h':
			decode_usage(stdout);
			ret = PTT_EXIT_OK;
			goto out_vmx;
		default:
			decode_usage(stderr);
			ret = PTT_EXIT_USAGE;
			goto out_vmx;
		}
	}
	if (c.o.open_timeline && !c.o.timeline) {
		ptt_err("--open shows the --timeline file: give --timeline FILE.json too");
		ret = PTT_EXIT_USAGE;
		goto out_vmx;
	}
	c.ntraces = argc - optind;
	ret = PTT_EXIT_USAGE;
	if (c.ntraces < 1 || c.ntraces > DECODE_MAX_TRACES) {
		ptt_err("expected one trace file, or up to %d of one recording (try --help)",
			DECODE_MAX_TRACES);
		goto out_vmx;
	}
	if (c.o.fmt.ip_only && (c.o.calls || c.o.quiet || c.vmx.summary)) {
		ptt_err("--format=ip prints instructions: it goes with neither --calls, -q nor --summary");
		goto out_vmx;
	}
	if (c.o.loss_path && (c.ntraces > 1 || c.o.no_loss)) {
		ptt_err("--loss FILE names the loss file of one trace: give one trace and no --no-loss");
		goto out_vmx;
	}
	if (decode_block_refused(&c))
		goto out_vmx;
	/* --stat alone: the counts the decoder has, as ptxed's */
	if (c.o.stat == DECODE_STAT_ALL)
		c.o.stat |= DECODE_STAT_INSN |
			    (c.o.block ? DECODE_STAT_BLOCKS : 0);
	if (c.vmx.host_only + c.vmx.guest_only + !!c.vmx.nsel > 1) {
		ptt_err("--host-only, --guest-only and --vmcs each choose what is shown: give one of them (--vmcs is repeatable)");
		goto out_vmx;
	}
	ret = PTT_EXIT_OK;
	if (dvmx_init(&c.vmx)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_vmx;
	}

	pt_config_init(&c.config);
	/* the flags' variants share their bits: set the decoder's own */
	if (c.o.block) {
		c.config.flags.variant.block.enable_tick_events = !!c.o.ticks;
		c.config.flags.variant.block.end_on_call = !!c.o.end_on_call;
		c.config.flags.variant.block.end_on_jump = !!c.o.end_on_jump;
	} else {
		c.config.flags.variant.insn.enable_tick_events = !!c.o.ticks;
	}
	if (sb_path) {
		err = ptsb_read(sb_path, &sb);
		if (err) {
			ptt_err("cannot read sideband %s: %s", sb_path,
				err == -EINVAL ? "not a pt-trace sideband file" :
				strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_vmx;
		}
		have_sb = 1;
	} else {
		have_sb = !ptt_find_sideband(argv[optind], &sb, &sb_cpu);
	}
	if (have_sb) {
		uint64_t ctl, jf, periods;

		ptt_config_from_sideband(&c.config, &sb);
		/* no configurable PSB: PSB+ at every enable (decode_follow_psb()) */
		c.psb_enables = !ptsb_get_u64(&sb, "caps.psb_periods", &periods) &&
				!periods;
		c.o.cyc = !ptsb_get_u64(&sb, "ctl", &ctl) &&
			  (ctl & PT_CTL_CYCEN);
		/* record's follow.join_failures: processes never traced */
		if (!ptsb_get_u64(&sb, "follow.join_failures", &jf) && jf)
			ptt_warn("%llu tasks could not be followed at the recording (sideband follow.join_failures): processes forked by the traced ones ran untraced, so their code is in no trace here (their sideband.perf records may be)",
				 (unsigned long long)jf);
		/* KVM's guest TSC offset/ratio, for guests without --guest-tsc */
		dvmx_tsc_from_sideband(&c.vmx, &sb);
	}
	if (cpu_arg && ptt_config_set_cpu(&c.config, cpu_arg)) {
		ptt_err("--cpu wants FAMILY/MODEL[/STEPPING], e.g. 6/85/4");
		ret = PTT_EXIT_USAGE;
		goto out_sb;
	}
	/* Given ranges replace the sideband's: they are the whole set. */
	if (nrange)
		memset(&c.config.addr_filter, 0, sizeof(c.config.addr_filter));
	for (i = 0; i < nrange; i++) {
		if (ptt_config_add_range_arg(&c.config, range_cfg[i],
					     range_arg[i])) {
			ptt_err("%s: '%s' is not a range A-B (A <= B)",
				range_cfg[i] == PT_ADDR_CFG_FILTER ?
				"--filter-range" : "--stop-range", range_arg[i]);
			ret = PTT_EXIT_USAGE;
			goto out_sb;
		}
	}
	for (i = 0; i < 4; i++) {
		static const char *const names[] = { "--mtc-freq", "--nom-freq",
			"--cpuid-0x15-eax", "--cpuid-0x15-ebx" };
		uint32_t v;

		if (!num_arg[i])
			continue;
		if (ptt_parse_u32(num_arg[i], &v) ||
		    (i == 0 && v > 15) || (i == 1 && v > 255)) {
			ptt_err("%s: bad value '%s'", names[i], num_arg[i]);
			ret = PTT_EXIT_USAGE;
			goto out_sb;
		}
		if (i == 0)
			c.config.mtc_freq = (uint8_t)v;
		else if (i == 1)
			c.config.nom_freq = (uint8_t)v;
		else if (i == 2)
			c.config.cpuid_0x15_eax = v;
		else
			c.config.cpuid_0x15_ebx = v;
	}

	tr = calloc((size_t)c.ntraces, sizeof(*tr));
	c.as.dflt.image = pt_image_alloc(NULL);
	if (!c.as.dflt.image || !tr) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_image;
	}
	for (i = 0; i < nfile; i++) {
		err = das_add_file(c.as.dflt.image, &c.as.dflt.st, &files[i]);
		if (err && files[i].raw) {
			ptt_err("cannot load --raw %s: %s", files[i].arg,
				err == -EDESTADDRREQ ? "give it as FILE[:FROM[-TO]]:BASE" :
				err == -ERANGE ? "the range FROM-TO is not in the file" :
				err == -EDOM ? "TO is not above FROM" :
				err == -EINVAL ? "not a regular file" :
				err == -EIO ? "libipt refused it" : strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_image;
		}
		if (err) {
			ptt_err("cannot load ELF %s: %s", files[i].arg,
				err == -ENOEXEC ? "not a 64-bit little-endian ELF file" :
				strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_image;
		}
	}
	c.as.files = files;
	c.as.nfile = nfile;
	/* the recording's directory: sideband.perf, the vdso copy */
	snprintf(dir, sizeof(dir), "%s", sb_path ? sb_path : argv[optind]);
	snprintf(c.sb_dir, sizeof(c.sb_dir), "%s", dirname(dir));
	if (have_sb)
		decode_add_maps(&c.as.dflt, &sb);
	decode_tsc_hz(&c, have_sb ? &sb : NULL, &hz, &source);
	err = das_load(&c.as, c.sb_dir, have_sb ? &sb : NULL, hz);
	if (err)
		ptt_warn("cannot read %s/sideband.perf: %s; every process is decoded in one address space (the sideband.txt map= lines and --elf)",
			 c.sb_dir, err == -EINVAL ? "not a sideband.perf file" :
			 err == -EPROTO ? "written by a newer pt-trace" : strerror(-err));
	/* the block decoder knows no task: its lines are the raw ones */
	if (!c.o.fmt_given)
		c.o.fmt.perf = c.as.have_perf && !c.o.block;
	/* BTS files carry their own switch records (decode_bts.c). */
	if ((c.o.filter.npid || c.o.filter.ntid) && !c.as.ncpu &&
	    !bts_dump_is_bts(argv[optind])) {
		ptt_err("--pid/--tid need the recording's context-switch records (sideband.perf beside the traces, written by pt-trace record): %s",
			c.as.have_perf ? "it has none" : "there is none");
		ret = PTT_EXIT_USAGE;
		goto out_image;
	}
	if (!das_use(&c.as, &c.as.dflt)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_image;
	}
	if (c.o.block && bts_dump_is_bts(argv[optind])) {
		ptt_err("--block-decoder decodes PT traces: this is a BTS file; decode without --block-decoder");
		ret = PTT_EXIT_USAGE;
		goto out_image;
	}
	if (bts_dump_is_bts(argv[optind])) {
		ret = decode_bts_files(&c, argv + optind, have_sb ? &sb : NULL);
		goto out_image;
	}

	ret = decode_load_traces(&c, tr, argv + optind, have_sb ? &sb : NULL);
	if (ret)
		goto out_traces;
	if (c.o.timeline) {
		struct decode_cbr cbr;

		dcbr_init(&cbr, have_sb ? &sb : NULL,
			  num_arg[1] ? c.config.nom_freq : 0);
		c.bus_mhz = cbr.bus_mhz;
		ret = decode_open_timeline(&c, tr, have_sb ? &sb : NULL);
		if (ret)
			goto out_traces;
	}
	if (ob_init(&c.ob, STDOUT_FILENO, 1 << 20) ||
	    decode_fmt_init(&c.o.fmt)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out_tl;
	}
	/* ptxed's line for a --cpu it knows no errata of (quiet or not) */
	err = cpu_arg && !c.o.fmt.ip_only ? ptt_config_errata_err(&c.config) : 0;
	if (err < 0)
		ob_printf(&c.ob, "[0, 0: config error: %s]\n",
			  pt_errstr(pt_errcode(err)));
	if (c.o.block) {
		ret = decode_blocks(&c, tr, files, nfile, &total);
		shown_traces = 1;
		goto out_stat;
	}
	for (i = 0; i < c.ntraces && !ret; i++) {
		if (!dflt_cpu(&c.o.filter, tr[i].cpu))
			continue;
		shown_traces++;
		ret = decode_trace(&c, &tr[i]);
		decode_sum(&total, &tr[i].stats);
		if (c.ntraces > 1 && !c.o.fmt.ip_only &&
		    (c.o.quiet || c.o.calls || c.o.timeline))
			decode_print_stats(&c.ob, tr[i].path, &tr[i].stats);
	}
out_stat:
	/* ptxed's statistics lines (even when quiet), instead of ours. */
	if (c.o.stat & DECODE_STAT_INSN)
		ob_printf(&c.ob, "insn: %llu.\n",
			  (unsigned long long)total.insns);
	if (c.o.stat & DECODE_STAT_BLOCKS)
		ob_printf(&c.ob, "blocks:\t%llu.\n",
			  (unsigned long long)total.blocks);
	if (!c.o.stat && !c.o.fmt.ip_only &&
	    (c.o.quiet || c.o.calls || c.o.timeline || c.vmx.summary))
		decode_print_stats(&c.ob, NULL, &total);
	if (c.vmx.summary) {
		struct decode_cbr cbr;

		dcbr_init(&cbr, have_sb ? &sb : NULL,
			  num_arg[1] ? c.config.nom_freq : 0);
		for (i = 0; i < c.ntraces; i++) {
			dcbr_scan(&cbr, tr[i].buf, tr[i].len);
			dvmx_packets(&c.vmx, tr[i].buf, tr[i].len);
		}
		dcbr_print(&cbr, &c.ob);
		dvmx_print_summary(&c.vmx, &c.ob);
	}
	ob_free(&c.ob);
	ret = decode_write_error(&c.ob, ret);
	decode_fmt_free(&c.o.fmt);
	if (c.o.fmt.ip_only && (total.errors || total.gaps || total.dropped))
		ptt_warn("%llu decode errors, %llu gaps, %llu bytes dropped: not in the --format=ip listing (decode without it to see where)",
			 (unsigned long long)total.errors,
			 (unsigned long long)total.gaps,
			 (unsigned long long)total.dropped);
	if (!ret && !shown_traces) {
		ptt_err("-C/--cpus: no trace of those CPUs among the files given (cpuN.pt names the CPU)");
		ret = PTT_EXIT_USAGE;
	} else if (!ret && !total.insns) {
		decode_nothing(&total);
		ret = PTT_EXIT_INPUT;
	} else if (!ret && !total.shown) {
		ptt_warn("%llu instructions decoded, none of them passed the filters (--pid/--tid/--time, --host-only/--guest-only/--vmcs)",
			 (unsigned long long)total.insns);
	}
out_tl:
	if (c.tl.f && tl_close(&c.tl)) {
		ptt_err("writing %s failed", c.o.timeline);
		if (!ret)
			ret = PTT_EXIT_INPUT;
	}
out_traces:
	for (i = 0; i < c.ntraces; i++) {
		if (tr[i].buf)
			ptt_unmap_file(tr[i].buf, tr[i].len);
		ptl_free(&tr[i].lf);
	}
out_image:
	free(tr);
	das_free(&c.as);
	free(c.threads);
	free(c.cr3s);
out_sb:
	ptsb_free(&sb);
out_vmx:
	/* -C's list: every way out, the option errors' too */
	dflt_free(&c.o.filter);
	if (c.vmx.nr_no_vmcs)
		ptt_warn("%llu guest PIPs (NR=1) came with no VMCS loaded (none since the PSB, or the all-ones base): their context has no VMCS",
			 (unsigned long long)c.vmx.nr_no_vmcs);
	if (c.vmx.nr_no_pip > 10)
		ptt_warn("%llu VM entries had no PIP (the first 10 are named above): their guests' contexts are inferred",
			 (unsigned long long)c.vmx.nr_no_pip);
	if (c.vmx.nr_no_exit_pip > 10)
		ptt_warn("%llu VM exits had no PIP (the first 10 are named above): the host's context after them is inferred",
			 (unsigned long long)c.vmx.nr_no_exit_pip);
	if (c.vmx.no_image)
		ptt_warn("%llu decode errors in guests without code: give --guest-image VMCS:PATH[@ADDR] (pt-trace contexts lists the guests' VMCS)",
			 (unsigned long long)c.vmx.no_image);
	dvmx_free(&c.vmx);
	if (!ret && c.o.open_timeline)
		ret = tl_view(c.o.timeline);
	return ret;
}
