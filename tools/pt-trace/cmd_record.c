// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace record: configure, start and drain /dev/ptN for a set of CPUs
 * while a command, a PID or the whole system runs, and write an output
 * directory: cpuN.pt per CPU, cpuN.loss per CPU in stream mode, and
 * sideband.txt with what a decoder needs.
 *
 * Flight mode keeps the newest data_size bytes and is read once after
 * STOP.  Stream mode is drained while tracing runs (data_tail advanced
 * behind the reader, woken by poll at the watermark); every gap the
 * driver records in the control page's loss ring is copied to cpuN.loss
 * with the offset in cpuN.pt where it lies.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_info.h"
#include "lossfile.h"
#include "proc_maps.h"
#include "ptdev.h"
#include "sideband.h"
#include "tool.h"
#include "vdso_image.h"

#define REC_MAX_CPUS	4096

struct rec_tsc {
	uint64_t tsc, ns, err_ns;
	int ok;
};

struct rec_cpu {
	int cpu;
	int fd;
	int out;
	struct ptdev_map map;
	struct pt_trace_config cfg;	/* as the driver will program it */
	uint64_t tail;		/* stream: bytes consumed */
	uint64_t written;	/* bytes in cpuN.pt */
	uint64_t skipped;	/* stream bytes not in the file (overrun) */
	FILE *lossf;		/* stream: cpuN.loss */
	uint64_t loss_next;	/* next loss record to read */
	struct ptl_sum loss;
	int hup;		/* poll said the trace stopped */
	struct rec_tsc tsc[2];	/* before START, after STOP */
	struct pt_trace_status status;
};

struct rec_opts {
	const char *outdir;
	double duration;
	pid_t pid;
	int have_cr3;
	uint64_t cr3;
	int user, kernel;
	int cyc;
	uint32_t cyc_thresh;
	int mtc;
	uint32_t mtc_freq;
	int tsc;
	int psb;
	uint32_t psb_freq;
	int ptw, pwr;
	int nranges;
	struct { uint64_t a, b; uint32_t cfg; } range[PT_TRACE_MAX_ADDR_RANGES];
	uint64_t bufsize;
	uint32_t mode;
	uint64_t watermark;
	double drain_ms;	/* stream: fixed drain period, 0 = poll */
	char **cmd;
};

/* Set by the signal handler; atomic loads/stores keep it out of registers. */
static int rec_stop;

static void rec_on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&rec_stop, 1, __ATOMIC_RELAXED);
}

