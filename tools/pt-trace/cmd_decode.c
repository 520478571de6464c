// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace decode: the instruction flow of a trace, by libipt's
 * instruction decoder over ELF images (from --elf or the recorder's
 * sideband memory map).  Prints instructions with symbols, or a call
 * tree (--calls), and can write a Chrome/Perfetto timeline.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode_out.h"
#include "dump_format.h"
#include "elf_image.h"
#include "outbuf.h"
#include "sideband.h"
#include "tool.h"
#include "trace_config.h"

struct decode_opts {
	int calls;
	int events;
	int show_time;
	int quiet;
	const char *timeline;
	int tid;
};

struct decode_stats {
	uint64_t insns;
	uint64_t errors;
	uint64_t events;
};

static void decode_usage(FILE *f)
{
	fputs("usage: pt-trace decode [options] FILE.pt\n"
	      "\n"
	      "Reconstruct the executed instructions of a trace with libipt's\n"
	      "instruction decoder.  Code comes from the ELF files given with --elf and\n"
	      "from the memory map in sideband.txt next to the trace (pt-trace record\n"
	      "writes it); CPU and timing parameters come from the same sideband or\n"
	      "from the options.\n"
	      "\n"
	      "options:\n"
	      "      --elf FILE[:BASE]     load FILE's PT_LOAD segments (at BASE for\n"
	      "                            position-independent files); repeatable\n"
	      "      --sideband FILE       sideband file (default: next to the trace)\n"
	      "      --cpu F/M[/S]         CPU family/model/stepping, e.g. 6/85/4\n"
	      "      --mtc-freq N          IA32_RTIT_CTL.MTCFreq used when recording\n"
	      "      --nom-freq N          nominal (max non-turbo) ratio, MSR_PLATFORM_INFO[15:8]\n"
	      "      --cpuid-0x15-eax N    CPUID.15H:EAX (TSC/core crystal denominator)\n"
	      "      --cpuid-0x15-ebx N    CPUID.15H:EBX (numerator)\n"
	      "      --calls               print the call/return tree, not instructions\n"
	      "      --timeline FILE.json  write function spans as Chrome trace JSON\n"
	      "                            (open in ui.perfetto.dev or chrome://tracing)\n"
	      "      --events              also print decoder events ([enabled], ...)\n"
	      "      --time                prefix instructions with the estimated TSC\n"
	      "  -q, --quiet               print only errors and the summary\n"
	      "  -h, --help                this text\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace decode --elf hello --cpu 6/85/4 --mtc-freq 3 --nom-freq 37 \\\n"
	      "                  --cpuid-0x15-eax 2 --cpuid-0x15-ebx 308 pt.bin\n"
	      "  pt-trace decode --calls out/cpu0.pt\n"
	      "  pt-trace decode --timeline trace.json -q out/cpu0.pt\n"
	      "\n"
	      "exit status: 0 decoded, 1 bad usage, 2 unreadable trace or ELF,\n"
	      "5 internal error.  Decode errors are printed as [OFFSET, IP: error: ...]\n"
	      "and decoding resumes at the next PSB.\n", f);
}

static int decode_add_elf(struct pt_image *image, struct elf_symtab *st,
			  const char *arg)
{
	char path[4096], *colon;
	uint64_t base = 0, bias = 0, min;
	int n;

	if (strlen(arg) >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, arg);
	colon = strrchr(path, ':');
	if (colon && !ptt_parse_u64(colon + 1, &base)) {
		*colon = 0;
		n = elf_image_min_vaddr(path, &min);
		if (n)
			return n;
		bias = base - min;
	}
	n = elf_image_add(image, st, path, bias);
	return n < 0 ? n : 0;
}

/* Executable mappings of the traced process, from the recorder. */
static void decode_add_maps(struct pt_image *image, struct elf_symtab *st,
			    const struct ptsb *sb)
{
	size_t pos = 0;
	const char *v;

	while ((v = ptsb_next(sb, "map", &pos))) {
		unsigned long long start, end, pgoff;
		uint64_t min;
		int n = 0;

		if (sscanf(v, "%lli %lli %lli %n", &start, &end, &pgoff,
			   &n) != 3 || !n || v[n] != '/' || pgoff)
			continue;
		/* The map at file offset 0 places the whole file. */
		if (elf_image_min_vaddr(v + n, &min))
			continue;
		if (elf_image_add(image, st, v + n, start - min) < 0)
			ptt_warn("cannot load %s from the sideband map", v + n);
	}
}

