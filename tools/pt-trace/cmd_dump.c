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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/pt_trace.h>

#include "dump_format.h"
#include "lossfile.h"
#include "outbuf.h"
#include "sideband.h"
#include "tool.h"
#include "trace_config.h"

#define DUMP_ANN_NR	BIT(0)	/* PIP.NR, VMCS */
#define DUMP_ANN_TSX	BIT(1)	/* MODE.TSX as begin/commit/abort */
#define DUMP_ANN_OVF	BIT(2)	/* OVF meaning */
#define DUMP_ANN_LOSS	BIT(3)	/* recorder loss records */
#define DUMP_ANN_ALL	0xfU

/*
 * The text line of each one-byte packet (see dump_fast_packet()) after
 * the offset column, made once by the formatter itself.
 */
#define DUMP_NOT_FAST	0xff

struct dump_byte_line {
	char text[24];		/* newline included */
	uint8_t len;		/* whole line with offset; 0 when not printed */
	uint8_t kind;		/* enum pd_kind, or DUMP_NOT_FAST */
	uint8_t pad[6];
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
	struct ptl_file lf;		/* the recorder's loss records */
	int have_loss;
	size_t next_loss;
	uint64_t base;			/* file offset of the segment */
	int last_segment;
	int json_first;
	struct dump_byte_line lines[256];
	uint16_t hex_pairs[256];	/* "00".."ff" as stored in memory */
};

static void dump_usage(FILE *f)
{
	fputs("usage: pt-trace dump [options] FILE.pt\n"
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
	      "      --loss[=FILE]    the recorder's loss records, as lines at their\n"
	      "                       offsets (FILE default: cpuN.loss beside cpuN.pt)\n"
	      "      --no-pad         do not print PAD packets\n"
	      "      --no-sync        decode from offset 0, not from the first PSB\n"
	      "      --cpu F/M[/S]    decode for this CPU's errata (default: sideband)\n"
	      "  -o, --output FILE    write to FILE instead of standard output\n"
	      "  -h, --help           this text\n"
	      "\n"
	      "With loss records (--loss, -A, and always for --stats and --json when\n"
	      "the file is there) each stretch between two gaps is decoded on its own,\n"
	      "from its first PSB, so a packet cut by a gap is not a decode error.\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace dump out/cpu0.pt | less\n"
	      "  pt-trace dump --stats out/cpu0.pt\n"
	      "  pt-trace dump -A out/cpu0.pt | grep -e tsx -e loss\n"
	      "  pt-trace dump --loss=out/cpu0.loss --stats out/cpu0.pt\n"
	      "  pt-trace dump --json out/cpu0.pt > cpu0.json\n"
	      "\n"
	      "exit status: 0 dumped (decode errors are part of the output),\n"
	      "1 bad usage, 2 unreadable input, 5 internal error.\n", f);
}

/* Loss records are printed before the first packet at or after them. */
static void dump_emit_loss(struct dump_ctx *d, uint64_t offset)
{
	char flags[128], text[PTL_DESCRIBE_MAX];

	while (d->next_loss < d->lf.n &&
	       d->lf.rec[d->next_loss].offset <= offset) {
		const struct ptl_record *l = &d->lf.rec[d->next_loss++];

		if (d->stats)
			continue;
		ptl_flags_str(l->flags, flags, sizeof(flags));
		if (d->json) {
			ob_printf(&d->ob,
				  "%s\n{\"offset\":%llu,\"loss\":{\"seq\":%llu,\"stream_pos\":%llu,",
				  d->json_first ? "" : ",",
				  (unsigned long long)l->offset,
				  (unsigned long long)l->seq,
				  (unsigned long long)l->pos);
			if (l->bytes_known)
				ob_printf(&d->ob, "\"bytes\":%llu,",
					  (unsigned long long)l->bytes);
			else
				ob_puts(&d->ob, "\"bytes\":null,");
			ob_printf(&d->ob,
				  "\"start_ns\":%llu,\"end_ns\":%llu,\"start_tsc\":%llu,\"end_tsc\":%llu,\"flags\":\"%s\"}}",
				  (unsigned long long)l->start_ns,
				  (unsigned long long)l->end_ns,
				  (unsigned long long)l->start_tsc,
				  (unsigned long long)l->end_tsc, flags);
			d->json_first = 0;
			continue;
		}
		if (d->annotate & DUMP_ANN_LOSS)
			ob_printf(&d->ob, "[%llx: loss: %s]\n",
				  (unsigned long long)l->offset,
				  ptl_describe(l, text, sizeof(text)));
	}
}

