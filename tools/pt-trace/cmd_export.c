// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace export --perf: a recording as a perf.data file that perf's own
 * Intel PT decoder reads (perf script --itrace, perf report).  perf needs:
 * an event attribute of the intel_pt PMU type whose config holds the
 * RTIT_CTL bits that were traced with; PERF_RECORD_AUXTRACE_INFO naming
 * that type, perf's time conversion and which config bits mean TSC, MTC,
 * CYC and no-return-compression; the process's COMM and MMAP2 records so
 * that it finds the code; one PERF_RECORD_AUXTRACE per CPU followed by
 * that CPU's trace; and, so that it can tell and find the right binaries
 * (perf buildid-list, ~/.debug), their build-ids and the kernel's in the
 * HEADER_BUILD_ID feature section.  The field meanings are those of perf's
 * tools/perf/util/intel-pt.c and auxtrace.c; nothing is taken from them
 * but the layout they read.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "elf_image.h"
#include "perf_data.h"
#include "perfsb.h"
#include "proc_maps.h"
#include "sideband.h"
#include "tool.h"
#include "trace_config.h"

/* perf's auxtrace_info priv[] for intel_pt (its enum, by position). */
enum {
	EXP_PMU_TYPE, EXP_TIME_SHIFT, EXP_TIME_MULT, EXP_TIME_ZERO,
	EXP_CAP_USER_TIME_ZERO, EXP_TSC_BIT, EXP_NORETCOMP_BIT,
	EXP_HAVE_SCHED_SWITCH, EXP_SNAPSHOT_MODE, EXP_PER_CPU_MMAPS,
	EXP_MTC_BIT, EXP_MTC_FREQ_BITS, EXP_TSC_CTC_N, EXP_TSC_CTC_D,
	EXP_CYC_BIT, EXP_MAX_NONTURBO_RATIO, EXP_FILTER_STR_LEN,
	EXP_PRIV_MAX
};

/*
 * The intel_pt PMU's config bits are RTIT_CTL's own (its sysfs format:
 * cyc=config:1, pwr_evt:4, fup_on_ptw:5, mtc:9, tsc:10, noretcomp:11,
 * ptw:12, branch:13, mtc_period:14-17, cyc_thresh:19-22, psb_period:24-27).
 */
#define CTL_CYC		BIT_ULL(1)
#define CTL_OS		BIT_ULL(2)
#define CTL_USER	BIT_ULL(3)
#define CTL_MTC		BIT_ULL(9)
#define CTL_TSC		BIT_ULL(10)
#define CTL_NORETCOMP	BIT_ULL(11)
#define CTL_MTC_FREQ	(0xfULL << 14)
#define CTL_CONFIG	(CTL_CYC | BIT_ULL(4) | BIT_ULL(5) | CTL_MTC | \
			 CTL_TSC | CTL_NORETCOMP | BIT_ULL(12) | BIT_ULL(13) | \
			 CTL_MTC_FREQ | (0xfULL << 19) | (0xfULL << 24))

/*
 * The PMU type number the attribute and AUXTRACE_INFO agree on.  perf
 * matches the two, not the number against this machine's PMUs, so the
 * file decodes anywhere; 8 is what intel_pt usually gets.
 */
#define EXP_PMU_TYPE_NR	8
#define EXP_ATTR_ID	1

struct exp_time {
	uint64_t zero;
	uint32_t mult;
	uint16_t shift;
};