static void rec_usage(FILE *f)
{
	fputs("usage: pt-trace record [options] [-- COMMAND [ARGS...]]\n"
	      "\n"
	      "Trace CPUs through /dev/ptN.  With a COMMAND it runs pinned to the first\n"
	      "traced CPU and recording ends when it exits; with -p it traces that\n"
	      "process (CR3 filter); otherwise the CPUs for -d seconds or until Ctrl-C.\n"
	      "Output: DIR/cpuN.pt (raw trace per CPU), DIR/cpuN.loss (stream mode:\n"
	      "the gaps, one line each) and DIR/sideband.txt (what a decoder needs).\n"
	      "\n"
	      "options:\n"
	      "  -o, --output DIR        output directory (default: pt-trace.data)\n"
	      "  -C, --cpu LIST          CPUs, e.g. 0 or 0,2-3 (default: all)\n"
	      "  -d, --duration SEC      stop after SEC seconds\n"
	      "  -p, --pid PID           trace only this process (CR3 filter)\n"
	      "      --cr3 VALUE         trace only this CR3\n"
	      "  -u, --user              user mode only      -k, --kernel  kernel only\n"
	      "      --cyc[=THRESH]      cycle-accurate mode (CYC packets)\n"
	      "      --mtc[=FREQ]        MTC timing packets (default period 3)\n"
	      "      --no-tsc            no TSC packets (on by default)\n"
	      "      --psb-period N      PSBFreq encoding: a PSB every 2^(N+11) bytes\n"
	      "      --ptw               PTWRITE packets (with FUP)\n"
	      "      --power-events      power event trace (PWRE/PWRX/EXSTOP/MWAIT)\n"
	      "      --filter A-B        trace only inside [A,B] (repeatable)\n"
	      "      --stop-at A-B       stop tracing on entering [A,B]\n"
	      "  -b, --buffer-size N     bytes per CPU, K/M/G suffix (default: driver's)\n"
	      "  -m, --mode MODE         flight (keep the newest buffer-full, default)\n"
	      "                          or stream (keep everything, gaps recorded)\n"
	      "  -w, --watermark N       stream: wake the recorder after N bytes\n"
	      "                          (K/M suffix; default: half the buffer)\n"
	      "      --drain-interval MS stream: drain every MS milliseconds instead of\n"
	      "                          at the watermark (a slow reader: shows losses)\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "While recording, a status line (seconds, MB, MB/s, losses) is shown on a\n"
	      "terminal; at the end a summary per CPU and the loss totals.\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace record -C 0 -o out -- ./workload arg\n"
	      "  pt-trace record -d 2 -o out                  # all CPUs, 2 seconds\n"
	      "  pt-trace record -m stream -b 64M -d 10 -o out  # everything, 10 s\n"
	      "  pt-trace record -p 1234 -u --mtc --cyc -m stream -o out\n"
	      "  pt-trace record -m stream -b 16K --drain-interval 200 -d 1 -o out\n"
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

static int rec_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
	char buf[80], *dash;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf + 1, '-');
	if (!dash)
		return -EINVAL;
	*dash = 0;
	if (ptt_parse_u64(buf, a) || ptt_parse_u64(dash + 1, b) || *a > *b)
		return -EINVAL;
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

static uint64_t rec_ctl(const struct rec_opts *o)
{
	uint64_t ctl = PT_CTL_BRANCHEN;

	if (o->user || !o->kernel)
		ctl |= PT_CTL_USER;
	if (o->kernel || !o->user)
		ctl |= PT_CTL_OS;
	if (o->tsc)
		ctl |= PT_CTL_TSCEN;
	if (o->mtc)
		ctl |= PT_CTL_MTCEN |
		       ((uint64_t)o->mtc_freq << PT_CTL_MTCFREQ_SHIFT);
	if (o->psb)
		ctl |= (uint64_t)o->psb_freq << PT_CTL_PSBFREQ_SHIFT;
	if (o->ptw)
		ctl |= PT_CTL_PTWEN | PT_CTL_FUPONPTW;
	if (o->pwr)
		ctl |= PT_CTL_PWREVTEN;
	return ctl;
}

/* Configure one CPU with every ioctl the options ask for. */
static int rec_setup_cpu(struct rec_cpu *rc, const struct rec_opts *o,
			 const struct pt_trace_caps *caps)
{
	struct pt_trace_config cfg;
	uint64_t want = rec_ctl(o);
	int err, i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.output = PT_OUTPUT_AUTO;
	cfg.ctl = want & (caps->ctl_valid | PT_CTL_BRANCHEN);
	if (want & ~cfg.ctl) {
		ptt_err("cpu %d: this CPU cannot trace with RTIT_CTL bits %#llx: leave out the options that need them (see 'pt-trace info')",
			rc->cpu, (unsigned long long)(want & ~cfg.ctl));
		return -EINVAL;
	}
	if (o->mode == PT_MODE_STREAM && !(caps->flags & PT_CAP_TOPA)) {
		ptt_err("cpu %d: stream mode needs ToPA output, which this CPU lacks: use -m flight",
			rc->cpu);
		return -EOPNOTSUPP;
	}
	cfg.buffer_size = o->bufsize;
	cfg.mode = o->mode;
	if (o->mode == PT_MODE_STREAM && o->watermark) {
		if (o->watermark > UINT32_MAX) {
			ptt_err("--watermark: at most 4G-1 bytes");
			return -EINVAL;
		}
		cfg.watermark = (uint32_t)o->watermark;
	}
	err = ptdev_set_config(rc->fd, &cfg);
	if (err) {
		ptt_err("cpu %d: SET_CONFIG: %s", rc->cpu,
			ptdev_why(err, rc->cpu, PTDEV_CONFIG));
		return err;
	}
	if (o->cyc) {
		err = ptdev_set_cyc(rc->fd, 1, o->cyc_thresh);
		if (err) {
			ptt_err("cpu %d: SET_CYC (--cyc=%u): %s", rc->cpu,
				o->cyc_thresh,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG));
			return err;
		}
	}
	for (i = 0; i < o->nranges; i++) {
		err = ptdev_set_addr(rc->fd, (uint32_t)i, o->range[i].cfg,
				     o->range[i].a, o->range[i].b);
		if (err) {
			ptt_err("cpu %d: SET_ADDR %d: %s (this CPU has %u address ranges)",
				rc->cpu, i,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG),
				caps->num_addr_ranges);
			return err;
		}
	}
	if (o->pid > 0 || o->have_cr3) {
		struct pt_trace_cr3 c = { 0 };

		c.how = o->have_cr3 ? PT_CR3_BY_VALUE : PT_CR3_BY_PID;
		c.cr3 = o->cr3;
		c.pid = o->pid;
		err = ptdev_set_cr3(rc->fd, &c);
		if (err == -ESRCH) {
			ptt_err("cpu %d: SET_CR3: no process %d", rc->cpu,
				(int)o->pid);
			return err;
		}
		if (err) {
			ptt_err("cpu %d: SET_CR3: %s", rc->cpu,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG));
			return err;
		}
	}
	/* What the driver will program (BranchEn forced on BDM106, ...). */
	if (ptdev_get_config(rc->fd, &rc->cfg))
		rc->cfg = cfg;
	err = ptdev_mmap(rc->fd, &rc->map, o->mode == PT_MODE_STREAM);
	if (err) {
		ptt_err("cpu %d: mmap: %s", rc->cpu,
			ptdev_why(err, rc->cpu, PTDEV_MMAP));
		return err;
	}
	return 0;
}

