// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace contexts: the execution contexts of a raw trace under VMX,
 * keyed by (VMCS, PIP.NR, CR3) (vmx_context.c), one line each: host or
 * guest, packets, IP packets and the span of host time its TSC packets
 * give (a guest's converted back with --guest-tsc).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "pkt_walk.h"
#include "tool.h"
#include "vmx_context.h"

#define CTX_MAX_GUESTS	64

static void contexts_usage(FILE *f)
{
	fputs("usage: pt-trace contexts [options] FILE\n"
	      "\n"
	      "List the execution contexts of a raw trace (a recording's cpuN.pt):\n"
	      "host or guest (PIP.NR), the VMCS of a guest, the CR3, with their\n"
	      "packets and the host time their TSC packets span.\n"
	      "\n"
	      "options:\n"
	      "  --guest-tsc VMCS:OFFSET:RATIO  the TSC offset and scaling ratio\n"
	      "                 (48 fraction bits, 0 for 1.0) of the guest with that\n"
	      "                 VMCS, as KVM's debugfs tsc-offset and tsc-scaling-ratio\n"
	      "                 say; its TSC packets are converted to host time\n"
	      "  -h, --help     this text\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace contexts rec/cpu0.pt\n"
	      "  pt-trace contexts --guest-tsc 0x12345000:0x10000000000:0 rec/cpu0.pt\n"
	      "\n"
	      "exit status: 0 shown, 1 bad usage, 2 unreadable or undecodable input.\n",
	      f);
}

static void contexts_print(const struct vmx_ctx_state *s)
{
	unsigned int i, j;

	printf("%-6s %-18s %-18s %10s %10s  %s\n", "where", "vmcs", "cr3",
	       "packets", "ips", "host tsc first .. last");
	for (i = 0; i < s->n; i++) {
		const struct vmx_ctx *c = &s->ctx[i];
		int same = 0;

		for (j = 0; c->nr && j < s->n; j++)
			same |= !s->ctx[j].nr && s->ctx[j].cr3 == c->cr3;
		printf("%-6s 0x%016llx 0x%016llx %10llu %10llu  ",
		       c->nr ? "guest" : "host",
		       (unsigned long long)c->vmcs,
		       (unsigned long long)c->cr3,
		       (unsigned long long)c->packets,
		       (unsigned long long)c->ips);
		if (c->have_tsc)
			printf("%llu .. %llu",
			       (unsigned long long)c->tsc_first,
			       (unsigned long long)c->tsc_last);
		else
			printf("-");
		printf("%s\n", same ? "  (the host's CR3 too)" : "");
	}
	if (s->lost)
		ptt_warn("%llu packets in contexts beyond the first %d",
			 (unsigned long long)s->lost, VMX_CTX_MAX);
}

static int contexts_packet(void *arg, const struct pt_packet *pkt,
			   uint64_t off, int err)
{
	struct vmx_ctx_state *s = arg;

	(void)off;
	if (err)
		s->cur = -1;	/* the context comes back at the next PSB */
	else
		vmx_ctx_packet(s, pkt, pkt_has_ip(pkt));
	return 0;
}

int cmd_contexts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "guest-tsc", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vmx_guest_tsc tsc[CTX_MAX_GUESTS];
	struct vmx_ctx_state *s;
	unsigned int ntsc = 0;
	uint8_t *buf;
	size_t len;
	int c, err;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (ntsc == CTX_MAX_GUESTS ||
			    vmx_guest_tsc_parse(optarg, &tsc[ntsc])) {
				ptt_err("--guest-tsc wants VMCS:OFFSET:RATIO (at most %d)",
					CTX_MAX_GUESTS);
				return PTT_EXIT_USAGE;
			}
			ntsc++;
			break;
		case 'h':
			contexts_usage(stdout);
			return PTT_EXIT_OK;
		default:
			contexts_usage(stderr);
			return PTT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		ptt_err("one trace file expected (try --help)");
		return PTT_EXIT_USAGE;
	}
	if (ptt_load_file(argv[optind], &buf, &len))
		return PTT_EXIT_INPUT;
	s = malloc(sizeof(*s));
	if (!s) {
		free(buf);
		return PTT_EXIT_INTERNAL;
	}
	vmx_ctx_init(s, tsc, ntsc);
	err = pkt_walk(buf, len, contexts_packet, s) < 0;
	if (err)
		ptt_err("%s: no PSB to start decoding at", argv[optind]);
	else
		contexts_print(s);
	free(s);
	free(buf);
	return err ? PTT_EXIT_INPUT : PTT_EXIT_OK;
}