static void export_usage(FILE *f)
{
	fputs("usage: pt-trace export --perf [-o FILE] DIR\n"
	      "\n"
	      "Write the recording in DIR as a perf.data file (DIR/perf.data unless\n"
	      "-o) that perf's Intel PT decoder reads: perf script --itrace=...,\n"
	      "perf report.  It holds each CPU's trace (PERF_RECORD_AUXTRACE), the\n"
	      "intel_pt PMU settings it was recorded with (RTIT_CTL bits, TSC to\n"
	      "perf time conversion, MTC/CYC/TSC/noretcomp, CPUID 0x15 ratio), and\n"
	      "the traced process's comm and executable mappings (perf reads the\n"
	      "binaries from their recorded paths; the vdso from DIR's copy), with\n"
	      "the build-ids of those binaries and of the kernel (perf\n"
	      "buildid-list; perf takes a binary changed since from its build-id\n"
	      "cache, ~/.debug, by them).\n"
	      "When the recording saved the kernel, the kernel's map and each saved\n"
	      "module's ([NAME], with the module's recorded build-id) too: give perf\n"
	      "the kernel's code with --vmlinux and it relocates it to where the\n"
	      "recorded kernel was (KASLR).\n"
	      "\n"
	      "options:\n"
	      "      --perf         perf.data (the only format so far)\n"
	      "  -o, --output FILE  write FILE instead of DIR/perf.data\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace record -o out -- ./workload\n"
	      "  pt-trace export --perf out\n"
	      "  perf script -i out/perf.data --itrace=i0ns -F comm,tid,ip,sym\n"
	      "  perf report -i out/perf.data --itrace=i100us --stdio\n"
	      "  perf buildid-list -i out/perf.data\n"
	      "  perf script -i out/perf.data --itrace=i0ns \\\n"
	      "      --vmlinux /usr/lib/debug/boot/vmlinux-$(uname -r)\n"
	      "\n"
	      "exit status: 0 written, 1 bad usage, 2 unreadable recording or\n"
	      "unwritable output, 5 internal error.\n", f);
}

/*
 * perf time (ns) = zero + (tsc >> shift) * mult + ((tsc & mask) * mult
 * >> shift): the kernel's perf_event_mmap_page conversion.  Made from the
 * recording's TSC rate, with the largest shift that keeps mult in 32 bits,
 * and zero such that perf time is CLOCK_MONOTONIC at the first TSC sample
 * (the timebase of perf's own records).
 */
static uint64_t exp_tsc_to_ns(const struct exp_time *t, uint64_t tsc)
{
	uint64_t quot = tsc >> t->shift;
	uint64_t rem = tsc & ((1ULL << t->shift) - 1);

	return t->zero + quot * t->mult + ((rem * t->mult) >> t->shift);
}

static void exp_time_conv(const struct ptsb *sb, const struct pt_config *c,
			  struct exp_time *t)
{
	unsigned long long cpu, mono, tsc, err;
	const char *src, *start;
	double hz, m = 0;
	int shift;

	if (ptt_tsc_hz(sb, c, &hz, &src))
		ptt_warn("the sideband has no TSC rate (tsc_hz=, cpuid15.*, nom_freq=): perf's times assume 1 GHz");
	for (shift = 31; shift > 0; shift--) {
		m = 1e9 * (double)(1ULL << shift) / hz + 0.5;
		if (m < 4294967296.0)
			break;
	}
	t->shift = (uint16_t)shift;
	t->mult = (uint32_t)m;
	t->zero = 0;
	start = ptsb_get(sb, "tsc.start");
	if (start && sscanf(start, "%llu %llu %llu %llu", &cpu, &mono, &tsc,
			    &err) == 4)
		t->zero = mono - exp_tsc_to_ns(t, tsc);
}

/*
 * perf's intel_pt AUXTRACE_INFO; @sw: the context switch records there
 * are (0, PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE).
 */
static void exp_auxtrace_info(struct pdw *w, const struct exp_time *t,
			      const struct pt_config *c, uint32_t sw)
{
	uint64_t rec[2 + EXP_PRIV_MAX];
	uint64_t *priv = rec + 1;

	memset(rec, 0, sizeof(rec));
	rec[0] = PDW_AUXTRACE_INTEL_PT;		/* type; reserved: 0 */
	priv[EXP_PMU_TYPE] = EXP_PMU_TYPE_NR;
	priv[EXP_TIME_SHIFT] = t->shift;
	priv[EXP_TIME_MULT] = t->mult;
	priv[EXP_TIME_ZERO] = t->zero;
	priv[EXP_CAP_USER_TIME_ZERO] = 1;
	priv[EXP_TSC_BIT] = CTL_TSC;
	priv[EXP_NORETCOMP_BIT] = CTL_NORETCOMP;
	/*
	 * With switch records perf takes each CPU's thread from them (2:
	 * the traced tasks' own, 3: CPU-wide); else from the AUXTRACE tid.
	 */
	priv[EXP_HAVE_SCHED_SWITCH] = sw == PERF_RECORD_SWITCH ? 2 :
				      sw == PERF_RECORD_SWITCH_CPU_WIDE ? 3 : 0;
	priv[EXP_SNAPSHOT_MODE] = 0;
	priv[EXP_PER_CPU_MMAPS] = 1;
	priv[EXP_MTC_BIT] = CTL_MTC;
	priv[EXP_MTC_FREQ_BITS] = CTL_MTC_FREQ;
	priv[EXP_TSC_CTC_N] = c->cpuid_0x15_ebx;
	priv[EXP_TSC_CTC_D] = c->cpuid_0x15_eax;
	priv[EXP_CYC_BIT] = CTL_CYC;
	priv[EXP_MAX_NONTURBO_RATIO] = c->nom_freq;
	priv[EXP_FILTER_STR_LEN] = 0;
	pdw_record(w, PDW_RECORD_AUXTRACE_INFO, 0, rec,
		   sizeof(uint64_t) * (1 + EXP_PRIV_MAX), NULL);
}

