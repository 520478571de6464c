// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace dump: every packet of a raw trace, by libipt's packet decoder.
 * The default text is line for line what libipt's ptdump prints with
 * default options (see dump_format.c); annotations, statistics and JSON
 * are opt-in so that the default stays comparable.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_format.h"
#include "outbuf.h"
#include "sideband.h"
#include "tool.h"
#include "trace_config.h"

#define DUMP_ANN_NR	(1U << 0)	/* PIP.NR, VMCS */
#define DUMP_ANN_TSX	(1U << 1)	/* MODE.TSX as begin/commit/abort */
#define DUMP_ANN_OVF	(1U << 2)	/* OVF meaning */
#define DUMP_ANN_LOSS	(1U << 3)	/* recorder loss records */
#define DUMP_ANN_ALL	0xfU

struct dump_loss {
	uint64_t offset;
	uint64_t bytes;
};

struct dump_ctx {
	unsigned int annotate;
	int stats;
	int json;
	int no_pad;
	int no_sync;
	const char *path;
	struct outbuf ob;
	uint64_t counts[PD_NR_KINDS];
	uint64_t packets;
	uint64_t errors;
	uint64_t sync_offset;
	int synced;
	struct dump_loss *loss;
	size_t nr_loss, next_loss;
	uint64_t lost_bytes;
	int json_first;
};

static void dump_usage(FILE *f)
{
	fprintf(f,
"usage: pt-trace dump [options] FILE.pt\n"
"\n"
"Print the packets of a raw Intel PT trace, from the first PSB, in the\n"
"format of libipt's ptdump.  Decode errors print\n"
"[OFFSET: error decoding packet: REASON] and the dump resumes at the\n"
"next PSB.\n"
"\n"
"options:\n"
"  -s, --stats          per-packet-type counts instead of the packets\n"
"  -j, --json           JSON: an array of packets (with --stats: an object)\n"
"  -A, --annotate       all annotations below\n"
"      --nr             PIP: guest/host (PIP.NR) and CR3; VMCS base\n"
"      --tsx            MODE.TSX: transaction begin/commit/abort\n"
"      --ovf            explain OVF (internal overflow, packets lost)\n"
"      --loss           the recorder's loss records (needs sideband.txt\n"
"                       next to the trace, as 'pt-trace record' writes)\n"
"      --no-pad         do not print PAD packets\n"
"      --no-sync        decode from offset 0, not from the first PSB\n"
"      --cpu F/M[/S]    decode for this CPU's errata (default: sideband)\n"
"  -o, --output FILE    write to FILE instead of standard output\n"
"  -h, --help           this text\n"
"\n"
"examples:\n"
"  pt-trace dump out/cpu0.pt | less\n"
"  pt-trace dump --stats out/cpu0.pt\n"
"  pt-trace dump -A out/cpu0.pt | grep -e tsx -e loss\n"
"  pt-trace dump --json out/cpu0.pt > cpu0.json\n"
"\n"
"exit status: 0 dumped (decode errors are part of the output),\n"
"1 bad usage, 2 unreadable input, 5 internal error.\n");
}

static void dump_load_loss(struct dump_ctx *d, const struct ptsb *sb,
			   int cpu)
{
	size_t pos = 0, alloc = 0;
	const char *v;

	while ((v = ptsb_next(sb, "loss", &pos))) {
		unsigned long long off, bytes;
		int c;

		if (sscanf(v, "%d %lli %lli", &c, &off, &bytes) != 3 ||
		    c != cpu)
			continue;
		if (d->nr_loss == alloc) {
			struct dump_loss *n;

			alloc = alloc ? alloc * 2 : 16;
			n = realloc(d->loss, alloc * sizeof(*n));
			if (!n)
				return;
			d->loss = n;
		}
		d->loss[d->nr_loss].offset = off;
		d->loss[d->nr_loss].bytes = bytes;
		d->lost_bytes += bytes;
		d->nr_loss++;
	}
}