/* Records overwritten before the recorder read them: nowhere to put them. */
static void dump_emit_lapped(struct dump_ctx *d)
{
	if (!d->lf.lapped || d->stats)
		return;
	if (d->json) {
		ob_printf(&d->ob, "%s\n{\"lapped\":%llu}", d->json_first ? "" : ",",
			  (unsigned long long)d->lf.lapped);
		d->json_first = 0;
	} else if (d->annotate & DUMP_ANN_LOSS) {
		ob_printf(&d->ob,
			  "[loss: %llu more records were overwritten before the recorder read them: where they lie is unknown]\n",
			  (unsigned long long)d->lf.lapped);
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
	p = pd_format_line(start, d->base + offset, pkt, raw);
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
	p += sprintf(p, "\n{\"offset\":%llu,\"size\":%u,\"type\":\"%s\",\"payload\":\"",
		     (unsigned long long)(d->base + offset), pkt->size,
		     pd_kind_name(pd_kind_of(pkt)));
	p = pd_format_payload(p, pkt, raw);
	*p++ = '"';
	switch (pkt->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		p += sprintf(p, ",\"ipc\":%d,\"ip\":\"0x%llx\"",
			     (int)pkt->payload.ip.ipc,
			     (unsigned long long)pkt->payload.ip.ip);
		break;
	case ppt_pip:
		p += sprintf(p, ",\"cr3\":\"0x%llx\",\"nr\":%s",
			     (unsigned long long)pkt->payload.pip.cr3,
			     pkt->payload.pip.nr ? "true" : "false");
		break;
	case ppt_tsc:
		p += sprintf(p, ",\"tsc\":%llu",
			     (unsigned long long)pkt->payload.tsc.tsc);
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
	offset += d->base;
	if (d->stats)
		return;
	if (d->json) {
		ob_printf(&d->ob, "%s\n{\"offset\":%llu,\"error\":\"%s: %s\"}",
			  d->json_first ? "" : ",", (unsigned long long)offset,
			  what, pt_errstr(pt_errcode(err)));
		d->json_first = 0;
		return;
	}
	ob_printf(&d->ob, "[%llx: %s: %s]\n", (unsigned long long)offset,
		  what, pt_errstr(pt_errcode(err)));
}

/*
 * PAD and TNT-8 are four in five packets of a typical trace, and each is
 * one byte whose opcode alone fixes its meaning (any even byte but 0x00
 * PAD and 0x02, the extended opcodes, is TNT-8; no erratum touches
 * either).  Decoding them here, filled in exactly as libipt's
 * pt_pkt_next() fills them, saves a library call per packet; every
 * other packet goes through libipt.  Returns 0 when libipt must decode.
 */
static inline int dump_fast_packet(const uint8_t *pos, const uint8_t *end,
				   struct pt_packet *pkt)
{
	unsigned int v, bits;

	if (pos >= end)
		return 0;
	if (!*pos) {
		pkt->type = ppt_pad;
		pkt->size = 1;
		return 1;
	}
	if ((*pos & 1) || *pos == 2)
		return 0;
	/* Bits 7:1 are the branches, oldest first, above a stop bit. */
	v = *pos >> 1;
	bits = 31 - __builtin_clz(v);
	pkt->type = ppt_tnt_8;
	pkt->size = 1;
	pkt->payload.tnt.bit_size = (uint8_t)bits;
	pkt->payload.tnt.payload = v & ((1U << bits) - 1);
	return 1;
}

/*
 * Where libipt's decoder is when the dump's own position has moved on
 * past packets it decoded itself.
 */
struct dump_pos {
	uint64_t offset;	/* next packet */
	uint64_t sync;		/* the last PSB libipt synchronised to */
	int lib_behind;		/* libipt is not at @offset */
	int sync_moved;		/* pt_pkt_sync_set() moved libipt's sync */
};

/*
 * Resynchronise after a decode error at pos->offset exactly as a decoder
 * that walked every packet itself would: pt_pkt_sync_forward() skips the
 * PSB it last synchronised to when it is still there, so when
 * pt_pkt_sync_set() has moved that mark, libipt walks again from the
 * real PSB to the error (errors are rare, and each walk covers bytes no
 * other walk covers).
 */
static int dump_resync(struct pt_packet_decoder *dec, struct dump_pos *pos)
{
	int err;

	if (pos->sync_moved) {
		uint64_t at = pos->sync;

		err = pt_pkt_sync_set(dec, pos->sync);
		while (!err && at < pos->offset) {
			struct pt_packet pkt;

			err = pt_pkt_next(dec, &pkt, sizeof(pkt));
			if (err >= 0)
				err = pt_pkt_get_offset(dec, &at);
		}
		if (err < 0 || at != pos->offset)
			return -pte_internal;
	}
	err = pt_pkt_sync_forward(dec);
	if (err < 0)
		return err;
	pt_pkt_get_sync_offset(dec, &pos->sync);
	pos->offset = pos->sync;
	pos->lib_behind = 0;
	pos->sync_moved = 0;
	return 0;
}

static void dump_make_lines(struct dump_ctx *d)
{
	char line[PD_LINE_MAX + 32];
	unsigned int b;

	for (b = 0; b < 256; b++) {
		struct dump_byte_line *l = &d->lines[b];
		uint8_t byte = (uint8_t)b;
		struct pt_packet pkt;
		char *end;

		pd_hex_fixed(line, b, 2);
		memcpy(&d->hex_pairs[b], line, 2);
		memset(l, 0, sizeof(*l));
		l->kind = DUMP_NOT_FAST;
		if (!dump_fast_packet(&byte, &byte + 1, &pkt))
			continue;
		l->kind = (uint8_t)pd_kind_of(&pkt);
		if (d->no_pad && pkt.type == ppt_pad)
			continue;
		end = pd_format_line(line, 0, &pkt, &byte);
		*end++ = '\n';
		memcpy(l->text, line + 16, (size_t)(end - line) - 16);
		l->len = (uint8_t)(end - line);
	}
}

/*
 * The default text over a run of one-byte packets, without libipt: the
 * line is the offset and a copy from the table.  Offsets in a run count
 * up by one, so the 16 digits are made once per 256 bytes and the last
 * two come from a table.  Stops at the first other packet, which the
 * caller hands to libipt.
 */
static void dump_text_run(struct dump_ctx *d, struct dump_pos *pos,
			  const uint8_t *begin, const uint8_t *end)
{
	const uint8_t *raw = begin + pos->offset, *start = raw;
	struct outbuf *ob = &d->ob;
	char *p = ob_reserve(ob), *limit = ob->buf + ob->cap - 64;
	uint64_t pads = 0, n, hi = 0, lo = 0;
	char digits[16];

	pd_hex16(digits, d->base + pos->offset);
	memcpy(&hi, digits, 8);
	memcpy(&lo, digits + 8, 8);
	lo &= 0x0000ffffffffffffULL;
	while (raw < end) {
		const struct dump_byte_line *l = &d->lines[*raw];
		uint64_t at = d->base + (uint64_t)(raw - begin);
		uint8_t low = (uint8_t)at;
		uint64_t lo_low;

		if (l->kind == DUMP_NOT_FAST)
			break;
		if (!low) {
			pd_hex16(digits, at);
			memcpy(&hi, digits, 8);
			memcpy(&lo, digits + 8, 8);
			lo &= 0x0000ffffffffffffULL;
		}
		pads += l->kind == PD_PAD;
		lo_low = lo | (uint64_t)d->hex_pairs[low] << 48;
		memcpy(p, &hi, 8);
		memcpy(p + 8, &lo_low, 8);
		memcpy(p + 16, l->text, sizeof(l->text));
		p += l->len;
		raw++;
		if (p > limit) {
			ob_commit(ob, p);
			ob_flush(ob);
			p = ob->buf;
		}
	}
	ob_commit(ob, p);
	n = (uint64_t)(raw - start);
	if (!n)
		return;
	d->packets += n;
	d->counts[PD_PAD] += pads;
	d->counts[PD_TNT_8] += n - pads;
	pos->offset += n;
	pos->lib_behind = 1;
}

/* A packet that a gap cut off: data just before a gap may end anywhere. */
static void dump_cut(struct dump_ctx *d, uint64_t offset, uint64_t size)
{
	if (d->stats || !(d->annotate & DUMP_ANN_LOSS) || d->json)
		return;
	ob_printf(&d->ob,
		  "[%llx: loss: the last %llu bytes before the gap are an incomplete packet]\n",
		  (unsigned long long)(d->base + offset),
		  (unsigned long long)(size - offset));
}

/*
 * One stretch of trace, [config->begin, config->end) at file offset
 * d->base: from its first PSB (or its start with --no-sync) to its end,
 * resuming at the next PSB after a decode error.
 */
static int dump_walk(struct dump_ctx *d, const struct pt_config *config,
		     int fast_text)
{
	uint64_t size = (uint64_t)(config->end - config->begin);
	struct pt_packet_decoder *dec;
	struct dump_pos pos = { 0 };
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
	pt_pkt_get_sync_offset(dec, &pos.sync);
	pos.offset = pos.sync;
	if (!d->synced) {
		d->synced = 1;
		d->sync_offset = d->base + pos.sync;
	}
	for (;;) {
		const uint8_t *raw;
		struct pt_packet pkt;
		uint64_t offset;

		/* Runs of one-byte packets take the table. */
		if (fast_text)
			dump_text_run(d, &pos, config->begin, config->end);
		raw = config->begin + pos.offset;
		offset = pos.offset;
		if (dump_fast_packet(raw, config->end, &pkt)) {
			pos.offset += pkt.size;
			pos.lib_behind = 1;
		} else {
			if (pos.lib_behind) {
				pt_pkt_sync_set(dec, offset);
				pos.lib_behind = 0;
				pos.sync_moved = 1;
			}
			err = pt_pkt_next(dec, &pkt, sizeof(pkt));
			if (err < 0) {
				if (err == -pte_eos) {
					if (!d->last_segment && offset < size)
						dump_cut(d, offset, size);
					break;
				}
				dump_error(d, offset, "error decoding packet",
					   err);
				err = dump_resync(dec, &pos);
				if (err < 0) {
					if (err != -pte_eos)
						dump_error(d, 0, "sync error",
							   err);
					break;
				}
				continue;
			}
			pt_pkt_get_offset(dec, &pos.offset);
		}
		d->packets++;
		d->counts[pd_kind_of(&pkt)]++;
		if (d->stats)
			continue;
		if (d->json)
			dump_json(d, offset, &pkt, raw);
		else
			dump_text(d, offset, &pkt, raw);
	}
out:
	pt_pkt_free_decoder(dec);
	return PTT_EXIT_OK;
}

/*
 * The whole file: one stretch, exactly as ptdump walks it, or with loss
 * records one stretch per gap, each record printed where its gap lies.
 */
static int dump_file(struct dump_ctx *d, const struct pt_config *whole)
{
	uint64_t len = (uint64_t)(whole->end - whole->begin), start = 0;
	int fast_text = !d->json && !d->stats, ret = PTT_EXIT_OK;
	size_t i = 0;

	if (fast_text)
		dump_make_lines(d);
	dump_emit_lapped(d);
	while (ret == PTT_EXIT_OK) {
		struct pt_config config = *whole;
		uint64_t end = len;

		/* The next gap inside the file ends this stretch. */
		while (i < d->lf.n && d->lf.rec[i].offset <= start)
			i++;
		if (i < d->lf.n && d->lf.rec[i].offset < len)
			end = d->lf.rec[i].offset;
		dump_emit_loss(d, start);
		config.begin = whole->begin + start;
		config.end = whole->begin + end;
		d->base = start;
		d->last_segment = end == len;
		ret = dump_walk(d, &config, fast_text);
		if (end == len)
			break;
		start = end;
	}
	dump_emit_loss(d, UINT64_MAX);
	return ret;
}

static void dump_print_stats(struct dump_ctx *d, size_t bytes)
{
	struct ptl_sum ls;
	int k;

	ptl_sum_file(&d->lf, &ls);

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
		ob_printf(&d->ob, "\",\"bytes\":%zu,\"sync_offset\":%llu,",
			  bytes, (unsigned long long)d->sync_offset);
		ob_printf(&d->ob, "\"packets\":%llu,\"errors\":%llu,",
			  (unsigned long long)d->packets,
			  (unsigned long long)d->errors);
		ob_printf(&d->ob,
			  "\"loss_file\":%s,\"loss_records\":%llu,\"lost_bytes\":%llu,",
			  d->have_loss ? "true" : "false",
			  (unsigned long long)ls.records,
			  (unsigned long long)ls.known_bytes);
		ob_printf(&d->ob,
			  "\"loss_unknown\":%llu,\"lost_ns\":%llu,\"loss_lapped\":%llu,\"types\":{",
			  (unsigned long long)ls.unknown,
			  (unsigned long long)ls.lost_ns,
			  (unsigned long long)ls.lapped);
		for (k = 0; k < PD_NR_KINDS; k++) {
			if (!d->counts[k])
				continue;
			ob_printf(&d->ob, "%s\"%s\":%llu", sep,
				  pd_kind_name(k),
				  (unsigned long long)d->counts[k]);
			sep = ",";
		}
		ob_puts(&d->ob, "}}\n");
		return;
	}
	ob_printf(&d->ob, "file: %s\nbytes: %zu\n", d->path, bytes);
	if (d->synced)
		ob_printf(&d->ob, "first psb: 0x%llx\n",
			  (unsigned long long)d->sync_offset);
	else
		ob_puts(&d->ob, "first psb: none\n");
	ob_printf(&d->ob, "packets: %llu\nerrors: %llu\n",
		  (unsigned long long)d->packets,
		  (unsigned long long)d->errors);
	if (d->have_loss) {
		ob_printf(&d->ob, "loss records: %llu\nlost bytes: %llu\n",
			  (unsigned long long)ls.records,
			  (unsigned long long)ls.known_bytes);
		ob_printf(&d->ob, "loss records of unknown size: %llu\ntime not traced: %llu ns\n",
			  (unsigned long long)ls.unknown,
			  (unsigned long long)ls.lost_ns);
		if (ls.lapped)
			ob_printf(&d->ob, "loss records lapped: %llu\n",
				  (unsigned long long)ls.lapped);
	} else {
		ob_puts(&d->ob, "loss records: none (no loss file)\n");
	}
	for (k = 0; k < PD_NR_KINDS; k++)
		if (d->counts[k])
			ob_printf(&d->ob, "  %-10s %12llu\n",
				  pd_kind_name(k),
				  (unsigned long long)d->counts[k]);
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
		{ "loss", optional_argument, NULL, 'L' },
		{ "no-pad", no_argument, NULL, 'P' },
		{ "no-sync", no_argument, NULL, 'S' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_ctx d;
	struct pt_config config;
	const char *cpu_arg = NULL, *out = NULL, *loss_path = NULL;
	struct ptsb sb;
	uint8_t *buf = NULL;
	size_t len = 0;
	int c, err, fd = STDOUT_FILENO, ret, sb_cpu, loss_flag = 0;

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
			loss_flag = 1;
			if (optarg)
				loss_path = optarg;
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
	/* "--loss FILE.loss TRACE": the optional argument without '='. */
	if (loss_flag && !loss_path && argc - optind == 2) {
		size_t n = strlen(argv[optind]);

		if (n > strlen(PTL_SUFFIX) &&
		    !strcmp(argv[optind] + n - strlen(PTL_SUFFIX), PTL_SUFFIX))
			loss_path = argv[optind++];
	}
	if (optind != argc - 1) {
		ptt_err("expected exactly one trace file (try --help)");
		return PTT_EXIT_USAGE;
	}
	d.path = argv[optind];

	pt_config_init(&config);
	if (!ptt_find_sideband(d.path, &sb, &sb_cpu)) {
		ptt_config_from_sideband(&config, &sb);
		ptsb_free(&sb);
	}
	if (cpu_arg && ptt_config_set_cpu(&config, cpu_arg)) {
		ptt_err("--cpu wants FAMILY/MODEL[/STEPPING], e.g. 6/85/4");
		return PTT_EXIT_USAGE;
	}
	/* The text shows losses only when asked; stats and JSON always. */
	if (loss_path || d.stats || d.json || (d.annotate & DUMP_ANN_LOSS)) {
		ret = ptt_load_loss(d.path, loss_path, &d.lf, &d.have_loss);
		if (ret)
			return ret;
	}

	err = ptt_load_file(d.path, &buf, &len);
	if (err) {
		ptt_err("cannot read %s: %s", d.path, strerror(-err));
		ptl_free(&d.lf);
		return PTT_EXIT_INPUT;
	}
	config.begin = buf;
	config.end = buf + len;

	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ptt_err("cannot create %s: %s", out, strerror(errno));
			free(buf);
			ptl_free(&d.lf);
			return PTT_EXIT_INPUT;
		}
	}
	if (ob_init(&d.ob, fd, 1 << 20)) {
		ptt_err("out of memory");
		free(buf);
		ptl_free(&d.lf);
		return PTT_EXIT_INTERNAL;
	}
	if (d.json && !d.stats)
		ob_puts(&d.ob, "[");
	ret = dump_file(&d, &config);
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
	ptl_free(&d.lf);
	return ret;
}