/* A string NUL-padded to 8 bytes at @p; returns the bytes used. */
static size_t exp_put_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = strnlen(s, max - 1), len = (n + 8) & ~(size_t)7;

	memset(p, 0, len);
	memcpy(p, s, n);
	return len;
}

static void exp_comm(struct pdw *w, const struct ptsb *sb,
		     const struct pdw_who *who)
{
	const char *cmd = ptsb_get(sb, "cmd"), *exe = ptsb_get(sb, "exe");
	char path[PATH_MAX], *base;
	uint8_t rec[8 + 16];
	size_t len;

	/* The kernel's comm: the executable's name, 15 characters. */
	if (!exe && !cmd)
		return;
	snprintf(path, sizeof(path), "%s", exe ? exe : cmd);
	path[strcspn(path, " ")] = 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	memcpy(rec, &who->pid, 4);
	memcpy(rec + 4, &who->tid, 4);
	len = exp_put_str(rec + 8, base, 16);
	pdw_record(w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, rec,
		   8 + len, who);
}

/*
 * The file perf should read for a mapping: the path, or for [vdso] the
 * recording's copy (vdso= in the sideband), as an absolute path in @buf.
 */
static const char *exp_map_path(const struct ptsb *sb, const char *dir,
				const char *path, char *buf, size_t len)
{
	const char *vdso = ptsb_get(sb, "vdso");
	char *abs;

	if (strcmp(path, "[vdso]") || !vdso || strchr(vdso, '/'))
		return path;
	snprintf(buf, len, "%s/%s", dir, vdso);
	abs = realpath(buf, NULL);
	if (!abs)
		return path;
	snprintf(buf, len, "%s", abs);
	free(abs);
	return buf;
}

/*
 * The build-id of a mapped file for the HEADER_BUILD_ID section: the one
 * the recording saw (@id, @size: the kernel's mmap record) or else the
 * file's own now, as perf record takes them at its end.  A file without
 * one (not ELF, gone, [anon]) gets no entry.
 */
static void exp_build_id(struct pdw *w, const char *path, const uint8_t *id,
			 size_t size)
{
	uint8_t buf[20];
	int n;

	if (!size) {
		n = elf_image_build_id(path, buf, sizeof(buf));
		if (n <= 0)
			return;
		id = buf;
		size = (size_t)n;
	}
	pdw_build_id(w, PERF_RECORD_MISC_USER, id, size, path);
}

/* A build-id in hex into @id: its bytes, or 0 when @hex is not one. */
static size_t exp_parse_build_id(const char *hex, uint8_t *id, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (n < max && isxdigit((unsigned char)hex[2 * n]) &&
	       isxdigit((unsigned char)hex[2 * n + 1]) &&
	       sscanf(hex + 2 * n, "%2x", &b) == 1)
		id[n++] = (uint8_t)b;
	return n < 4 || hex[2 * n] ? 0 : n;
}

/*
 * The kernel's build-id (kernel.build_id=HEX) under perf's name for the
 * kernel, and each module's (kernel.module.build_id=NAME HEX) under the
 * name its map has ([NAME], exp_module_mmaps()), as perf record writes
 * them (kernel mode), so that perf buildid-list names them and perf can
 * tell a module's .ko of another build.
 */
