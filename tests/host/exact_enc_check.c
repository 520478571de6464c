// SPDX-License-Identifier: GPL-2.0
/*
 * The exact model's packet encoder (drivers/pt_trace/model/exact_enc.c,
 * compiled here as it is) against libipt, on real programs: run PROG
 * under ptrace, single-step every user instruction, feed each one to the
 * encoder as the model's stepper does (TIP.PGE where user code starts or
 * resumes after a syscall, PSB+ every --psb instructions) and write
 *   OUT.pt    the raw trace,
 *   OUT.ips   the stepped instruction addresses, one a line (%016llx),
 *             what `pt-trace decode --format=ip` must print exactly,
 *   OUT.elf   one --elf argument a line (FILE or FILE:BASE) for every
 *             executable mapping at exit, the vdso dumped to OUT.vdso.
 * A rep-prefixed string instruction steps once per iteration but is one
 * instruction for PT: the repeats are collapsed.  Under ptrace a step over
 * `syscall` stops at the next instruction (the kernel's syscall-exit
 * trap), which is where the encoder re-enters (TIP.PGE before the
 * first instruction that runs).  A signal delivered before an instruction
 * ran (a fault, or a signal pending at a syscall's return) is an
 * asynchronous leave at that instruction.  With --irq N an
 * interrupt is encoded before every Nth instruction (FUP, TIP.PGD, then
 * TIP.PGE at the same IP): the decoded flow must not change.  With
 * --filter LO-HI only [LO, HI) is traced (IP filtering: TIP.PGD(target)
 * where the flow leaves it); with --stop ADDR tracing ends with TraceStop
 * when the flow reaches ADDR.  OUT.ips then holds what must be decoded.
 *
 * Exit 0 when every instruction was encoded and nothing was unclassified,
 * 1 otherwise, 2 on usage or system errors.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exact_enc.h"

#define TRACE_CAP	(256u << 20)
#define MAX_STEPS	20000000ull

static const char *out;
static FILE *ips;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static FILE *out_file(const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", out, ext);
	f = fopen(path, "w");
	if (!f)
		die(path);
	return f;
}

/* ET_EXEC: the e_type after the 16 bytes of e_ident (little-endian). */
static int elf_is_exec(const char *path)
{
	unsigned char h[EI_NIDENT + 2];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n != sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return -1;
	return (h[EI_NIDENT] | h[EI_NIDENT + 1] << 8) == ET_EXEC;
}

/*
 * Every file with an executable mapping, at the address of its offset-0
 * mapping (the load bias of a position-independent file); the vdso as a
 * file of its own.
 */
static void write_maps(pid_t pid, int mem)
{
	static struct map {
		unsigned long long start, end, off;
		char perms[8], file[512];
	} m[1024];
	unsigned int n = 0, i, j;
	char path[4096], line[1024];
	FILE *maps, *elf;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	if (!maps)
		die(path);
	while (n < 1024 && fgets(line, sizeof(line), maps)) {
		m[n].file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511[^\n]",
			   &m[n].start, &m[n].end, m[n].perms, &m[n].off,
			   m[n].file) >= 4)
			n++;
	}
	fclose(maps);
	elf = out_file("elf");
	for (i = 0; i < n; i++) {
		if (m[i].perms[2] != 'x')
			continue;
		if (!strcmp(m[i].file, "[vdso]")) {
			size_t len = m[i].end - m[i].start;
			char *buf = malloc(len);
			FILE *v = out_file("vdso");

			if (!buf || pread(mem, buf, len, m[i].start) != (ssize_t)len)
				die("vdso");
			fwrite(buf, 1, len, v);
			fclose(v);
			free(buf);
			fprintf(elf, "%s.vdso:0x%llx\n", out, m[i].start);
			continue;
		}
		if (m[i].file[0] != '/')
			continue;
		for (j = 0; j < i; j++)	/* once per file */
			if (m[j].perms[2] == 'x' && !strcmp(m[j].file, m[i].file))
				break;
		if (j < i)
			continue;
		if (elf_is_exec(m[i].file) == 1) {
			fprintf(elf, "%s\n", m[i].file);
			continue;
		}
		/* The file's offset-0 mapping is its load bias. */
		for (j = 0; j < n; j++)
			if (!m[j].off && !strcmp(m[j].file, m[i].file))
				break;
		if (j < n)
			fprintf(elf, "%s:0x%llx\n", m[i].file, m[j].start);
	}
	fclose(elf);
}