static void decode_print_event(struct outbuf *ob, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		ob_printf(ob, "[enabled at %016llx]\n",
			  (unsigned long long)ev->variant.enabled.ip);
		break;
	case ptev_disabled:
		ob_puts(ob, "[disabled]\n");
		break;
	case ptev_async_disabled:
		ob_printf(ob, "[disabled at %016llx]\n",
			  (unsigned long long)ev->variant.async_disabled.at);
		break;
	case ptev_overflow:
		ob_printf(ob, "[overflow, resumed at %016llx]\n",
			  (unsigned long long)ev->variant.overflow.ip);
		break;
	case ptev_paging:
		ob_printf(ob, "[paging, cr3 %016llx%s]\n",
			  (unsigned long long)ev->variant.paging.cr3,
			  ev->variant.paging.non_root ? ", nr" : "");
		break;
	case ptev_tsx:
		ob_printf(ob, "[tsx %s]\n", ev->variant.tsx.aborted ? "abort" :
			  ev->variant.tsx.speculative ? "begin" : "commit");
		break;
	case ptev_exec_mode:
		ob_printf(ob, "[exec mode: %s]\n",
			  ev->variant.exec_mode.mode == ptem_64bit ? "64-bit" :
			  ev->variant.exec_mode.mode == ptem_32bit ? "32-bit" :
			  ev->variant.exec_mode.mode == ptem_16bit ? "16-bit" :
			  "unknown");
		break;
	case ptev_stop:
		ob_puts(ob, "[stopped]\n");
		break;
	case ptev_vmcs:
	case ptev_async_vmcs:
		ob_printf(ob, "[vmcs, base %016llx]\n",
			  (unsigned long long)ev->variant.vmcs.base);
		break;
	case ptev_cbr:
		ob_printf(ob, "[cbr: %x]\n", ev->variant.cbr.ratio);
		break;
	case ptev_tick:
		ob_printf(ob, "[tick at %016llx]\n",
			  (unsigned long long)ev->variant.tick.ip);
		break;
	case ptev_ptwrite:
		ob_printf(ob, "[ptwrite: %llx]\n",
			  (unsigned long long)ev->variant.ptwrite.payload);
		break;
	case ptev_exstop:
		ob_puts(ob, "[exstop]\n");
		break;
	case ptev_mwait:
		ob_puts(ob, "[mwait]\n");
		break;
	case ptev_pwre:
		ob_puts(ob, "[pwre]\n");
		break;
	case ptev_pwrx:
		ob_puts(ob, "[pwrx]\n");
		break;
	default:
		ob_printf(ob, "[event %d]\n", ev->type);
		break;
	}
}

static void decode_print_insn(struct outbuf *ob, const struct decode_opts *o,
			      const struct elf_symtab *st,
			      const struct pt_insn *insn, uint64_t tsc)
{
	char sym[256];
	char *p = ob_reserve(ob), *start;
	uint8_t i;

	if (o->show_time)
		p += sprintf(p, "%016llx  ", (unsigned long long)tsc);
	p = pd_hex_fixed(p, insn->ip, 16);
	*p++ = ' ';
	*p++ = ' ';
	start = p;
	for (i = 0; i < insn->size && i < sizeof(insn->raw); i++) {
		p = pd_hex_fixed(p, insn->raw[i], 2);
		*p++ = ' ';
	}
	while (p - start < 46)
		*p++ = ' ';
	decode_symbolize(st, insn->ip, sym, sizeof(sym));
	if (sym[0])
		p += sprintf(p, "<%s>", sym);
	while (p > start && p[-1] == ' ')
		p--;
	*p++ = '\n';
	ob_commit(ob, p);
}

static void decode_print_call(struct outbuf *ob, const struct elf_symtab *st,
			      uint64_t ip, int depth)
{
	char sym[256];

	decode_symbolize(st, ip, sym, sizeof(sym));
	ob_printf(ob, "%*s%016llx %s\n", 2 * (depth > 64 ? 64 : depth),
		  "", (unsigned long long)ip, sym);
}