static void exp_kernel_build_ids(struct pdw *w, const struct ptsb *sb)
{
	const char *hex = ptsb_get(sb, "kernel.build_id"), *v;
	char mod[64], name[66], val[160];
	size_t n, pos = 0;
	uint8_t id[20];

	if (hex) {
		n = exp_parse_build_id(hex, id, sizeof(id));
		if (n)
			pdw_build_id(w, PERF_RECORD_MISC_KERNEL, id, n,
				     "[kernel.kallsyms]");
		else
			ptt_warn("kernel.build_id=%s is not a build-id (hex): perf gets none for the kernel",
				 hex);
	}
	while ((v = ptsb_next(sb, "kernel.module.build_id", &pos))) {
		n = sscanf(v, "%63s %159s", mod, val) == 2 ?
		    exp_parse_build_id(val, id, sizeof(id)) : 0;
		if (!n) {
			ptt_warn("kernel.module.build_id=%s is not NAME HEX: perf gets no build-id for that module",
				 v);
			continue;
		}
		snprintf(name, sizeof(name), "[%s]", mod);
		pdw_build_id(w, PERF_RECORD_MISC_KERNEL, id, n, name);
	}
}

/*
 * An MMAP2 of task @bpid/@btid (device, inode: 0), and the file's
 * build-id (@id: the recorded one, if any) in the header.
 */
static void exp_mmap2(struct pdw *w, const struct pdw_who *who,
		      uint32_t bpid, uint32_t btid, uint64_t start,
		      uint64_t len, uint64_t pgoff, uint32_t prot,
		      uint32_t flags, const char *path, const uint8_t *id,
		      size_t id_size)
{
	uint8_t rec[64 + PATH_MAX + 8];
	uint64_t u64[3] = { start, len, pgoff };
	uint32_t u32[2] = { prot, flags };

	memset(rec, 0, 64);
	memcpy(rec, &bpid, 4);
	memcpy(rec + 4, &btid, 4);
	memcpy(rec + 8, u64, sizeof(u64));
	memcpy(rec + 56, u32, sizeof(u32));
	pdw_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, rec,
		   64 + exp_put_str(rec + 64, path, PATH_MAX), who);
	exp_build_id(w, path, id, id_size);
}

/* One MMAP2 per map= line, with its map.build_id= if recorded. */
static void exp_mmaps(struct pdw *w, const struct ptsb *sb, const char *dir,
		      const struct pdw_who *who)
{
	struct ptt_map_rec m;
	char buf[PATH_MAX];
	size_t i;

	for (i = 0; i < sb->n; i++) {
		if (!ptt_map_parse(sb, i, &m) || m.end <= m.start)
			continue;
		exp_mmap2(w, who, who->pid, who->tid, m.start, m.end - m.start,
			  m.pgoff, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			  exp_map_path(sb, dir, m.path, buf, sizeof(buf)),
			  m.build_id, m.build_id_size);
	}
}

/*
 * A kernel-mode MMAP of pid -1 (perf's host kernel) over [@start,
 * @start + @len), file offset @pgoff, named @name: the kernel's map and
 * each module's.
 */
static void exp_kernel_mode_mmap(struct pdw *w, const struct pdw_who *who,
				 uint64_t start, uint64_t len, uint64_t pgoff,
				 const char *name)
{
	struct pdw_who k = *who;
	uint64_t u64[3] = { start, len, pgoff };
	uint8_t rec[32 + 128];

	k.pid = UINT32_MAX;
	k.tid = 0;
	memset(rec, 0, sizeof(rec));
	memcpy(rec, &k.pid, 4);
	memcpy(rec + 4, &k.tid, 4);
	memcpy(rec + 8, u64, sizeof(u64));
	pdw_record(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, rec,
		   32 + exp_put_str(rec + 32, name, 128), &k);
}

/*
 * The kernel's map as perf record writes it (perf's
 * perf_event__synthesize_kernel_mmap): an MMAP of pid -1 named
 * "[kernel.kallsyms]_text" over the saved text (kernel.text=START LENGTH
 * FILE), pgoff the address of _text (the reference symbol perf relocates
 * its kallsyms or vmlinux by, named after the prefix; _stext when
 * kallsyms has no _text).
 */