/* Loss records are printed before the first packet at or after them. */
static void dump_emit_loss(struct dump_ctx *d, uint64_t offset)
{
	while (d->next_loss < d->nr_loss &&
	       d->loss[d->next_loss].offset <= offset) {
		const struct dump_loss *l = &d->loss[d->next_loss++];

		if (d->stats)
			continue;
		if (d->json) {
			ob_printf(&d->ob, "%s\n{\"offset\":%" PRIu64
				  ",\"loss\":%" PRIu64 "}",
				  d->json_first ? "" : ",", l->offset,
				  l->bytes);
			d->json_first = 0;
		} else {
			ob_printf(&d->ob, "[%" PRIx64 ": loss: %" PRIu64
				  " bytes lost by the recorder]\n",
				  l->offset, l->bytes);
		}
	}
}

static char *dump_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* The annotation of one packet, or p unchanged. */
static char *dump_annotation(const struct dump_ctx *d, char *p,
			     const struct pt_packet *pkt)
{
	switch (pkt->type) {
	case ppt_pip:
		if (!(d->annotate & DUMP_ANN_NR))
			return p;
		p = dump_str(p, pkt->payload.pip.nr ?
			     "guest (PIP.NR=1, VMX non-root), cr3 " :
			     "host (PIP.NR=0), cr3 ");
		return pd_hex_fixed(p, pkt->payload.pip.cr3, 16);
	case ppt_vmcs:
		if (!(d->annotate & DUMP_ANN_NR))
			return p;
		p = dump_str(p, "vmcs base ");
		return pd_hex_fixed(p, pkt->payload.vmcs.base, 16);
	case ppt_mode:
		if (!(d->annotate & DUMP_ANN_TSX) ||
		    pkt->payload.mode.leaf != pt_mol_tsx)
			return p;
		if (pkt->payload.mode.bits.tsx.abrt)
			return dump_str(p, "tsx abort");
		if (pkt->payload.mode.bits.tsx.intx)
			return dump_str(p, "tsx begin (in transaction)");
		return dump_str(p, "tsx commit (transaction left)");
	case ppt_ovf:
		if (!(d->annotate & DUMP_ANN_OVF))
			return p;
		return dump_str(p, "overflow: the CPU dropped packets here");
	default:
		return p;
	}
}

static void dump_text(struct dump_ctx *d, uint64_t offset,
		      const struct pt_packet *pkt, const uint8_t *raw)
{
	char *start, *p, *note, *end;

	if (d->no_pad && pkt->type == ppt_pad)
		return;
	start = ob_reserve(&d->ob);
	p = pd_format_line(start, offset, pkt, raw);
	if (d->annotate) {
		note = dump_str(p, "  ; ");
		end = dump_annotation(d, note, pkt);
		if (end != note)
			p = end;
	}
	*p++ = '\n';
	ob_commit(&d->ob, p);
}

static void dump_json(struct dump_ctx *d, uint64_t offset,
		      const struct pt_packet *pkt, const uint8_t *raw)
{
	char *p, *note, *end;

	if (d->no_pad && pkt->type == ppt_pad)
		return;
	p = ob_reserve(&d->ob);
	if (!d->json_first)
		*p++ = ',';
	d->json_first = 0;
	p += sprintf(p, "\n{\"offset\":%" PRIu64 ",\"size\":%u,\"type\":\"%s\""
		     ",\"payload\":\"", offset, pkt->size,
		     pd_kind_name(pd_kind_of(pkt)));
	p = pd_format_payload(p, pkt, raw);
	*p++ = '"';
	switch (pkt->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		p += sprintf(p, ",\"ipc\":%d,\"ip\":\"0x%" PRIx64 "\"",
			     (int)pkt->payload.ip.ipc, pkt->payload.ip.ip);
		break;
	case ppt_pip:
		p += sprintf(p, ",\"cr3\":\"0x%" PRIx64 "\",\"nr\":%s",
			     pkt->payload.pip.cr3,
			     pkt->payload.pip.nr ? "true" : "false");
		break;
	case ppt_tsc:
		p += sprintf(p, ",\"tsc\":%" PRIu64, pkt->payload.tsc.tsc);
		break;
	default:
		break;
	}
	if (d->annotate) {
		note = dump_str(p, ",\"note\":\"");
		end = dump_annotation(d, note, pkt);
		if (end != note) {
			p = end;
			*p++ = '"';
		}
	}
	*p++ = '}';
	ob_commit(&d->ob, p);
}