static void decode_error(struct outbuf *ob, struct pt_insn_decoder *dec,
			 uint64_t ip, int err, struct decode_stats *stats)
{
	uint64_t offset = 0;

	stats->errors++;
	pt_insn_get_offset(dec, &offset);
	ob_printf(ob, "[%llx, %llx: error: %s]\n", (unsigned long long)offset,
		  (unsigned long long)ip, pt_errstr(pt_errcode(err)));
}

static void decode_walk(struct pt_insn_decoder *dec, struct outbuf *ob,
			const struct decode_opts *o,
			const struct elf_symtab *st, struct timeline *tl,
			struct decode_stats *stats)
{
	int depth = 0, pending_call = 0;
	uint64_t call_next = 0, last_ip = 0;

	for (;;) {
		struct pt_insn insn;
		int status;

		status = pt_insn_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos)
				decode_error(ob, dec, 0, status, stats);
			return;
		}
		memset(&insn, 0, sizeof(insn));
		for (;;) {
			uint64_t tsc = 0;
			int have_tsc;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				stats->events++;
				if (o->events)
					decode_print_event(ob, &ev);
			}
			if (status < 0)
				break;
			last_ip = insn.ip;
			/* On error libipt may leave @insn untouched. */
			memset(&insn, 0, sizeof(insn));
			insn.iclass = ptic_error;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (insn.iclass != ptic_error) {
				uint32_t lost_mtc, lost_cyc;

				have_tsc = pt_insn_time(dec, &tsc, &lost_mtc,
							&lost_cyc) >= 0;
				stats->insns++;
				if (o->calls) {
					if (pending_call && insn.ip != call_next)
						decode_print_call(ob, st, insn.ip,
								  ++depth);
					else if (stats->insns == 1)
						decode_print_call(ob, st, insn.ip,
								  0);
				} else if (!o->quiet) {
					decode_print_insn(ob, o, st, &insn, tsc);
				}
				pending_call = insn.iclass == ptic_call ||
					       insn.iclass == ptic_far_call;
				call_next = insn.ip + insn.size;
				if ((insn.iclass == ptic_return ||
				     insn.iclass == ptic_far_return) && depth > 0)
					depth--;
				if (tl->f)
					tl_insn(tl, st, &insn, tsc, have_tsc);
			}
			if (status < 0)
				break;
		}
		if (status == -pte_eos)
			return;
		decode_error(ob, dec, insn.iclass != ptic_error ? insn.ip :
			     last_ip, status, stats);
	}
}