/* Instructions that leave user mode, whatever the IP filter says. */
static bool leaves_user(unsigned int cls)
{
	switch (cls) {
	case PT_INSN_SYSCALL:
	case PT_INSN_SYSENTER:
	case PT_INSN_SYSRET:
	case PT_INSN_SYSEXIT:
	case PT_INSN_INT:
	case PT_INSN_INT3:
	case PT_INSN_INT1:
	case PT_INSN_UD:
	case PT_INSN_INVALID:
		return true;
	}
	return false;
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: exact_enc_check [--disretc] [--long-tnt] [--psb N] [--irq N]\n"
		"       [--filter LO-HI] [--stop ADDR] -o OUT -- PROG [ARGS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "disretc", no_argument, NULL, 'r' },
		{ "long-tnt", no_argument, NULL, 'l' },
		{ "psb", required_argument, NULL, 'p' },
		{ "irq", required_argument, NULL, 'i' },
		{ "filter", required_argument, NULL, 'f' },
		{ "stop", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct pt_exact_cfg cfg = { .branch_en = true };
	unsigned long long psb = 4096, steps = 0, insns = 0, since_psb = 0;
	unsigned long long bad = 0, irq = 0, since_irq = 0, signals = 0;
	unsigned long long lo = 0, hi = ~0ull, stop = 0;
	bool stopped = false;
	struct pt_exact_enc e;
	struct pt_pkt_buf b;
	char path[64];
	int c, status, mem, sig;
	bool delivered;
	u8 *buf;
	pid_t pid;
	FILE *pt;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			cfg.disretc = true;
			break;
		case 'l':
			cfg.long_tnt = true;
			break;
		case 'p':
			psb = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			irq = strtoull(optarg, NULL, 0);
			since_irq = irq;
			break;
		case 'f':
			if (sscanf(optarg, "%llx-%llx", &lo, &hi) != 2)
				bad_usage();
			break;
		case 's':
			stop = strtoull(optarg, NULL, 16);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			bad_usage();
		}
	}
	if (!out || optind >= argc || !psb)
		bad_usage();

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		personality(ADDR_NO_RANDOMIZE);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			die("PTRACE_TRACEME");
		execv(argv[optind], argv + optind);
		die(argv[optind]);
	}
	/* The exec stops the child with SIGTRAP at its first instruction. */
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		die("exec stop");
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY);
	if (mem < 0)
		die(path);

	buf = malloc(TRACE_CAP);
	if (!buf)
		die("malloc");
	pt_pkt_init(&b, buf, TRACE_CAP);
	pt_exact_enc_init(&e, &cfg);
	ips = out_file("ips");

	for (;;) {
		struct user_regs_struct regs;
		struct pt_insn in;
		u8 bytes[PT_INSN_MAX_LEN];
		ssize_t n;
		u64 ip, next = 0;
		int len;

		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			die("PTRACE_GETREGS");
		ip = regs.rip;
		if (!since_psb) {
			pt_exact_enc_psb_begin(&e, &b);
			pt_pkt_tsc(&b, steps);
			pt_exact_enc_psb_end(&e, &b, ip);
			since_psb = psb;
		}
		/*
		 * An interrupt before the instruction at ip (--irq): FUP(ip),
		 * TIP.PGD, and back at ip with TIP.PGE; the flow is the same.
		 */
		if (irq && e.in && !--since_irq) {
			pt_exact_enc_leave_async(&e, &b, ip);
			since_irq = irq;
		}
		/* The last bytes of a mapping read short: decode what is there. */
		n = pread(mem, bytes, sizeof(bytes), ip);
		if (n <= 0)
			die("reading the instruction");
		len = pt_insn_decode(bytes, n, &in);
		if (len <= 0) {
			fprintf(stderr, "%016llx: undecodable (%d)\n",
				(unsigned long long)ip, len);
			bad++;
			break;
		}
		if (in.cls == PT_INSN_SYSCALL &&
		    (regs.orig_rax == 231 || regs.rax == 231 || regs.rax == 60))
			write_maps(pid, mem);

		/*
		 * One instruction: rep iterations stop at the same IP.  A
		 * signal stop means the instruction did not run: the signal
		 * (its fault, or one pending when a syscall returned) is
		 * delivered with the next step, which stops at the handler.
		 */
		sig = 0;
		delivered = false;
		for (;;) {
			if (ptrace(PTRACE_SINGLESTEP, pid, NULL,
				   (void *)(long)sig))
				die("PTRACE_SINGLESTEP");
			if (waitpid(pid, &status, 0) != pid)
				die("waitpid");
			steps++;
			if (!WIFSTOPPED(status) || steps >= MAX_STEPS)
				break;
			if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
				die("PTRACE_GETREGS");
			next = regs.rip;
			if (WSTOPSIG(status) != SIGTRAP) {
				sig = WSTOPSIG(status);
				delivered = true;
				continue;
			}
			sig = 0;
			if (delivered || !in.rep || next != ip)
				break;
		}
		if (!WIFSTOPPED(status))
			next = 0;	/* exit_group: never returns */
		if (delivered) {
			/* Silicon: FUP(ip), TIP.PGD; TIP.PGE at the handler. */
			pt_exact_enc_leave_async(&e, &b, ip);
			signals++;
			if (!WIFSTOPPED(status))
				break;
			continue;
		}
		/* IP filtering: code outside [lo, hi) runs untraced. */
		if (ip < lo || ip >= hi) {
			if (!WIFSTOPPED(status) || steps >= MAX_STEPS)
				break;
			continue;
		}
		if (!e.in)
			pt_exact_enc_enter(&e, &b, ip);
		fprintf(ips, "%016llx\n", (unsigned long long)ip);
		if (stop && next == stop) {
			pt_exact_enc_insn_stop(&e, &b, ip, &in, next);
			stopped = true;
		} else if (next && (next < lo || next >= hi) &&
			   !leaves_user(in.cls)) {
			pt_exact_enc_insn_filtered(&e, &b, ip, &in, next);
		} else {
			pt_exact_enc_insn(&e, &b, ip, &in, next);
		}
		if (stopped) {
			write_maps(pid, mem);
			insns++;
			break;
		}
		if (e.nofit) {
			fprintf(stderr, "trace buffer full\n");
			bad++;
			break;
		}
		insns++;
		since_psb--;
		if (!WIFSTOPPED(status) || steps >= MAX_STEPS)
			break;
	}
	if (WIFSTOPPED(status))
		kill(pid, SIGKILL);
	pt_exact_enc_flush(&e, &b);
	pt = out_file("pt");
	if (fwrite(b.buf, 1, b.len, pt) != b.len || fclose(pt))
		die("writing the trace");
	fclose(ips);
	printf("%llu steps, %llu instructions, %llu signals, %u bytes, %u packets, ",
	       steps, insns, signals, b.len, b.packets);
	printf("%llu compressed rets, unclassified %llu, misuse %llu, far %llu\n",
	       (unsigned long long)e.ret_compressed,
	       (unsigned long long)e.unclassified,
	       (unsigned long long)e.misuse, (unsigned long long)e.far);
	return bad || e.unclassified || e.misuse || steps >= MAX_STEPS;
}