static void exp_kernel_mmap(struct pdw *w, const struct ptsb *sb,
			    const char *dir, const struct pdw_who *who)
{
	const char *text = ptsb_get(sb, "kernel.text");
	const char *syms = ptsb_get(sb, "kernel.kallsyms");
	unsigned long long start, len, ref = 0;
	char name[96];
	char path[PATH_MAX], line[512];
	FILE *f;

	if (!text || sscanf(text, "%llx %llx", &start, &len) != 2 || !len ||
	    !syms || strchr(syms, '/'))
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, syms);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, sym[64];

		if (sscanf(line, "%llx %c %63s", &a, &t, sym) != 3)
			continue;
		if (!a || (strcmp(sym, "_text") && (strcmp(sym, "_stext") || ref)))
			continue;
		ref = a;
		snprintf(name, sizeof(name), "[kernel.kallsyms]%s", sym);
		if (!strcmp(sym, "_text"))
			break;
	}
	fclose(f);
	if (!ref) {
		ptt_warn("%s has neither _text nor _stext: perf gets no kernel map and cannot place kernel code",
			 path);
		return;
	}
	exp_kernel_mode_mmap(w, who, start, len, ref, name);
}

/*
 * Each module's map as perf record writes it when it cannot name the
 * module's .ko (perf_event__synthesize_modules): an MMAP of pid -1,
 * kernel mode, over the module's range from the recording's
 * kernel.module=NAME START LENGTH FILE lines (the recorder's copy of
 * /proc/modules), named "[NAME]", which perf takes for a module.
 */
static void exp_module_mmaps(struct pdw *w, const struct ptsb *sb,
			     const struct pdw_who *who)
{
	size_t pos = 0;
	const char *v;

	while ((v = ptsb_next(sb, "kernel.module", &pos))) {
		unsigned long long start, len;
		char name[66], mod[64];

		if (sscanf(v, "%63s %llx %llx", mod, &start, &len) != 3 || !len)
			continue;	/* NAME unavailable: WHY */
		snprintf(name, sizeof(name), "[%s]", mod);
		exp_kernel_mode_mmap(w, who, start, len, 0, name);
	}
}

/*
 * The recorder's perf records (sideband.perf): each task's COMM, MMAP2,
 * FORK, EXIT and context switches, written again with this file's
 * sample_id trailer; a [vdso] mapping names the recording's copy.
 * Returns the PERF_RECORD_SWITCH* type seen last, or 0.
 */
static uint32_t exp_perf_records(struct pdw *w, const struct ptpsb_file *f,
				 const struct ptsb *sb, const char *dir)
{
	size_t pos = 0, idn = ptpsb_id_size(f->hdr.sample_type);
	struct ptpsb_event ev;
	uint32_t sw = 0;

	for (;;) {
		size_t at = pos < f->hdr.header_size ? f->hdr.header_size : pos;
		struct perf_event_header h;
		struct pdw_who who;
		char buf[PATH_MAX];

		if (ptpsb_next(f, &pos, &ev) <= 0)
			break;
		if (!w) {	/* only looking for switches */
			if (ev.type == PERF_RECORD_SWITCH ||
			    ev.type == PERF_RECORD_SWITCH_CPU_WIDE)
				sw = ev.type;
			continue;
		}
		memcpy(&h, f->buf + at, sizeof(h));
		who.pid = ev.pid;
		who.tid = ev.tid;
		who.time = ev.time;
		who.cpu = ev.cpu;
		switch (ev.type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			exp_mmap2(w, &who, ev.bpid, ev.btid, ev.addr, ev.len,
				  ev.pgoff, ev.prot ? ev.prot : PROT_READ | PROT_EXEC,
				  ev.mflags ? ev.mflags : MAP_PRIVATE,
				  exp_map_path(sb, dir, ev.name, buf, sizeof(buf)),
				  ev.build_id, ev.build_id_size);
			break;
		case PERF_RECORD_SWITCH:
		case PERF_RECORD_SWITCH_CPU_WIDE:
		case PERF_RECORD_COMM:
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			if (ev.type == PERF_RECORD_SWITCH ||
			    ev.type == PERF_RECORD_SWITCH_CPU_WIDE)
				sw = ev.type;
			if (h.size < sizeof(h) + idn)
				break;
			/* the body as the kernel wrote it, then our trailer */
			pdw_record(w, ev.type, ev.misc, f->buf + at + sizeof(h),
				   h.size - sizeof(h) - idn, &who);
			break;
		default:
			break;
		}
	}
	return sw;
}

/*
 * The first TSC packet's value, 0 when there is none.  perf's decoder
 * takes a TSC packet's upper byte from the AUXTRACE record's reference
 * TSC (perf record's rdtsc when it copied the buffer) and ignores TSC
 * packets without one, so each buffer gets its first TSC as reference.
 */
