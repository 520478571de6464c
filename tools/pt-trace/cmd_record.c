// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace record: configure, start and drain /dev/ptN for a set of CPUs
 * while a command, a PID or the whole system runs, and write an output
 * directory: cpuN.pt per CPU and sideband.txt with what a decoder needs.
 *
 * Flight mode keeps the newest data_size bytes and is read once after
 * STOP; stream mode is drained while tracing runs (data_tail advanced
 * behind the reader), and every gap the driver reports becomes a "loss"
 * record at the file offset where it happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "ptdev.h"
#include "sideband.h"
#include "tool.h"

#define REC_MAX_CPUS	4096

struct rec_cpu {
	int cpu;
	int fd;
	int out;
	struct ptdev_map map;
	uint64_t tail;		/* stream: bytes consumed */
	uint64_t written;
	uint64_t lost_seen;
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
	int ptw, pwr, notnt_off;
	int nranges;
	struct { uint64_t a, b; uint32_t cfg; } range[PT_TRACE_MAX_ADDR_RANGES];
	uint64_t bufsize;
	uint32_t mode;
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
	      "Output: DIR/cpuN.pt (raw trace per CPU) and DIR/sideband.txt.\n"
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
	      "  -b, --buffer-size N     bytes per CPU, K/M suffix (default: driver's)\n"
	      "  -m, --mode MODE         flight (keep newest, default) or stream\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace record -C 0 -o out -- ./workload arg\n"
	      "  pt-trace record -d 2 -o out                  # all CPUs, 2 seconds\n"
	      "  pt-trace record -p 1234 -u --mtc --cyc -m stream -o out\n"
	      "\n"
	      "exit status: 0 recorded, 1 bad usage, 2 output not writable,\n"
	      "3 device missing/refused (see the message), 4 no Intel PT,\n"
	      "130 interrupted before anything was recorded.\n", f);
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
	int err, i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.output = PT_OUTPUT_AUTO;
	cfg.ctl = rec_ctl(o) & (caps->ctl_valid | PT_CTL_BRANCHEN);
	if ((rec_ctl(o) & ~cfg.ctl) != 0) {
		ptt_err("cpu %d: this CPU cannot trace with RTIT_CTL bits %#llx (see 'pt-trace info')",
			rc->cpu,
			(unsigned long long)(rec_ctl(o) & ~cfg.ctl));
		return -EINVAL;
	}
	cfg.buffer_size = o->bufsize;
	cfg.mode = o->mode;
	err = ptdev_set_config(rc->fd, &cfg);
	if (err) {
		ptt_err("cpu %d: SET_CONFIG: %s", rc->cpu, ptdev_hint(err));
		return err;
	}
	if (o->cyc) {
		err = ptdev_set_cyc(rc->fd, 1, o->cyc_thresh);
		if (err) {
			ptt_err("cpu %d: SET_CYC: %s", rc->cpu, ptdev_hint(err));
			return err;
		}
	}
	for (i = 0; i < o->nranges; i++) {
		err = ptdev_set_addr(rc->fd, (uint32_t)i, o->range[i].cfg,
				     o->range[i].a, o->range[i].b);
		if (err) {
			ptt_err("cpu %d: SET_ADDR %d: %s (this CPU has %u ranges)",
				rc->cpu, i, ptdev_hint(err),
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
		if (err) {
			ptt_err("cpu %d: SET_CR3: %s", rc->cpu, ptdev_hint(err));
			return err;
		}
	}
	err = ptdev_mmap(rc->fd, &rc->map, o->mode == PT_MODE_STREAM);
	if (err) {
		ptt_err("cpu %d: mmap: %s", rc->cpu, ptdev_hint(err));
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

/* Stream mode: take what is new, note losses, hand the space back. */
static int rec_drain(struct rec_cpu *rc, FILE *sb)
{
	struct pt_trace_mmap_page *pg = rc->map.ctrl;
	uint64_t head, lost;
	int err;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	lost = __atomic_load_n(&pg->lost_bytes, __ATOMIC_RELAXED);
	if (lost != rc->lost_seen) {
		ptsb_put(sb, "loss", "%d %llu %llu", rc->cpu,
			 (unsigned long long)rc->written,
			 (unsigned long long)(lost - rc->lost_seen));
		rc->lost_seen = lost;
	}
	if (head - rc->tail > rc->map.data_len)	/* overrun: keep newest */
		rc->tail = head - rc->map.data_len;
	err = rec_copy(rc, rc->tail, head);
	if (err)
		return err;
	rc->tail = head;
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

/* Flight mode: the newest min(head, size) bytes, oldest first. */
static int rec_flight_read(struct rec_cpu *rc)
{
	uint64_t head = rc->status.head;
	uint64_t from = head > rc->map.data_len ? head - rc->map.data_len : 0;

	return rec_copy(rc, from, head);
}

static void rec_write_maps(FILE *sb, pid_t pid)
{
	char path[64], line[4096];
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	len = readlink(path, line, sizeof(line) - 1);
	if (len > 0) {
		line[len] = 0;
		ptsb_put(sb, "exe", "%s", line);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perm[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perm,
			   &off, &n) != 4 || !n || perm[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (line[n] != '/' && line[n] != '[')
			continue;
		ptsb_put(sb, "map", "0x%llx 0x%llx 0x%llx %s", a, b, off,
			 line + n);
	}
	fclose(f);
}

static void rec_write_header(FILE *sb, const struct rec_opts *o,
			     const struct pt_trace_caps *caps, int cpu0)
{
	struct utsname u;
	uint32_t eax, ebx, ratio;

	ptsb_put(sb, "tool", "pt-trace record");
	ptsb_put(sb, "time", "%lld", (long long)time(NULL));
	if (!uname(&u))
		ptsb_put(sb, "kernel", "%s %s %s", u.sysname, u.release,
			 u.machine);
	ptsb_put(sb, "backend", "%s",
		 caps->backend == PT_BACKEND_MODEL ? "model" : "hw");
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
	ptsb_put(sb, "caps.cpuid14.0", "0x%x 0x%x 0x%x 0x%x",
		 caps->cpuid_14[0][0], caps->cpuid_14[0][1],
		 caps->cpuid_14[0][2], caps->cpuid_14[0][3]);
	ptsb_put(sb, "caps.cpuid14.1", "0x%x 0x%x 0x%x 0x%x",
		 caps->cpuid_14[1][0], caps->cpuid_14[1][1],
		 caps->cpuid_14[1][2], caps->cpuid_14[1][3]);
	cpu_cpuid_0x15(&eax, &ebx);
	ptsb_put(sb, "cpuid15.eax", "%u", eax);
	ptsb_put(sb, "cpuid15.ebx", "%u", ebx);
	if (!cpu_max_nonturbo_ratio(cpu0, &ratio) && ratio) {
		ptsb_put(sb, "nom_freq", "%u", ratio);
		ptsb_put(sb, "nom_freq.source", "MSR_PLATFORM_INFO");
		ptsb_put(sb, "nominal_mhz", "%u", ratio * 100);
	} else {
		ptsb_put(sb, "nom_freq.source", "unknown");
	}
	ptsb_put(sb, "ctl", "0x%llx", (unsigned long long)rec_ctl(o));
	if (o->mtc)
		ptsb_put(sb, "mtc_freq", "%u", o->mtc_freq);
	if (o->cyc)
		ptsb_put(sb, "cyc_thresh", "%u", o->cyc_thresh);
	ptsb_put(sb, "mode", "%s", o->mode == PT_MODE_STREAM ? "stream" :
		 "flight");
	/* TSC offsets between CPUs are not measurable from here. */
	ptsb_put(sb, "tsc_offset", "0");
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

static void rec_status_line(struct rec_cpu *rcs, int n, double t0)
{
	uint64_t bytes = 0, lost = 0;
	double dt = rec_now() - t0;
	int i;

	for (i = 0; i < n; i++) {
		bytes += __atomic_load_n(&rcs[i].map.ctrl->data_head,
					 __ATOMIC_ACQUIRE);
		lost += __atomic_load_n(&rcs[i].map.ctrl->lost_bytes,
					__ATOMIC_RELAXED);
	}
	fprintf(stderr, "\r[record] %6.1fs %9.2f MB %8.2f MB/s lost %llu B   ",
		dt, bytes / 1e6, dt > 0 ? bytes / 1e6 / dt : 0.0,
		(unsigned long long)lost);
}

static int rec_parse(int argc, char **argv, struct rec_opts *o, int *cpus,
		     int *ncpus)
{
	enum { O_CR3 = 256, O_CYC, O_MTC, O_NOTSC, O_PSB, O_PTW, O_PWR,
	       O_FILTER, O_STOPAT };
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:C:d:p:ukb:m:h", opts,
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
			o->duration = strtod(optarg, NULL);
			if (!(o->duration > 0 && o->duration < 1e6))
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
		ptt_err("use either --pid or --cr3");
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
			ptt_err("/dev/pt%d: %s", rcs[i].cpu, ptdev_hint(err));
			if (err == -ENOENT && !cpu_has_intel_pt())
				ptt_err("this CPU has no Intel PT: CPUID.(EAX=07H):EBX[25]=0; load the module with backend=model to try the tools");
			return err == -ENOENT && !cpu_has_intel_pt() ?
				PTT_EXIT_NO_PT : PTT_EXIT_DEVICE;
		}
		err = ptdev_get_caps(rcs[i].fd, caps);
		if (err) {
			ptt_err("/dev/pt%d: GET_CAPS: %s", rcs[i].cpu,
				ptdev_hint(err));
			return PTT_EXIT_DEVICE;
		}
		if (rec_setup_cpu(&rcs[i], o, caps))
			return PTT_EXIT_DEVICE;
	}
	return 0;
}

/* Wait for the end: command exit, duration, or a signal. */
static int rec_wait(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		    pid_t child, FILE *sb, int *child_status)
{
	double t0 = rec_now();
	int tty = isatty(STDERR_FILENO), i, st;
	double last_status = 0;

	while (!__atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		if (child > 0) {
			pid_t w = waitpid(child, &st, WNOHANG);

			if (w == child && WIFSTOPPED(st)) {
				int sig = WSTOPSIG(st);

				/* exec or exit stop: read the map now. */
				if (sig == SIGTRAP) {
					if ((st >> 8) == (SIGTRAP |
							  (PTRACE_EVENT_EXIT << 8)))
						rec_write_maps(sb, child);
					else
						ptrace(PTRACE_SETOPTIONS, child,
						       NULL,
						       PTRACE_O_TRACEEXIT |
						       PTRACE_O_EXITKILL);
					sig = 0;
				}
				ptrace(PTRACE_CONT, child, NULL,
				       (void *)(long)sig);
			} else if (w == child) {
				*child_status = st;
				break;
			}
		}
		if (o->duration > 0 && rec_now() - t0 >= o->duration)
			break;
		if (o->mode == PT_MODE_STREAM)
			for (i = 0; i < n; i++)
				if (rec_drain(&rcs[i], sb))
					return -EIO;
		if (tty && rec_now() - last_status > 0.5) {
			rec_status_line(rcs, n, t0);
			last_status = rec_now();
		}
		usleep(child > 0 ? 2000 : 20000);
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

static int rec_finish(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		      FILE *sb)
{
	uint64_t total = 0, lost = 0;
	int i, err, ret = 0;

	for (i = 0; i < n; i++) {
		struct rec_cpu *rc = &rcs[i];

		err = ptdev_stop(rc->fd);
		if (err)
			ptt_warn("cpu %d: STOP: %s", rc->cpu, ptdev_hint(err));
		err = ptdev_get_status(rc->fd, &rc->status);
		if (err) {
			ptt_err("cpu %d: GET_STATUS: %s", rc->cpu,
				ptdev_hint(err));
			ret = PTT_EXIT_DEVICE;
			continue;
		}
		err = o->mode == PT_MODE_STREAM ? rec_drain(rc, sb) :
						  rec_flight_read(rc);
		if (err) {
			ptt_err("cpu %d: writing the trace: %s", rc->cpu,
				strerror(-err));
			ret = PTT_EXIT_INPUT;
		}
		ptsb_put(sb, "cpu", "%d", rc->cpu);
		ptsb_put(sb, "cpu.file", "%d cpu%d.pt", rc->cpu, rc->cpu);
		ptsb_put(sb, "cpu.bytes", "%d %llu", rc->cpu,
			 (unsigned long long)rc->written);
		ptsb_put(sb, "cpu.head", "%d %llu", rc->cpu,
			 (unsigned long long)rc->status.head);
		ptsb_put(sb, "cpu.wrapped", "%d %d", rc->cpu,
			 !!(rc->status.flags & PT_STATUS_WRAPPED));
		ptsb_put(sb, "cpu.lost_bytes", "%d %llu", rc->cpu,
			 (unsigned long long)rc->status.lost_bytes);
		ptsb_put(sb, "cpu.loss_records", "%d %llu", rc->cpu,
			 (unsigned long long)rc->status.loss_records);
		ptsb_put(sb, "cpu.rtit_status", "%d 0x%llx", rc->cpu,
			 (unsigned long long)rc->status.rtit_status);
		total += rc->written;
		lost += rc->status.lost_bytes;
		fprintf(stderr, "cpu%-3d %10llu bytes  produced %llu%s",
			rc->cpu, (unsigned long long)rc->written,
			(unsigned long long)rc->status.head,
			rc->status.flags & PT_STATUS_WRAPPED ? " (wrapped)" : "");
		fprintf(stderr, "  lost %llu bytes in %llu gaps%s\n",
			(unsigned long long)rc->status.lost_bytes,
			(unsigned long long)rc->status.loss_records,
			rc->status.flags & PT_STATUS_HW_ERROR ?
			"  HW ERROR" : "");
	}
	fprintf(stderr, "recorded %llu bytes on %d cpu(s), lost %llu bytes, into %s/\n",
		(unsigned long long)total, n, (unsigned long long)lost,
		o->outdir);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	static int cpus[REC_MAX_CPUS];
	struct rec_opts o = { .outdir = "pt-trace.data", .tsc = 1,
			      .mtc_freq = 3, .mode = PT_MODE_FLIGHT };
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
	if (!ncpus) {
		ncpus = ptdev_nr_cpus();
		for (i = 0; i < ncpus; i++)
			cpus[i] = i;
	}
	if (mkdir(o.outdir, 0755) && errno != EEXIST) {
		ptt_err("cannot create %s: %s", o.outdir, strerror(errno));
		return PTT_EXIT_INPUT;
	}
	rcs = calloc((size_t)ncpus, sizeof(*rcs));
	if (!rcs)
		return PTT_EXIT_INTERNAL;
	for (i = 0; i < ncpus; i++) {
		rcs[i].cpu = cpus[i];
		rcs[i].fd = -1;
		rcs[i].out = -1;
	}
	ret = rec_open_all(rcs, ncpus, &o, &caps);
	if (ret)
		goto out;
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
	}
	rec_write_header(sb, &o, &caps, rcs[0].cpu);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rec_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	for (i = 0; i < ncpus; i++) {
		int err = ptdev_start(rcs[i].fd);

		if (err) {
			ptt_err("cpu %d: START: %s", rcs[i].cpu,
				ptdev_hint(err));
			while (--i >= 0)
				ptdev_stop(rcs[i].fd);
			ret = PTT_EXIT_DEVICE;
			goto out_sb;
		}
	}
	if (o.pid > 0) {
		ptsb_put(sb, "pid", "%d", (int)o.pid);
		rec_write_maps(sb, o.pid);
	}
	if (o.cmd) {
		child = rec_spawn(o.cmd, rcs[0].cpu);
		if (child < 0)
			ptt_err("fork: %s", strerror(errno));
		else
			ptsb_put(sb, "pid", "%d", (int)child);
	}
	if (rec_wait(rcs, ncpus, &o, child, sb, &child_status))
		ret = PTT_EXIT_INPUT;
	if (child > 0 && __atomic_load_n(&rec_stop, __ATOMIC_RELAXED)) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
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
	}
	free(rcs);
	return ret;
}