static int rec_write(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy [from, to) of the ring (positions since start) to the file. */
static int rec_copy(struct rec_cpu *rc, uint64_t from, uint64_t to)
{
	size_t size = rc->map.data_len;

	while (from < to) {
		size_t off = (size_t)(from % size);
		size_t n = size - off;
		int err;

		if (n > to - from)
			n = (size_t)(to - from);
		err = rec_write(rc->out, rc->map.data + off, n);
		if (err)
			return err;
		from += n;
		rc->written += n;
	}
	return 0;
}

static void rec_lapped(struct rec_cpu *rc, uint64_t first, uint64_t count)
{
	ptl_write_lapped(rc->lossf, first, count);
	rc->loss.lapped += count;
}

/*
 * Copy the loss records the driver added since the last call from the
 * control page's ring to cpuN.loss.  Record i lives in slot i % slots;
 * the driver writes record i + slots into that slot before it publishes
 * loss_records = i + slots + 1, so a copy of record i is only known
 * whole when loss_records - i < slots still holds after the copy (a
 * seqlock-style re-check).  Records that fail it were overwritten before
 * they could be read: they are counted as lapped, never guessed.
 */
static void rec_read_losses(struct rec_cpu *rc)
{
	const struct pt_trace_mmap_page *pg = rc->map.ctrl;
	const uint8_t *ring = (const uint8_t *)pg;
	uint64_t n, i, slots;
	uint32_t off;

	if (!rc->lossf)
		return;
	slots = __atomic_load_n(&pg->loss_slots, __ATOMIC_RELAXED);
	off = __atomic_load_n(&pg->loss_offset, __ATOMIC_RELAXED);
	if (!slots || off < sizeof(*pg) ||
	    off + slots * sizeof(struct pt_trace_loss) > rc->map.ctrl_len)
		return;		/* a driver without loss records */
	ring += off;
	n = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
	if (n <= rc->loss_next)
		return;
	if (n - rc->loss_next >= slots) {
		uint64_t first = n - slots + 1;

		rec_lapped(rc, rc->loss_next, first - rc->loss_next);
		rc->loss_next = first;
	}
	for (i = rc->loss_next; i < n; i++) {
		struct pt_trace_loss l;
		struct ptl_record r;
		uint64_t now;

		memcpy(&l, ring + (i % slots) * sizeof(l), sizeof(l));
		/* The copy's loads before the re-check's. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		now = __atomic_load_n(&pg->loss_records, __ATOMIC_ACQUIRE);
		if (now - i >= slots || l.seq != (uint32_t)i) {
			rec_lapped(rc, i, 1);
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.seq = i;
		r.pos = l.pos;
		r.offset = l.pos >= rc->skipped ? l.pos - rc->skipped : 0;
		r.bytes_known = !!(l.flags & PT_LOSS_BYTES_KNOWN);
		r.bytes = r.bytes_known ? l.bytes : 0;
		r.start_ns = l.start_ns;
		r.end_ns = l.end_ns;
		r.start_tsc = l.start_tsc;
		r.end_tsc = l.end_tsc;
		r.flags = l.flags;
		ptl_write(rc->lossf, &r);
		ptl_add(&rc->loss, &r);
	}
	rc->loss_next = n;
}

/* Stream mode: take what is new, note losses, hand the space back. */
static int rec_drain(struct rec_cpu *rc)
{
	struct pt_trace_mmap_page *pg = rc->map.ctrl;
	uint64_t head;
	int err;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (head - rc->tail > rc->map.data_len) {
		/* The driver never overwrites unread data; if it did, say so. */
		uint64_t from = head - rc->map.data_len;

		ptt_warn("cpu %d: %llu bytes overwritten before they were read",
			 rc->cpu, (unsigned long long)(from - rc->tail));
		rc->skipped += from - rc->tail;
		rc->tail = from;
	}
	err = rec_copy(rc, rc->tail, head);
	if (err)
		return err;
	rc->tail = head;
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	rec_read_losses(rc);
	return 0;
}

/* Flight mode: the newest min(head, size) bytes, oldest first. */
static int rec_flight_read(struct rec_cpu *rc)
{
	uint64_t head = rc->status.head;
	uint64_t from = head > rc->map.data_len ? head - rc->map.data_len : 0;

	return rec_copy(rc, from, head);
}

/*
 * The nominal frequency: the max non-turbo ratio of MSR_PLATFORM_INFO is
 * what libipt wants (nom_freq); when the MSR cannot be read the sideband
 * says why, and nominal_mhz still comes from CPUID 0x16 or cpufreq.
 */
static void rec_write_freq(FILE *sb, int cpu)
{
	uint32_t ratio = 0, mhz;
	int err = cpu_max_nonturbo_ratio(cpu, &ratio);

	if (!err && ratio) {
		ptsb_put(sb, "nom_freq", "%u", ratio);
		ptsb_put(sb, "nom_freq.source", "MSR_PLATFORM_INFO[15:8] of cpu %d",
			 cpu);
		ptsb_put(sb, "nominal_mhz", "%u", ratio * 100);
		ptsb_put(sb, "nominal_mhz.source", "nom_freq x 100 MHz");
		return;
	}
	if (!err)
		ptsb_put(sb, "nom_freq.source",
			 "unavailable: MSR_PLATFORM_INFO[15:8] of cpu %d reads 0",
			 cpu);
	else
		ptsb_put(sb, "nom_freq.source",
			 "unavailable: /dev/cpu/%d/msr: %s%s", cpu,
			 strerror(-err),
			 err == -ENOENT ? " (modprobe msr, as root)" : "");
	mhz = cpu_cpuid_0x16_base_mhz();
	if (mhz) {
		ptsb_put(sb, "nominal_mhz", "%u", mhz);
		ptsb_put(sb, "nominal_mhz.source", "CPUID.16H:EAX");
	} else if (!cpu_cpufreq_base_mhz(cpu, &mhz)) {
		ptsb_put(sb, "nominal_mhz", "%u", mhz);
		ptsb_put(sb, "nominal_mhz.source", "cpufreq base_frequency");
	} else {
		ptsb_put(sb, "nominal_mhz.source",
			 "unavailable: no MSR_PLATFORM_INFO, CPUID.16H or cpufreq base_frequency");
	}
}

static void rec_write_header(FILE *sb, const struct rec_opts *o,
			     const struct pt_trace_caps *caps,
			     const struct rec_cpu *rc0)
{
	uint64_t ctl = rc0->cfg.ctl;
	uint32_t eax, ebx, ecx;
	struct utsname u;

	ptsb_put(sb, "tool", "pt-trace record");
	ptsb_put(sb, "time", "%lld", (long long)time(NULL));
	if (!uname(&u)) {
		ptsb_put(sb, "kernel", "%s %s %s", u.sysname, u.release,
			 u.machine);
		ptsb_put(sb, "kernel.version", "%s", u.version);
	}
	ptsb_put(sb, "backend", "%s",
		 caps->backend == PT_BACKEND_MODEL ? "model" : "hw");
	/* The traced CPU, as the driver reports it (the model's profile). */
	ptsb_put(sb, "cpu.vendor", "intel");
	ptsb_put(sb, "cpu.family", "%u", caps->family);
	ptsb_put(sb, "cpu.model", "%u", caps->model);
	ptsb_put(sb, "cpu.stepping", "%u", caps->stepping);
	ptsb_put(sb, "caps.flags", "0x%x", caps->flags);
	ptsb_put(sb, "caps.quirks", "0x%x", caps->quirks);
	ptsb_put(sb, "caps.num_addr_ranges", "%u", caps->num_addr_ranges);
	ptsb_put(sb, "caps.mtc_periods", "0x%x", caps->mtc_periods);
	ptsb_put(sb, "caps.cyc_thresholds", "0x%x", caps->cyc_thresholds);
	ptsb_put(sb, "caps.psb_periods", "0x%x", caps->psb_periods);
	ptsb_put(sb, "caps.ctl_valid", "0x%llx",
		 (unsigned long long)caps->ctl_valid);
	ptsb_put(sb, "caps.cpuid14.0", "0x%x 0x%x 0x%x 0x%x",
		 caps->cpuid_14[0][0], caps->cpuid_14[0][1],
		 caps->cpuid_14[0][2], caps->cpuid_14[0][3]);
	ptsb_put(sb, "caps.cpuid14.1", "0x%x 0x%x 0x%x 0x%x",
		 caps->cpuid_14[1][0], caps->cpuid_14[1][1],
		 caps->cpuid_14[1][2], caps->cpuid_14[1][3]);
	if (caps->backend == PT_BACKEND_MODEL)
		fputs("# backend=model: nom_freq, nominal_mhz and tsc.* describe the CPU\n"
		      "# pt-trace ran on, not the modelled one (cpu.*, caps.*, cpuid15.*)\n",
		      sb);
	/*
	 * CPUID 0x15 as the driver sees it (a driver with caps size >= 128;
	 * on the model, the profile's values, which its MTC packets use),
	 * else as this program sees it.
	 */
	if (caps->size >= PT_TRACE_CAPS_SIZE_VER1 && caps->cpuid_15[0] &&
	    caps->cpuid_15[1]) {
		eax = caps->cpuid_15[0];
		ebx = caps->cpuid_15[1];
		ecx = caps->cpuid_15[2];
		ptsb_put(sb, "cpuid15.source", "driver");
	} else {
		cpu_cpuid_0x15(&eax, &ebx, &ecx);
		ptsb_put(sb, "cpuid15.source", "cpuid");
	}
	ptsb_put(sb, "cpuid15.eax", "%u", eax);
	ptsb_put(sb, "cpuid15.ebx", "%u", ebx);
	ptsb_put(sb, "cpuid15.ecx", "%u", ecx);
	if (eax && ebx && ecx)
		ptsb_put(sb, "tsc_hz.cpuid15", "%llu",
			 (unsigned long long)ecx * ebx / eax);
	rec_write_freq(sb, rc0->cpu);
	ptsb_put(sb, "ctl", "0x%llx", (unsigned long long)ctl);
	if (ctl & PT_CTL_MTCEN)
		ptsb_put(sb, "mtc_freq", "%llu",
			 (unsigned long long)((ctl & PT_CTL_MTCFREQ_MASK) >>
					      PT_CTL_MTCFREQ_SHIFT));
	else
		ptsb_put(sb, "mtc_freq", "off");
	if (o->cyc)
		ptsb_put(sb, "cyc_thresh", "%u", o->cyc_thresh);
	ptsb_put(sb, "psb_freq", "%llu",
		 (unsigned long long)((ctl & PT_CTL_PSBFREQ_MASK) >>
				      PT_CTL_PSBFREQ_SHIFT));
	ptsb_put(sb, "mode", "%s", o->mode == PT_MODE_STREAM ? "stream" :
		 "flight");
	ptsb_put(sb, "buffer_size", "%zu", rc0->map.data_len);
	if (o->mode == PT_MODE_STREAM)
		ptsb_put(sb, "watermark", "%u",
			 __atomic_load_n(&rc0->map.ctrl->watermark,
					 __ATOMIC_RELAXED));
	if (o->cmd) {
		char **a;

		fputs("cmd=", sb);
		for (a = o->cmd; *a; a++)
			fprintf(sb, "%s%s", a == o->cmd ? "" : " ", *a);
		fputc('\n', sb);
	}
}

/* TSC against CLOCK_MONOTONIC on every traced CPU (when: 0 start, 1 end). */
static void rec_sample_tsc(struct rec_cpu *rcs, int n, int when)
{
	cpu_set_t saved;
	int i, have = !sched_getaffinity(0, sizeof(saved), &saved);

	for (i = 0; i < n; i++) {
		struct rec_tsc *t = &rcs[i].tsc[when];

		t->ok = !cpu_tsc_sample(rcs[i].cpu, &t->tsc, &t->ns,
					&t->err_ns);
	}
	if (have)
		sched_setaffinity(0, sizeof(saved), &saved);
}

/*
 * The TSC rate over the recording (first CPU) and each CPU's TSC offset
 * from the first one's, from the samples of rec_sample_tsc().
 */
static void rec_write_tsc(FILE *sb, const struct rec_cpu *rcs, int n)
{
	const struct rec_tsc *s0 = &rcs[0].tsc[0], *s1 = &rcs[0].tsc[1];
	double hz = 0;
	uint64_t adj;
	int i, w;

	for (i = 0; i < n; i++)
		for (w = 0; w < 2; w++)
			if (rcs[i].tsc[w].ok)
				ptsb_put(sb, w ? "tsc.end" : "tsc.start",
					 "%d %llu %llu %llu", rcs[i].cpu,
					 (unsigned long long)rcs[i].tsc[w].ns,
					 (unsigned long long)rcs[i].tsc[w].tsc,
					 (unsigned long long)rcs[i].tsc[w].err_ns);
	/* Under 10 ms the sampling error would dominate the rate. */
	if (s0->ok && s1->ok && s1->ns > s0->ns + 10000000ULL &&
	    s1->tsc > s0->tsc) {
		hz = (double)(s1->tsc - s0->tsc) * 1e9 /
		     (double)(s1->ns - s0->ns);
		ptsb_put(sb, "tsc_hz", "%.0f", hz);
		ptsb_put(sb, "tsc_hz.source",
			 "measured on cpu %d over %.3f s against CLOCK_MONOTONIC",
			 rcs[0].cpu, (double)(s1->ns - s0->ns) / 1e9);
	}
	for (i = 0; i < n; i++) {
		const struct rec_tsc *t = &rcs[i].tsc[0];
		double expect;

		if (hz > 0 && s0->ok && t->ok) {
			expect = (double)s0->tsc +
				 ((double)t->ns - (double)s0->ns) * hz / 1e9;
			ptsb_put(sb, "tsc_offset", "%d %.0f %llu", rcs[i].cpu,
				 (double)t->tsc - expect,
				 (unsigned long long)((t->err_ns + s0->err_ns) *
						      hz / 1e9 + 1));
		}
		if (!cpu_read_msr(rcs[i].cpu, MSR_IA32_TSC_ADJUST, &adj))
			ptsb_put(sb, "tsc_adjust", "%d %lld", rcs[i].cpu,
				 (long long)adj);
	}
}

static double rec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start the command stopped at exec (ptrace) so its maps can be read. */
static pid_t rec_spawn(char **cmd, int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "pt-trace record: cannot run %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

static void rec_sum(const struct rec_cpu *rcs, int n, struct ptl_sum *sum,
		    uint64_t *bytes)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	*bytes = 0;
	for (i = 0; i < n; i++) {
		sum->records += rcs[i].loss.records;
		sum->known_bytes += rcs[i].loss.known_bytes;
		sum->unknown += rcs[i].loss.unknown;
		sum->lost_ns += rcs[i].loss.lost_ns;
		sum->lapped += rcs[i].loss.lapped;
		*bytes += rcs[i].written;
	}
}

static void rec_status_line(struct rec_cpu *rcs, int n, double t0,
			    const struct rec_opts *o)
{
	double dt = rec_now() - t0;
	struct ptl_sum sum;
	uint64_t bytes = 0;
	int i;

	rec_sum(rcs, n, &sum, &bytes);
	if (o->mode != PT_MODE_STREAM) {
		/* Flight: produced so far (the file gets the newest part). */
		bytes = 0;
		for (i = 0; i < n; i++)
			bytes += __atomic_load_n(&rcs[i].map.ctrl->data_head,
						 __ATOMIC_ACQUIRE);
	}
	fprintf(stderr, "\r[record] %6.1fs %9.2f MB %8.2f MB/s", dt,
		bytes / 1e6, dt > 0 ? bytes / 1e6 / dt : 0.0);
	if (o->mode == PT_MODE_STREAM)
		fprintf(stderr, "  losses %llu (%llu B known, %.1f ms)%s   ",
			(unsigned long long)(sum.records + sum.lapped),
			(unsigned long long)sum.known_bytes,
			sum.lost_ns / 1e6, sum.lapped ? " LAPPED" : "");
	else
		fputs("   ", stderr);
}

static int rec_parse(int argc, char **argv, struct rec_opts *o, int *cpus,
		     int *ncpus)
{
	enum { O_CR3 = 256, O_CYC, O_MTC, O_NOTSC, O_PSB, O_PTW, O_PWR,
	       O_FILTER, O_STOPAT, O_DRAIN };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cr3", required_argument, NULL, O_CR3 },
		{ "user", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "cyc", optional_argument, NULL, O_CYC },
		{ "mtc", optional_argument, NULL, O_MTC },
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	uint32_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:C:d:p:ukb:m:w:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
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
		case O_PWR:
			o->pwr = 1;
			break;
		case O_FILTER:
		case O_STOPAT:
			if (o->nranges == PT_TRACE_MAX_ADDR_RANGES ||
			    rec_parse_range(optarg, &o->range[o->nranges].a,
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
	if ((o->watermark || o->drain_ms) && o->mode != PT_MODE_STREAM) {
		ptt_err("--watermark and --drain-interval need -m stream");
		return -1;
	}
	return 0;
bad:
	ptt_err("bad value for option %s: '%s' (try --help)",
		argv[optind - 1], optarg ? optarg : "");
	return -1;
}

static int rec_open_all(struct rec_cpu *rcs, int n, const struct rec_opts *o,
			struct pt_trace_caps *caps)
{
	int i, err;

	for (i = 0; i < n; i++) {
		rcs[i].fd = ptdev_open(rcs[i].cpu, O_RDWR);
		if (rcs[i].fd < 0) {
			err = rcs[i].fd;
			if ((err == -ENOENT || err == -ENODEV) &&
			    !cpu_has_intel_pt() &&
			    access("/sys/kernel/pt_trace", F_OK)) {
				ptt_err("this CPU has no Intel PT: CPUID.(EAX=07H):EBX[25]=0, so /dev/pt%d cannot exist; pt_trace needs Intel PT (Broadwell or later; in a VM, passed through by the hypervisor)",
					rcs[i].cpu);
				return PTT_EXIT_NO_PT;
			}
			ptt_err("%s", ptdev_why(err, rcs[i].cpu, PTDEV_OPEN));
			return PTT_EXIT_DEVICE;
		}
		err = ptdev_get_caps(rcs[i].fd, caps);
		if (err) {
			ptt_err("/dev/pt%d: GET_CAPS: %s", rcs[i].cpu,
				ptdev_why(err, rcs[i].cpu, PTDEV_OTHER));
			return PTT_EXIT_DEVICE;
		}
		if (rec_setup_cpu(&rcs[i], o, caps))
			return PTT_EXIT_DEVICE;
	}
	return 0;
}

/* A ptrace stop of the command: exec (read its maps) or its exit. */
static void rec_child_stop(pid_t child, int st, FILE *sb,
			   struct ptt_maps *maps)
{
	int sig = WSTOPSIG(st);

	if (sig == SIGTRAP) {
		ptt_maps_write(sb, child, maps);
		if ((st >> 8) != (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
			ptrace(PTRACE_SETOPTIONS, child, NULL,
			       PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL);
		sig = 0;
	}
	ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig);
}

/*
 * Stream mode without --drain-interval: sleep in poll() until a CPU has
 * a watermark's worth of data (or its trace stopped), at most @ms.
 */
static void rec_poll(struct rec_cpu *rcs, int n, int ms)
{
	struct pollfd pfd[64];
	int i, at = 0;

	while (at < n) {
		int k = 0, m;

		for (i = at; i < n && k < (int)ARRAY_SIZE(pfd); i++, k++) {
			pfd[k].fd = rcs[i].hup ? -1 : rcs[i].fd;
			pfd[k].events = POLLIN;
			pfd[k].revents = 0;
		}
		/* Only the first batch waits; CPUs past 64 are rare. */
		m = poll(pfd, (nfds_t)k, at ? 0 : ms);
		for (i = 0; m > 0 && i < k; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
				rcs[at + i].hup = 1;
		at += k;
	}
}

/* Wait for the end: command exit, duration, or a signal; drain meanwhile. */
static int rec_wait(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		    pid_t child, FILE *sb, int *child_status,
		    struct ptt_maps *maps)
{
	double t0 = rec_now(), next_status = t0 + 0.5, next_drain = t0;
	int tty = isatty(STDERR_FILENO), i, st;
	int stream = o->mode == PT_MODE_STREAM;

	while (!__atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		double now, wait_ms;

		if (child > 0) {
			pid_t w = waitpid(child, &st, WNOHANG);

			if (w == child && WIFSTOPPED(st)) {
				rec_child_stop(child, st, sb, maps);
			} else if (w == child) {
				*child_status = st;
				break;
			}
		}
		now = rec_now();
		if (o->duration > 0 && now - t0 >= o->duration)
			break;
		if (stream && (!o->drain_ms || now >= next_drain)) {
			for (i = 0; i < n; i++) {
				int err = rec_drain(&rcs[i]);

				if (err) {
					ptt_err("cpu %d: writing %s/cpu%d.pt: %s",
						rcs[i].cpu, o->outdir,
						rcs[i].cpu, strerror(-err));
					return err;
				}
			}
			if (o->drain_ms)
				next_drain = now + o->drain_ms / 1e3;
		}
		if (tty && now >= next_status) {
			rec_status_line(rcs, n, t0, o);
			next_status = now + 0.5;
		}
		/* The command is stopped at exec/exit until we look. */
		wait_ms = child > 0 ? 2 : 100;
		if (o->duration > 0 && (t0 + o->duration - now) * 1e3 < wait_ms)
			wait_ms = (t0 + o->duration - now) * 1e3;
		if (o->drain_ms && (next_drain - now) * 1e3 < wait_ms)
			wait_ms = (next_drain - now) * 1e3;
		if (wait_ms < 0)
			wait_ms = 0;
		if (stream && !o->drain_ms)
			rec_poll(rcs, n, (int)wait_ms + 1);
		else
			usleep((useconds_t)(wait_ms * 1e3) + 100);
	}
	if (tty) {
		rec_status_line(rcs, n, t0, o);
		fputc('\n', stderr);
	}
	return 0;
}

static void rec_cpu_sideband(FILE *sb, const struct rec_cpu *rc, int stream)
{
	int c = rc->cpu;

	ptsb_put(sb, "cpu", "%d", c);
	ptsb_put(sb, "cpu.file", "%d cpu%d.pt", c, c);
	ptsb_put(sb, "cpu.ctl", "%d 0x%llx", c, (unsigned long long)rc->cfg.ctl);
	ptsb_put(sb, "cpu.bytes", "%d %llu", c,
		 (unsigned long long)rc->written);
	ptsb_put(sb, "cpu.head", "%d %llu", c,
		 (unsigned long long)rc->status.head);
	ptsb_put(sb, "cpu.wrapped", "%d %d", c,
		 !!(rc->status.flags & PT_STATUS_WRAPPED));
	ptsb_put(sb, "cpu.rtit_status", "%d 0x%llx", c,
		 (unsigned long long)rc->status.rtit_status);
	if (!stream)
		return;
	ptsb_put(sb, "cpu.loss_file", "%d cpu%d%s", c, c, PTL_SUFFIX);
	ptsb_put(sb, "cpu.loss_records", "%d %llu", c,
		 (unsigned long long)rc->loss.records);
	ptsb_put(sb, "cpu.loss_lapped", "%d %llu", c,
		 (unsigned long long)rc->loss.lapped);
	ptsb_put(sb, "cpu.lost_bytes", "%d %llu", c,
		 (unsigned long long)rc->loss.known_bytes);
	ptsb_put(sb, "cpu.loss_unknown", "%d %llu", c,
		 (unsigned long long)rc->loss.unknown);
	ptsb_put(sb, "cpu.lost_ns", "%d %llu", c,
		 (unsigned long long)rc->loss.lost_ns);
	ptsb_put(sb, "cpu.driver_loss_records", "%d %llu", c,
		 (unsigned long long)rc->status.loss_records);
	ptsb_put(sb, "cpu.driver_lost_ns", "%d %llu", c,
		 (unsigned long long)rc->status.lost_ns);
	ptsb_put(sb, "cpu.driver_lost_bytes", "%d %llu", c,
		 (unsigned long long)rc->status.lost_bytes);
	ptsb_put(sb, "cpu.pmis", "%d %llu", c,
		 (unsigned long long)rc->status.pmis);
	ptsb_put(sb, "cpu.stops", "%d %llu", c,
		 (unsigned long long)rc->status.stops);
	ptsb_put(sb, "cpu.errors", "%d %llu", c,
		 (unsigned long long)rc->status.errors);
}

/* The losses of one CPU or of all, one human line (also parsed by tests). */
static void rec_print_losses(const char *who, const struct ptl_sum *s)
{
	fprintf(stderr,
		"%s%llu loss records, %llu bytes lost (known), %llu of unknown size, %.3f ms not traced",
		who, (unsigned long long)s->records,
		(unsigned long long)s->known_bytes,
		(unsigned long long)s->unknown, s->lost_ns / 1e6);
	if (s->lapped)
		fprintf(stderr, ", %llu records overwritten before they were read (lapped)",
			(unsigned long long)s->lapped);
	fputc('\n', stderr);
}

static int rec_finish(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		      FILE *sb)
{
	int stream = o->mode == PT_MODE_STREAM;
	struct ptl_sum total;
	uint64_t bytes;
	int i, err, ret = 0;

	for (i = 0; i < n; i++) {
		err = ptdev_stop(rcs[i].fd);
		if (err)
			ptt_warn("cpu %d: STOP: %s", rcs[i].cpu,
				 ptdev_why(err, rcs[i].cpu, PTDEV_OTHER));
	}
	rec_sample_tsc(rcs, n, 1);
	for (i = 0; i < n; i++) {
		struct rec_cpu *rc = &rcs[i];

		err = ptdev_get_status(rc->fd, &rc->status);
		if (err) {
			ptt_err("cpu %d: GET_STATUS: %s", rc->cpu,
				ptdev_why(err, rc->cpu, PTDEV_OTHER));
			ret = PTT_EXIT_DEVICE;
			continue;
		}
		err = stream ? rec_drain(rc) : rec_flight_read(rc);
		if (err) {
			ptt_err("cpu %d: writing the trace: %s", rc->cpu,
				strerror(-err));
			ret = PTT_EXIT_INPUT;
		}
		if (rc->lossf) {
			/* Records the driver counted that were never seen. */
			if (rc->status.loss_records > rc->loss_next)
				rec_lapped(rc, rc->loss_next,
					   rc->status.loss_records -
					   rc->loss_next);
			ptl_write_end(rc->lossf, rc->loss_next > rc->status.loss_records ?
				      rc->loss_next : rc->status.loss_records,
				      rc->loss.lapped);
		}
		rec_cpu_sideband(sb, rc, stream);
		fprintf(stderr, "cpu%-3d %12llu bytes in cpu%d.pt", rc->cpu,
			(unsigned long long)rc->written, rc->cpu);
		if (!stream)
			fprintf(stderr, "%s",
				rc->status.flags & PT_STATUS_WRAPPED ?
				" (wrapped: the buffer kept the newest data)" : "");
		fprintf(stderr, "%s\n", rc->status.flags & PT_STATUS_HW_ERROR ?
			"  HW ERROR (RTIT_STATUS.Error)" : "");
		if (stream)
			rec_print_losses("       ", &rc->loss);
	}
	rec_write_tsc(sb, rcs, n);
	rec_sum(rcs, n, &total, &bytes);
	fprintf(stderr, "recorded %llu bytes on %d cpu(s) into %s/ (%s mode)\n",
		(unsigned long long)bytes, n, o->outdir,
		stream ? "stream" : "flight");
	if (stream)
		rec_print_losses("losses: ", &total);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	static int cpus[REC_MAX_CPUS];
	struct rec_opts o = { .outdir = "pt-trace.data", .tsc = 1,
			      .mtc_freq = 3, .mode = PT_MODE_FLIGHT };
	static struct ptt_maps maps;
	struct pt_trace_caps caps;
	struct rec_cpu *rcs;
	struct sigaction sa;
	int ncpus = 0, i, ret, child_status = 0;
	pid_t child = -1;
	char path[4096];
	FILE *sb;

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
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rec_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	ret = rec_open_all(rcs, ncpus, &o, &caps);
	if (ret)
		goto out;
	if (mkdir(o.outdir, 0755) && errno != EEXIST) {
		ptt_err("cannot create %s: %s", o.outdir, strerror(errno));
		ret = PTT_EXIT_INPUT;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", o.outdir, PTSB_FILE_NAME);
	sb = ptsb_create(path);
	if (!sb) {
		ptt_err("cannot create %s: %s", path, strerror(errno));
		ret = PTT_EXIT_INPUT;
		goto out;
	}
	for (i = 0; i < ncpus; i++) {
		snprintf(path, sizeof(path), "%s/cpu%d.pt", o.outdir,
			 rcs[i].cpu);
		rcs[i].out = open(path, O_WRONLY | O_CREAT | O_TRUNC |
				  O_CLOEXEC, 0644);
		if (rcs[i].out < 0) {
			ptt_err("cannot create %s: %s", path, strerror(errno));
			ret = PTT_EXIT_INPUT;
			goto out_sb;
		}
		if (o.mode != PT_MODE_STREAM)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d%s", o.outdir,
			 rcs[i].cpu, PTL_SUFFIX);
		rcs[i].lossf = ptl_create(path, rcs[i].cpu);
		if (!rcs[i].lossf) {
			ptt_err("cannot create %s: %s", path, strerror(errno));
			ret = PTT_EXIT_INPUT;
			goto out_sb;
		}
	}
	rec_write_header(sb, &o, &caps, &rcs[0]);
	ptt_vdso_record(sb, o.outdir);
	if (__atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		ret = PTT_EXIT_INTERRUPTED;
		goto out_sb;
	}

	rec_sample_tsc(rcs, ncpus, 0);
	for (i = 0; i < ncpus; i++) {
		int err = ptdev_start(rcs[i].fd);

		if (err) {
			ptt_err("cpu %d: START: %s", rcs[i].cpu,
				ptdev_why(err, rcs[i].cpu, PTDEV_START));
			while (--i >= 0)
				ptdev_stop(rcs[i].fd);
			ret = PTT_EXIT_DEVICE;
			goto out_sb;
		}
	}
	if (o.pid > 0) {
		ptsb_put(sb, "pid", "%d", (int)o.pid);
		ptt_maps_write(sb, o.pid, &maps);
	}
	if (o.cmd) {
		child = rec_spawn(o.cmd, rcs[0].cpu);
		if (child < 0)
			ptt_err("fork: %s", strerror(errno));
		else
			ptsb_put(sb, "pid", "%d", (int)child);
	}
	if (rec_wait(rcs, ncpus, &o, child, sb, &child_status, &maps))
		ret = PTT_EXIT_INPUT;
	if (child > 0 && __atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	/* A process traced by pid may have mapped more since the start. */
	if (o.pid > 0)
		ptt_maps_write(sb, o.pid, &maps);
	i = rec_finish(rcs, ncpus, &o, sb);
	if (!ret)
		ret = i;
	if (child > 0 && WIFEXITED(child_status))
		ptsb_put(sb, "exit_status", "%d", WEXITSTATUS(child_status));
out_sb:
	if (fclose(sb) && !ret)
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
	ptt_maps_free(&maps);
	free(rcs);
	return ret;
}