static uint64_t exp_first_tsc(const uint8_t *buf, size_t len,
			      const struct pt_config *base)
{
	struct pt_config c = *base;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint64_t tsc = 0;

	c.begin = (uint8_t *)buf;
	c.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&c);
	if (!dec)
		return 0;
	while (!tsc && pt_pkt_sync_forward(dec) >= 0)
		while (pt_pkt_next(dec, &pkt, sizeof(pkt)) >= 0)
			if (pkt.type == ppt_tsc) {
				tsc = pkt.payload.tsc.tsc;
				break;
			}
	pt_pkt_free_decoder(dec);
	return tsc;
}

/* Each cpu.file=N NAME trace in turn; @fn sees its bytes. */
struct exp_trace {
	int cpu;
	const uint8_t *buf;
	size_t len;
	uint64_t first_tsc;
};

typedef void (*exp_trace_fn)(struct exp_trace *t, void *arg);

static int exp_each_trace(const struct ptsb *sb, const char *dir,
			  const struct pt_config *config, exp_trace_fn fn,
			  void *arg)
{
	const char *v;
	size_t pos = 0;
	int n = 0;

	while ((v = ptsb_next(sb, "cpu.file", &pos))) {
		char name[256], path[PATH_MAX];
		struct exp_trace t;
		uint8_t *buf;
		size_t len;
		int cpu, err;

		if (sscanf(v, "%d %255s", &cpu, name) != 2 || cpu < 0 ||
		    strchr(name, '/'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		err = ptt_load_file(path, &buf, &len);
		if (err) {
			ptt_err("cannot read %s: %s", path, strerror(-err));
			return PTT_EXIT_INPUT;
		}
		t.cpu = cpu;
		t.buf = buf;
		t.len = len;
		t.first_tsc = exp_first_tsc(buf, len, config);
		fn(&t, arg);
		free(buf);
		n++;
	}
	if (!n) {
		ptt_err("%s/%s names no trace (cpu.file=): is %s a pt-trace recording?",
			dir, PTSB_FILE_NAME, dir);
		return PTT_EXIT_INPUT;
	}
	return PTT_EXIT_OK;
}

struct exp_write {
	struct pdw *w;
	const struct pdw_who *who;
};

/* PERF_RECORD_AUXTRACE and the data: one queue per CPU. */
static void exp_write_trace(struct exp_trace *t, void *arg)
{
	struct exp_write *x = arg;
	uint64_t rec[5];
	uint32_t u32[4];

	/* size (8-aligned, the padding is PAD packets), offset, reference */
	rec[0] = (t->len + 7) & ~(uint64_t)7;
	rec[1] = 0;
	rec[2] = t->first_tsc;
	u32[0] = (uint32_t)t->cpu;	/* idx */
	u32[1] = x->who->tid;
	u32[2] = (uint32_t)t->cpu;
	u32[3] = 0;
	memcpy(&rec[3], u32, sizeof(u32));
	pdw_record(x->w, PDW_RECORD_AUXTRACE, 0, rec, sizeof(rec), NULL);
	pdw_bytes(x->w, t->buf, t->len);
}

/* The earliest first TSC of all traces. */
static void exp_min_tsc(struct exp_trace *t, void *arg)
{
	uint64_t *min = arg;

	if (t->first_tsc && (!*min || t->first_tsc < *min))
		*min = t->first_tsc;
}

static int export_perf(const char *dir, const char *out)
{
	struct perf_event_attr attr;
	struct pdw_who who = { .pid = UINT32_MAX, .tid = UINT32_MAX };
	struct pt_config config;
	struct exp_time t;
	char sbpath[PATH_MAX], outpath[PATH_MAX];
	uint64_t ctl = 0, pid, tsc0 = 0;
	char pfpath[PATH_MAX];
	struct ptpsb_file pf;
	int have_pf;
	uint32_t sw;
	struct exp_write x;
	struct ptsb sb;
	struct pdw w;
	int err, ret;

	snprintf(sbpath, sizeof(sbpath), "%s/%s", dir, PTSB_FILE_NAME);
	err = ptsb_read(sbpath, &sb);
	if (err) {
		ptt_err("cannot read %s: %s; give the directory 'pt-trace record -o DIR' wrote",
			sbpath, err == -EINVAL ? "not a pt-trace sideband file" :
			strerror(-err));
		return PTT_EXIT_INPUT;
	}
	pt_config_init(&config);
	ptt_config_from_sideband(&config, &sb);
	if (ptsb_get_u64(&sb, "ctl", &ctl))
		ptt_warn("%s has no ctl=: perf is told TSC, MTC and CYC were off", sbpath);
	if (!ptsb_get_u64(&sb, "pid", &pid) && pid && pid < INT32_MAX) {
		who.pid = (uint32_t)pid;
		who.tid = who.pid;
	}
	exp_time_conv(&sb, &config, &t);
	snprintf(pfpath, sizeof(pfpath), "%s/%s", dir, PTPSB_FILE_NAME);
	err = ptpsb_load(pfpath, &pf);
	have_pf = !err;
	if (err && err != -ENOENT)
		ptt_warn("cannot use %s (%s): perf gets the comm and mappings of sideband.txt only",
			 pfpath, err == -EPROTO ? "a newer format" : strerror(-err));
	if (have_pf && (pf.hdr.flags & PTPSB_TIME_ZERO) &&
	    pf.hdr.clock == PTPSB_CLOCK_PERF) {
		/* The kernel's own conversion, that the records' times use. */
		t.zero = pf.hdr.time_zero;
		t.mult = pf.hdr.time_mult;
		t.shift = pf.hdr.time_shift;
	}
	sw = have_pf ? exp_perf_records(NULL, &pf, &sb, dir) : 0;
	/*
	 * The process's records go just before the first trace timestamp:
	 * perf's ordered events hand them over before it decodes.
	 */
	ret = exp_each_trace(&sb, dir, &config, exp_min_tsc, &tsc0);
	if (ret) {
		ptsb_free(&sb);
		if (have_pf)
			ptpsb_free(&pf);
		return ret;
	}
	who.time = tsc0 ? exp_tsc_to_ns(&t, tsc0) - 1 : 0;

	memset(&attr, 0, sizeof(attr));
	attr.type = EXP_PMU_TYPE_NR;
	attr.size = sizeof(attr);
	attr.config = ctl & CTL_CONFIG;
	attr.sample_type = PDW_SAMPLE_TYPE;
	attr.sample_period = 1;
	attr.sample_id_all = 1;
	attr.exclude_kernel = !(ctl & CTL_OS);
	attr.exclude_user = !(ctl & CTL_USER);
	attr.exclude_hv = 1;
	attr.context_switch = sw != 0;
	attr.exclude_guest = 1;

	if (!out) {
		snprintf(outpath, sizeof(outpath), "%s/perf.data", dir);
		out = outpath;
	}
	err = pdw_open(&w, out, &attr, EXP_ATTR_ID);
	if (err) {
		ptt_err("cannot create %s: %s", out, strerror(-err));
		ptsb_free(&sb);
		if (have_pf)
			ptpsb_free(&pf);
		return PTT_EXIT_INPUT;
	}
	exp_auxtrace_info(&w, &t, &config, sw);
	exp_kernel_mmap(&w, &sb, dir, &who);
	exp_module_mmaps(&w, &sb, &who);
	exp_kernel_build_ids(&w, &sb);
	if (have_pf) {
		exp_perf_records(&w, &pf, &sb, dir);
	} else if (who.pid != UINT32_MAX) {
		exp_comm(&w, &sb, &who);
		exp_mmaps(&w, &sb, dir, &who);
	} else {
		ptt_warn("%s has no pid= (a system-wide recording): perf gets no mappings and decodes only what its own machine's files hold",
			 sbpath);
	}
	x.w = &w;
	x.who = &who;
	ret = exp_each_trace(&sb, dir, &config, exp_write_trace, &x);
	err = pdw_close(&w);
	if (!ret && err) {
		ptt_err("writing %s failed: %s", out, strerror(-err));
		ret = PTT_EXIT_INPUT;
	}
	ptsb_free(&sb);
	if (have_pf)
		ptpsb_free(&pf);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "perf", no_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int c, perf = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			perf = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return PTT_EXIT_OK;
		default:
			export_usage(stderr);
			return PTT_EXIT_USAGE;
		}
	}
	if (!perf) {
		ptt_err("say which format: --perf (try --help)");
		return PTT_EXIT_USAGE;
	}
	if (optind != argc - 1) {
		ptt_err("expected one recording directory (try --help)");
		return PTT_EXIT_USAGE;
	}
	return export_perf(argv[optind], out);
}