static void dump_error(struct dump_ctx *d, uint64_t offset, const char *what,
		       int err)
{
	d->errors++;
	if (d->stats)
		return;
	if (d->json) {
		ob_printf(&d->ob, "%s\n{\"offset\":%" PRIu64
			  ",\"error\":\"%s: %s\"}", d->json_first ? "" : ",",
			  offset, what, pt_errstr(pt_errcode(err)));
		d->json_first = 0;
		return;
	}
	ob_printf(&d->ob, "[%" PRIx64 ": %s: %s]\n", offset, what,
		  pt_errstr(pt_errcode(err)));
}

static int dump_walk(struct dump_ctx *d, const struct pt_config *config)
{
	struct pt_packet_decoder *dec;
	int err;

	dec = pt_pkt_alloc_decoder(config);
	if (!dec) {
		ptt_err("libipt could not allocate a packet decoder");
		return PTT_EXIT_INTERNAL;
	}
	err = d->no_sync ? pt_pkt_sync_set(dec, 0) : pt_pkt_sync_forward(dec);
	if (err < 0) {
		if (err != -pte_eos)
			dump_error(d, 0, "sync error", err);
		goto out;
	}
	d->synced = 1;
	pt_pkt_get_sync_offset(dec, &d->sync_offset);
	for (;;) {
		struct pt_packet pkt;
		uint64_t offset = 0;

		pt_pkt_get_offset(dec, &offset);
		err = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (err < 0) {
			if (err == -pte_eos)
				break;
			dump_emit_loss(d, offset);
			dump_error(d, offset, "error decoding packet", err);
			err = pt_pkt_sync_forward(dec);
			if (err < 0) {
				if (err != -pte_eos)
					dump_error(d, 0, "sync error", err);
				break;
			}
			continue;
		}
		d->packets++;
		d->counts[pd_kind_of(&pkt)]++;
		if (d->next_loss < d->nr_loss)
			dump_emit_loss(d, offset);
		if (d->stats)
			continue;
		if (d->json)
			dump_json(d, offset, &pkt, config->begin + offset);
		else
			dump_text(d, offset, &pkt, config->begin + offset);
	}
	dump_emit_loss(d, UINT64_MAX);
out:
	pt_pkt_free_decoder(dec);
	return PTT_EXIT_OK;
}