int cmd_decode(int argc, char **argv)
{
	enum { O_ELF = 256, O_SB, O_CPU, O_MTC, O_NOM, O_EAX, O_EBX, O_CALLS,
	       O_TL, O_EVENTS, O_TIME };
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, O_ELF },
		{ "sideband", required_argument, NULL, O_SB },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "mtc-freq", required_argument, NULL, O_MTC },
		{ "nom-freq", required_argument, NULL, O_NOM },
		{ "cpuid-0x15-eax", required_argument, NULL, O_EAX },
		{ "cpuid-0x15-ebx", required_argument, NULL, O_EBX },
		{ "calls", no_argument, NULL, O_CALLS },
		{ "timeline", required_argument, NULL, O_TL },
		{ "events", no_argument, NULL, O_EVENTS },
		{ "time", no_argument, NULL, O_TIME },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct decode_opts o = { 0 };
	struct decode_stats stats = { 0 };
	struct elf_symtab st = { 0 };
	struct timeline tl = { 0 };
	struct pt_insn_decoder *dec = NULL;
	struct pt_config config;
	struct pt_image *image;
	const char *elfs[64], *sb_path = NULL, *path, *cpu_arg = NULL;
	const char *num_arg[4] = { NULL, NULL, NULL, NULL };
	struct ptsb sb = { 0 };
	int nelf = 0, c, err, ret = PTT_EXIT_OK, have_sb, sb_cpu = -1, i;
	uint8_t *buf = NULL;
	size_t len;
	struct outbuf ob;
	double ticks_per_us;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case O_ELF:
			if (nelf == 64) {
				ptt_err("at most 64 --elf files");
				return PTT_EXIT_USAGE;
			}
			elfs[nelf++] = optarg;
			break;
		case O_SB:
			sb_path = optarg;
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
		case O_CALLS:
			o.calls = 1;
			break;
		case O_TL:
			o.timeline = optarg;
			break;
		case O_EVENTS:
			o.events = 1;
			break;
		case O_TIME:
			o.show_time = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			decode_usage(stdout);
			return PTT_EXIT_OK;
		default:
			decode_usage(stderr);
			return PTT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		ptt_err("expected exactly one trace file (try --help)");
		return PTT_EXIT_USAGE;
	}
	path = argv[optind];

	pt_config_init(&config);
	if (sb_path) {
		err = ptsb_read(sb_path, &sb);
		if (err) {
			ptt_err("cannot read sideband %s: %s", sb_path,
				err == -EINVAL ? "not a pt-trace sideband file" :
				strerror(-err));
			return PTT_EXIT_INPUT;
		}
		have_sb = 1;
	} else {
		have_sb = !ptt_find_sideband(path, &sb, &sb_cpu);
	}
	if (have_sb)
		ptt_config_from_sideband(&config, &sb);
	if (cpu_arg && ptt_config_set_cpu(&config, cpu_arg)) {
		ptt_err("--cpu wants FAMILY/MODEL[/STEPPING], e.g. 6/85/4");
		ret = PTT_EXIT_USAGE;
		goto out_sb;
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
			config.mtc_freq = (uint8_t)v;
		else if (i == 1)
			config.nom_freq = (uint8_t)v;
		else if (i == 2)
			config.cpuid_0x15_eax = v;
		else
			config.cpuid_0x15_ebx = v;
	}

	image = pt_image_alloc(NULL);
	if (!image) {
		ret = PTT_EXIT_INTERNAL;
		goto out_sb;
	}
	for (i = 0; i < nelf; i++) {
		err = decode_add_elf(image, &st, elfs[i]);
		if (err) {
			ptt_err("cannot load ELF %s: %s", elfs[i],
				err == -ENOEXEC ? "not a 64-bit little-endian ELF file" :
				strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_image;
		}
	}
	if (have_sb)
		decode_add_maps(image, &st, &sb);
	elf_symtab_finish(&st);

	err = ptt_load_file(path, &buf, &len);
	if (err) {
		ptt_err("cannot read %s: %s", path, strerror(-err));
		ret = PTT_EXIT_INPUT;
		goto out_image;
	}
	config.begin = buf;
	config.end = buf + len;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec || pt_insn_set_image(dec, image) < 0) {
		ptt_err("libipt could not set up the instruction decoder");
		ret = PTT_EXIT_INTERNAL;
		goto out_buf;
	}
	/* TSC ticks at the nominal frequency: ratio x 100 MHz. */
	ticks_per_us = config.nom_freq ? config.nom_freq * 100.0 : 0;
	if (o.timeline) {
		err = tl_open(&tl, o.timeline, ticks_per_us,
			      sb_cpu >= 0 ? sb_cpu : 0);
		if (err) {
			ptt_err("cannot create %s: %s", o.timeline,
				strerror(-err));
			ret = PTT_EXIT_INPUT;
			goto out_buf;
		}
	}
	if (ob_init(&ob, STDOUT_FILENO, 1 << 20)) {
		ret = PTT_EXIT_INTERNAL;
		goto out_tl;
	}
	decode_walk(dec, &ob, &o, &st, &tl, &stats);
	if (o.quiet || o.calls || o.timeline)
		ob_printf(&ob, "# %llu instructions, %llu events, %llu errors\n",
			  (unsigned long long)stats.insns,
			  (unsigned long long)stats.events,
			  (unsigned long long)stats.errors);
	ob_free(&ob);
out_tl:
	if (tl.f && tl_close(&tl)) {
		ptt_err("writing %s failed", o.timeline);
		ret = PTT_EXIT_INPUT;
	}
out_buf:
	pt_insn_free_decoder(dec);
	free(buf);
out_image:
	pt_image_free(image);
	elf_symtab_free(&st);
out_sb:
	ptsb_free(&sb);
	return ret;
}
