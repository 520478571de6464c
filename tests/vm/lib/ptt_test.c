// SPDX-License-Identifier: GPL-2.0
/* The in-VM test library, see ptt_test.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <regex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>
#include <intel-pt.h>

#include "ptt_test.h"

int ptt_failures;

void ptt_fail(const char *file, int line, const char *expr,
	      const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s:%d: %s: ", file, line, expr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	ptt_failures++;
}

int ptt_done(void)
{
	if (ptt_failures)
		fprintf(stderr, "%d check(s) failed\n", ptt_failures);
	return ptt_failures ? 1 : 0;
}

int ptt_read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

long long ptt_read_ll(const char *path)
{
	char buf[64];

	if (ptt_read_str(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

int ptt_open_cpu(int cpu, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/pt%d", cpu);
	return open(path, flags);
}

int ptt_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void ptt_count(struct ptt_packet_stats *s, const struct pt_packet *p)
{
	switch (p->type) {
	case ppt_psb:
		s->psb++;
		break;
	case ppt_psbend:
		s->psbend++;
		break;
	case ppt_fup:
		s->fup++;
		break;
	case ppt_tip:
		s->tip++;
		break;
	case ppt_tip_pge:
		s->tip_pge++;
		break;
	case ppt_tip_pgd:
		s->tip_pgd++;
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
		s->tnt++;
		break;
	case ppt_mode:
		if (p->payload.mode.leaf == pt_mol_tsx)
			s->mode_tsx++;
		else
			s->mode_exec++;
		break;
	case ppt_pip:
		s->pip++;
		break;
	case ppt_tsc:
		s->tsc++;
		break;
	case ppt_tma:
		s->tma++;
		break;
	case ppt_cbr:
		s->cbr++;
		break;
	case ppt_mtc:
		s->mtc++;
		break;
	case ppt_cyc:
		s->cyc++;
		break;
	case ppt_ptw:
		s->ptw++;
		break;
	case ppt_pwre:
		s->pwre++;
		break;
	case ppt_pwrx:
		s->pwrx++;
		break;
	case ppt_exstop:
		s->exstop++;
		break;
	case ppt_mwait:
		s->mwait++;
		break;
	case ppt_ovf:
		s->ovf++;
		break;
	case ppt_vmcs:
		s->vmcs++;
		break;
	case ppt_pad:
		s->pad++;
		break;
	default:
		s->other++;
		break;
	}
}

int ptt_walk_packets(const __u8 *buf, size_t len,
		     struct ptt_packet_stats *stats, ptt_packet_fn fn,
		     void *ctx)
{
	struct ptt_packet_stats dummy;
	struct pt_config config;
	struct pt_packet_decoder *dec;
	int ret;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	pt_config_init(&config);
	config.begin = (__u8 *)buf;
	config.end = (__u8 *)buf + len;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return -1;

	ret = pt_pkt_sync_forward(dec);
	if (ret < 0) {
		pt_pkt_free_decoder(dec);
		return -1;
	}
	for (;;) {
		struct pt_packet pkt;

		ret = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			unsigned long off = 0;	/* libipt's uint64_t */

			pt_pkt_get_offset(dec, &off);
			if (!stats->errors)
				stats->first_error_offset = off;
			stats->errors++;
			ret = pt_pkt_sync_forward(dec);
			if (ret < 0)
				break;
			continue;
		}
		stats->packets++;
		ptt_count(stats, &pkt);
		if (fn)
			fn(&pkt, ctx);
	}
	pt_pkt_free_decoder(dec);
	return 0;
}

int ptt_decode_packets(const __u8 *buf, size_t len,
		       struct ptt_packet_stats *stats)
{
	return ptt_walk_packets(buf, len, stats, NULL, NULL);
}

static void ptt_seq_fn(const struct pt_packet *pkt, void *ctx)
{
	struct ptt_seq *s = ctx;
	__u64 v = pkt->payload.ptw.payload;

	if (pkt->type != ppt_ptw)
		return;
	if (s->ptws && v != s->last + 1)
		s->breaks++;
	if (!s->ptws)
		s->first = v;
	s->last = v;
	s->ptws++;
}

void ptt_ptw_seq(const __u8 *buf, size_t len, struct ptt_seq *seq)
{
	memset(seq, 0, sizeof(*seq));
	if (len)
		ptt_walk_packets(buf, len, NULL, ptt_seq_fn, seq);
}

void ptt_busy(unsigned long loops)
{
	static unsigned long sink;

	for (unsigned long i = 0; i < loops; i++) {
		sink += i;
		__asm__ __volatile__("" : : "r"(sink) : "memory");
		if (!(i % 512))
			getppid();
	}
}

long ptt_vmpin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmPin:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int ptt_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

int ptt_dmesg_count(const char *regex)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf, *l, *e;
	int len, n = 0;
	regex_t re;

	/* No shell between: any pattern (quotes too) means what grep's would. */
	if (size <= 0 || regcomp(&re, regex, REG_NOSUB))
		return -1;
	buf = malloc((size_t)size + 1);
	len = buf ? klogctl(3, buf, size) : -1;	/* SYSLOG_ACTION_READ_ALL */
	if (len < 0) {
		free(buf);
		regfree(&re);
		return -1;
	}
	buf[len] = 0;
	for (l = buf; *l; l = e ? e + 1 : l + strlen(l)) {
		e = strchr(l, '\n');
		if (e)
			*e = 0;
		n += !regexec(&re, l, 0, NULL, 0);
	}
	free(buf);
	regfree(&re);
	return n;
}