static void dump_print_stats(struct dump_ctx *d, size_t bytes)
{
	int k;

	if (d->json) {
		const char *sep = "";

		ob_puts(&d->ob, "{\"file\":\"");
		for (const char *s = d->path; *s; s++) {
			if (*s == '"' || *s == '\\')
				ob_printf(&d->ob, "\\%c", *s);
			else if ((unsigned char)*s < 0x20)
				ob_printf(&d->ob, "\\u%04x", *s);
			else
				ob_printf(&d->ob, "%c", *s);
		}
		ob_printf(&d->ob, "\",\"bytes\":%zu,\"sync_offset\":%" PRIu64
			  ",\"packets\":%" PRIu64 ",\"errors\":%" PRIu64
			  ",\"loss_records\":%zu,\"lost_bytes\":%" PRIu64
			  ",\"types\":{", bytes, d->sync_offset, d->packets,
			  d->errors, d->nr_loss, d->lost_bytes);
		for (k = 0; k < PD_NR_KINDS; k++) {
			if (!d->counts[k])
				continue;
			ob_printf(&d->ob, "%s\"%s\":%" PRIu64, sep,
				  pd_kind_name(k), d->counts[k]);
			sep = ",";
		}
		ob_puts(&d->ob, "}}\n");
		return;
	}
	ob_printf(&d->ob, "file: %s\nbytes: %zu\n", d->path, bytes);
	if (d->synced)
		ob_printf(&d->ob, "first psb: 0x%" PRIx64 "\n",
			  d->sync_offset);
	else
		ob_puts(&d->ob, "first psb: none\n");
	ob_printf(&d->ob, "packets: %" PRIu64 "\nerrors: %" PRIu64 "\n",
		  d->packets, d->errors);
	ob_printf(&d->ob, "loss records: %zu\nlost bytes: %" PRIu64 "\n",
		  d->nr_loss, d->lost_bytes);
	for (k = 0; k < PD_NR_KINDS; k++)
		if (d->counts[k])
			ob_printf(&d->ob, "  %-10s %12" PRIu64 "\n",
				  pd_kind_name(k), d->counts[k]);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "annotate", no_argument, NULL, 'A' },
		{ "nr", no_argument, NULL, 'N' },
		{ "tsx", no_argument, NULL, 'T' },
		{ "ovf", no_argument, NULL, 'O' },
		{ "loss", no_argument, NULL, 'L' },
		{ "no-pad", no_argument, NULL, 'P' },
		{ "no-sync", no_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_ctx d;
	struct pt_config config;
	const char *cpu_arg = NULL, *out = NULL;
	struct ptsb sb;
	uint8_t *buf = NULL;
	size_t len = 0;
	int c, err, fd = STDOUT_FILENO, ret, sb_cpu;

	memset(&d, 0, sizeof(d));
	d.json_first = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "sjAo:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			d.stats = 1;
			break;
		case 'j':
			d.json = 1;
			break;
		case 'A':
			d.annotate |= DUMP_ANN_ALL;
			break;
		case 'N':
			d.annotate |= DUMP_ANN_NR;
			break;
		case 'T':
			d.annotate |= DUMP_ANN_TSX;
			break;
		case 'O':
			d.annotate |= DUMP_ANN_OVF;
			break;
		case 'L':
			d.annotate |= DUMP_ANN_LOSS;
			break;
		case 'P':
			d.no_pad = 1;
			break;
		case 'S':
			d.no_sync = 1;
			break;
		case 'c':
			cpu_arg = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			dump_usage(stdout);
			return PTT_EXIT_OK;
		default:
			dump_usage(stderr);
			return PTT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		ptt_err("expected exactly one trace file (try --help)");
		return PTT_EXIT_USAGE;
	}
	d.path = argv[optind];

	pt_config_init(&config);
	if (!ptt_find_sideband(d.path, &sb, &sb_cpu)) {
		ptt_config_from_sideband(&config, &sb);
		/* Stats report losses always; the text only when asked. */
		if (sb_cpu >= 0 && (d.stats || (d.annotate & DUMP_ANN_LOSS)))
			dump_load_loss(&d, &sb, sb_cpu);
		ptsb_free(&sb);
	}
	if (cpu_arg && ptt_config_set_cpu(&config, cpu_arg)) {
		ptt_err("--cpu wants FAMILY/MODEL[/STEPPING], e.g. 6/85/4");
		return PTT_EXIT_USAGE;
	}

	err = ptt_load_file(d.path, &buf, &len);
	if (err) {
		ptt_err("cannot read %s: %s", d.path, strerror(-err));
		free(d.loss);
		return PTT_EXIT_INPUT;
	}
	config.begin = buf;
	config.end = buf + len;

	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ptt_err("cannot create %s: %s", out, strerror(errno));
			free(buf);
			free(d.loss);
			return PTT_EXIT_INPUT;
		}
	}
	if (ob_init(&d.ob, fd, 1 << 20)) {
		ptt_err("out of memory");
		free(buf);
		free(d.loss);
		return PTT_EXIT_INTERNAL;
	}
	if (d.json && !d.stats)
		ob_puts(&d.ob, "[");
	ret = dump_walk(&d, &config);
	if (d.stats)
		dump_print_stats(&d, len);
	else if (d.json)
		ob_puts(&d.ob, "\n]\n");
	ob_free(&d.ob);
	if (d.ob.error && d.ob.error != -EPIPE && !ret) {
		ptt_err("writing the dump failed: %s", strerror(-d.ob.error));
		ret = PTT_EXIT_INPUT;
	}
	if (out)
		close(fd);
	free(buf);
	free(d.loss);
	return ret;
}
