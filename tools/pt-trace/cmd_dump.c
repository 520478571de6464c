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

#include "bts_dump.h"
#include "cpu_errata.h"
#include "dump_format.h"
#include "dump_track.h"
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

/* The JSON line of each one-byte packet after its offset. */
struct dump_json_tail {
	char text[63];
	uint8_t len;		/* 0 when not printed */
};

/*
 * Decimal offsets in runs of one-byte packets: the last four digits from
 * a table, the digits above them made again only when those wrap.
 */
static struct {
	char d[10000][4];
} dump_dec4;

/* ptdump's option columns (see dump_track.h and dump_text_ptdump()). */
struct dump_ptdump {
	int on;			/* any option that changes the line */
	int no_offset;
	int raw;
	int quiet;
	struct dt_opts dt;
};

struct dump_ctx {
	unsigned int annotate;
	int stats;
	int json;
	int no_pad;
	int no_sync;
	struct dump_ptdump pd;
	struct dt_state dt;		/* reset at every resynchronisation */
	const struct pt_config *config;
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
	const uint8_t *map;		/* the file, mapped (ptt_map_file()) */
	size_t dropped_to;		/* before it: out of memory */
	size_t drop_next;		/* no drop before this offset */
	int last_segment;
	int json_first;
	struct dump_byte_line lines[256];
	uint16_t hex_pairs[256];	/* "00".."ff" as stored in memory */
	struct dump_json_tail json_tails[256];
};

static void dump_usage(FILE *f)
{
	fputs("usage: pt-trace dump [options] FILE.pt[:FROM[-TO]]\n"
	      "       pt-trace dump [-s] [--elf FILE[:BASE]]... [--kallsyms FILE] FILE.bts\n"
	      "\n"
	      "Print the packets of a raw Intel PT trace, from the first PSB, in the\n"
	      "format of libipt's ptdump.  Decode errors print\n"
	      "[OFFSET: error decoding packet: REASON] and the dump resumes at the\n"
	      "next PSB.  :FROM[-TO] dumps only those bytes of the file, with\n"
	      "offsets counted from FROM, as ptdump does.\n"
	      "\n"
	      "options:\n"
	      "  -s, --stats          per-packet-type counts instead of the packets\n"
	      "  -j, --json           JSON: an array of packets (with --stats: an object);\n"
	      "                       FUP/TIP carry \"ip\" (the address after\n"
	      "                       decompression, null when suppressed or unknown),\n"
	      "                       \"ipc\" and \"ip_payload\" (the bits the packet holds)\n"
	      "\n"
	      "ptdump's options (the same columns, diagnostics and rules as libipt's ptdump):\n"
	      "      --lastip         the decompressed IP of FUP/TIP packets (\"ip\" column)\n"
	      "      --exec-mode      the execution mode at MODE.Exec (\"em\" column)\n"
	      "      --time           the estimated TSC at timing packets (\"tsc\")\n"
	      "      --tcal           the calibrated fast-counter:cycles ratio (\"fcr\")\n"
	      "      --time-delta     --time and --tcal as the change since the last one\n"
	      "      --no-tcal        no calibration (CYC then adds no time)\n"
	      "      --no-wall-clock  --time before the first TSC: no error, relative time\n"
	      "      --keep-tcal-on-ovf  keep the calibration at OVF (else it starts\n"
	      "                       over, as libipt's decoders do: CYC adds no time\n"
	      "                       until two MTCs or a CBR calibrate again)\n"
	      "      --no-timing      hide TSC, TMA, MTC, CYC and CBR packets\n"
	      "      --no-cyc         hide CYC packets and ignore them for time\n"
	      "      --raw            the packet's bytes after the offset\n"
	      "      --no-offset      no offset column (--offset: the default, shown)\n"
	      "      --quiet          print only diagnostics\n"
	      "      --mtc-freq N, --nom-freq N, --cpuid-0x15.eax N, --cpuid-0x15.ebx N\n"
	      "                       timing parameters (default: the recording's sideband)\n"
	      "\n"
	      "pt-trace's own:\n"
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
	      "Branch Trace Store (a FILE.bts from record --bts or /dev/btsN): one\n"
	      "line per 24-byte record, OFFSET  FROM -> TO  FLAGS (\"pred\" or \"-\"),\n"
	      "and <symbol+offset> of both ends with:\n"
	      "      --elf FILE[:BASE]  symbols of an ELF file (at BASE if given)\n"
	      "      --kallsyms FILE    kernel symbols (a copy of /proc/kallsyms)\n"
	      "  -s, --stats          counts: records, user, kernel, predicted\n"
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
	      "  pt-trace dump --lastip --time --raw out/cpu0.pt:0x4000-0x8000\n"
	      "  pt-trace dump --kallsyms out/kallsyms out/cpu0.bts | head\n"
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

/* The annotation after "  ; " when there is one, the newline, done. */
static void dump_end_line(struct dump_ctx *d, char *p,
			  const struct pt_packet *pkt)
{
	char *note, *end;

	if (d->annotate) {
		note = dump_str(p, "  ; ");
		end = dump_annotation(d, note, pkt);
		if (end != note)
			p = end;
	}
	*p++ = '\n';
	ob_commit(&d->ob, p);
}

static void dump_text(struct dump_ctx *d, uint64_t offset,
		      const struct pt_packet *pkt, const uint8_t *raw)
{
	char *start, *p;

	if (d->no_pad && pkt->type == ppt_pad)
		return;
	start = ob_reserve(&d->ob);
	p = pd_format_line(start, d->base + offset, pkt, raw);
	dump_end_line(d, p, pkt);
}

/*
 * ptdump's line with its options: columns joined as its print_buffer()
 * joins them (offset padded to 17, raw bytes to 33, the name to 10 when
 * a payload follows, payload to 25 before a tracking column).
 */
static char *dump_pad_to(char *p, const char *from, long width)
{
	while (p - from < width)
		*p++ = ' ';
	return p;
}

static void dump_text_ptdump(struct dump_ctx *d, uint64_t offset,
			     const struct pt_packet *pkt, const uint8_t *raw)
{
	char payload[PD_LINE_MAX], *pend, *p, *line, *col_start;
	const struct dump_ptdump *o = &d->pd;
	enum pd_kind kind = pd_kind_of(pkt);
	struct dt_column col;
	unsigned int i;

	if (kind == PD_MODE_OTHER)
		ob_printf(&d->ob, "[%llx: unknown mode leaf]\n",
			  (unsigned long long)(d->base + offset));
	dt_packet(&d->dt, &o->dt, d->config, pkt, d->base + offset, &d->ob,
		  &col);
	if (pkt->type == ppt_pip) {
		strcpy(col.id, "cr3");
		pd_hex_fixed(col.value, pkt->payload.pip.cr3, 16)[0] = 0;
	} else if (pkt->type == ppt_vmcs) {
		strcpy(col.id, "vmcs");
		pd_hex_fixed(col.value, pkt->payload.vmcs.base, 16)[0] = 0;
	}
	if (col.skip || o->quiet || (d->no_pad && pkt->type == ppt_pad))
		return;
	pend = pd_format_payload(payload, pkt, raw);
	*pend = 0;
	p = ob_reserve(&d->ob);
	line = p;
	col_start = p;
	if (!o->no_offset) {
		p = pd_hex16(p, d->base + offset);
		*p++ = ' ';
	}
	if (o->raw) {
		if (p != line)
			*p++ = ' ';
		col_start = p;
		for (i = 0; i < pkt->size && i < 16; i++) {
			memcpy(p, &d->hex_pairs[raw[i]], 2);
			p += 2;
		}
		p = dump_pad_to(p, col_start, 33);
	}
	if (p != line)
		*p++ = ' ';
	col_start = p;
	p = dump_str(p, pd_kind_name(kind));
	if (pend != payload)
		p = dump_pad_to(p, col_start, 10);
	if (col.id[0]) {
		*p++ = ' ';
		col_start = p;
		/* ptdump's field holds 24 characters. */
		p = dump_str(p, payload);
		if (p - col_start > 24 && pkt->type != ppt_tnt_8 &&
		    pkt->type != ppt_tnt_64)
			p = col_start + 24;
		p = dump_pad_to(p, col_start, 25);
		*p++ = ' ';
		col_start = p;
		p = dump_pad_to(dump_str(p, col.id), col_start, 5);
		p = dump_str(p, col.value);
	} else if (pend != payload) {
		*p++ = ' ';
		p = dump_str(p, payload);
	}
	dump_end_line(d, p, pkt);
}

/* The start of every JSON packet: separator and the offset's key. */
static inline char *dump_json_head(struct dump_ctx *d, char *p)
{
	static const char head[] = ",\n{\"offset\":";

	if (unlikely(d->json_first)) {
		memcpy(p, head + 1, sizeof(head) - 2);
		d->json_first = 0;
		return p + sizeof(head) - 2;
	}
	memcpy(p, head, sizeof(head) - 1);
	return p + sizeof(head) - 1;
}

static char *dump_json_hex(char *p, uint64_t v)
{
	p = dump_str(p, "\"0x");
	p = pd_hex(p, v);
	*p++ = '"';
	return p;
}

/* The fields after "offset": size, type, payload and the decoded ones. */
static char *dump_json_fields(struct dump_ctx *d, char *p,
			      const struct pt_packet *pkt, const uint8_t *raw)
{
	uint64_t ip;

	p = dump_str(p, ",\"size\":");
	p = pd_dec(p, pkt->size);
	p = dump_str(p, ",\"type\":\"");
	p = dump_str(p, pd_kind_name(pd_kind_of(pkt)));
	p = dump_str(p, "\",\"payload\":\"");
	p = pd_format_payload(p, pkt, raw);
	*p++ = '"';
	switch (pkt->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		p = dump_str(p, ",\"ipc\":");
		*p++ = (char)('0' + (pkt->payload.ip.ipc & 7));
		p = dump_str(p, ",\"ip_payload\":");
		p = dump_json_hex(p, pkt->payload.ip.ip);
		p = dump_str(p, ",\"ip\":");
		if (dt_last_ip_update(&d->dt.last_ip, &pkt->payload.ip) ||
		    dt_last_ip_get(&d->dt.last_ip, &ip))
			p = dump_str(p, "null");
		else
			p = dump_json_hex(p, ip);
		break;
	case ppt_pip:
		p = dump_str(p, ",\"cr3\":");
		p = dump_json_hex(p, pkt->payload.pip.cr3);
		p = dump_str(p, pkt->payload.pip.nr ? ",\"nr\":true" :
			     ",\"nr\":false");
		break;
	case ppt_tsc:
		p = dump_str(p, ",\"tsc\":");
		p = pd_dec(p, pkt->payload.tsc.tsc);
		break;
	default:
		break;
	}
	return p;
}

static void dump_json(struct dump_ctx *d, uint64_t offset,
		      const struct pt_packet *pkt, const uint8_t *raw)
{
	char *p, *note, *end;

	if (d->no_pad && pkt->type == ppt_pad)
		return;
	p = ob_reserve(&d->ob);
	p = dump_json_head(d, p);
	p = pd_dec(p, d->base + offset);
	p = dump_json_fields(d, p, pkt, raw);
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

/* "0000".."9999". */
static void dump_make_dec4(void)
{
	unsigned int i;

	for (i = 0; i < 10000; i++) {
		dump_dec4.d[i][0] = (char)('0' + i / 1000);
		dump_dec4.d[i][1] = (char)('0' + i / 100 % 10);
		dump_dec4.d[i][2] = (char)('0' + i / 10 % 10);
		dump_dec4.d[i][3] = (char)('0' + i % 10);
	}
}

/* The JSON text after the offset of each one-byte packet. */
static void dump_make_json_tails(struct dump_ctx *d)
{
	unsigned int b;

	for (b = 0; b < 256; b++) {
		struct dump_json_tail *t = &d->json_tails[b];
		char line[PD_LINE_MAX + 64], *end;
		uint8_t byte = (uint8_t)b;
		struct pt_packet pkt;

		if (!b)
			dump_make_dec4();
		memset(t, 0, sizeof(*t));
		if (!dump_fast_packet(&byte, &byte + 1, &pkt) ||
		    (d->no_pad && pkt.type == ppt_pad))
			continue;
		end = dump_json_fields(d, line, &pkt, &byte);
		*end++ = '}';
		memcpy(t->text, line, (size_t)(end - line));
		t->len = (uint8_t)(end - line);
	}
}

/* In a run: write out the buffer once @p is past @limit. */
static inline char *dump_spill(struct outbuf *ob, char *p, const char *limit)
{
	if (p <= limit)
		return p;
	ob_commit(ob, p);
	ob_flush(ob);
	return ob->buf;
}

/*
 * The decimal digits of @high (offset / 10,000) as one word, and how
 * many; 0 digits when there are more than 8 or @high is 0.
 */
static unsigned int dump_dec_high(uint64_t high, uint64_t *word)
{
	char tmp[24];
	unsigned int n;

	if (!high || high >= 100000000ULL)
		return 0;
	n = (unsigned int)(pd_dec(tmp, high) - tmp);
	memcpy(word, tmp, 8);
	return n;
}

/* Count a run of @n one-byte packets, @pads of them PAD. */
static void dump_run_done(struct dump_ctx *d, struct dump_pos *pos,
			  uint64_t n, uint64_t pads)
{
	if (!n)
		return;
	d->packets += n;
	d->counts[PD_PAD] += pads;
	d->counts[PD_TNT_8] += n - pads;
	pos->offset += n;
	pos->lib_behind = 1;
}

/*
 * JSON over a run of one-byte packets, as dump_text_run() does the text:
 * the offset's digits above the last four are made once per 10,000
 * bytes (offsets below 10,000 and from 10^12 on are made whole) and
 * the rest of the line is copied from the table.
 */
static void dump_json_run(struct dump_ctx *d, struct dump_pos *pos,
			  const uint8_t *begin, const uint8_t *end)
{
	const uint8_t *raw = begin + pos->offset, *start = raw;
	struct outbuf *ob = &d->ob;
	char *p = ob_reserve(ob), *limit = ob->buf + ob->cap - 128;
	uint64_t pads = 0, at = d->base + pos->offset;
	uint64_t high = at / 10000, high_word = 0;
	unsigned int low = (unsigned int)(at % 10000);
	unsigned int high_len = dump_dec_high(high, &high_word);

	while (raw < end) {
		const struct dump_json_tail *t = &d->json_tails[*raw];
		uint8_t kind = d->lines[*raw].kind;

		if (kind == DUMP_NOT_FAST)
			break;
		pads += kind == PD_PAD;
		if (t->len) {
			p = dump_json_head(d, p);
			if (likely(high_len)) {
				memcpy(p, &high_word, 8);
				p += high_len;
				memcpy(p, dump_dec4.d[low], 4);
				p += 4;
			} else {
				p = pd_dec(p, at);
			}
			memcpy(p, t->text, sizeof(t->text));
			p += t->len;
		}
		raw++;
		at++;
		if (unlikely(++low == 10000)) {
			low = 0;
			high_len = dump_dec_high(++high, &high_word);
		}
		p = dump_spill(ob, p, limit);
	}
	ob_commit(ob, p);
	dump_run_done(d, pos, (uint64_t)(raw - start), pads);
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
	uint64_t pads = 0, hi = 0, lo = 0;
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
		p = dump_spill(ob, p, limit);
	}
	ob_commit(ob, p);
	dump_run_done(d, pos, (uint64_t)(raw - start), pads);
}

/*
 * The trace is mapped and read once, front to back: what lies behind
 * the dump leaves memory as it goes (ptt_file_drop_behind()), so memory
 * does not grow with the trace.  @offset is in @config's stretch.
 */
static inline void dump_drop_behind(struct dump_ctx *d,
				    const struct pt_config *config,
				    uint64_t offset)
{
	size_t at = (size_t)(config->begin - d->map) + (size_t)offset;

	if (at >= d->drop_next)
		d->drop_next = ptt_file_drop_behind(d->map, &d->dropped_to, at);
}

/*
 * Where a run of one-byte packets from @offset stops at the latest: at
 * most PTT_DROP_EVERY bytes on, so that a trace of nothing else is
 * dropped behind too.
 */
static inline const uint8_t *dump_run_stop(const struct pt_config *config,
					   uint64_t offset)
{
	if ((uint64_t)(config->end - config->begin) - offset <= PTT_DROP_EVERY)
		return config->end;
	return config->begin + offset + PTT_DROP_EVERY;
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
enum dump_fast { DUMP_FAST_NONE, DUMP_FAST_TEXT, DUMP_FAST_JSON };

static int dump_walk(struct dump_ctx *d, const struct pt_config *config,
		     enum dump_fast fast)
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
	d->config = config;
	dt_reset(&d->dt);
	if (!d->synced) {
		d->synced = 1;
		d->sync_offset = d->base + pos.sync;
	}
	for (;;) {
		const uint8_t *raw;
		struct pt_packet pkt;
		uint64_t offset;
		int n;

		dump_drop_behind(d, config, pos.offset);
		/* Runs of one-byte packets take the table. */
		if (fast != DUMP_FAST_NONE) {
			const uint8_t *stop = dump_run_stop(config, pos.offset);

			if (fast == DUMP_FAST_TEXT)
				dump_text_run(d, &pos, config->begin, stop);
			else
				dump_json_run(d, &pos, config->begin, stop);
			if (stop != config->end &&
			    config->begin + pos.offset == stop)
				continue;	/* the run goes on */
		}
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
				/* ptdump starts its columns over, too. */
				dt_reset(&d->dt);
				continue;
			}
			n = ptt_skd007_ovf(&config->errata, raw, config->end,
					   &pkt);
			if (n) {
				/* libipt read a CYC: it is behind the OVF */
				pos.offset = offset + (uint64_t)n;
				pos.lib_behind = 1;
			} else {
				pt_pkt_get_offset(dec, &pos.offset);
			}
		}
		d->packets++;
		d->counts[pd_kind_of(&pkt)]++;
		if (d->stats)
			continue;
		if (d->json)
			dump_json(d, offset, &pkt, raw);
		else if (d->pd.on)
			dump_text_ptdump(d, offset, &pkt, raw);
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
	enum dump_fast fast = DUMP_FAST_NONE;
	int ret = PTT_EXIT_OK;
	size_t i = 0;

	/*
	 * The tables serve the default text and JSON; ptdump's options and
	 * --stats walk each packet.
	 */
	if (d->json && !d->stats)
		fast = DUMP_FAST_JSON;
	else if (!d->stats && !d->pd.on)
		fast = DUMP_FAST_TEXT;
	dump_make_lines(d);
	if (fast == DUMP_FAST_JSON)
		dump_make_json_tails(d);
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
		ret = dump_walk(d, &config, fast);
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

/* ptdump's long options without an argument, and the flag each sets. */
enum {
	DO_LASTIP = 256, DO_EXEC_MODE, DO_TIME, DO_TCAL, DO_TIME_DELTA,
	DO_NO_TCAL, DO_NO_WALL_CLOCK, DO_KEEP_TCAL, DO_NO_TIMING, DO_NO_CYC, DO_RAW,
	DO_NO_OFFSET, DO_OFFSET, DO_QUIET, DO_MTC, DO_NOM, DO_EAX, DO_EBX,
	DO_ELF, DO_KALLSYMS,
};

/* Returns 0, or -1 after saying what is wrong. */
static int dump_ptdump_opt(struct dump_ptdump *o, int c)
{
	struct dt_opts *t = &o->dt;

	switch (c) {
	case DO_LASTIP:
		t->lastip = 1;
		break;
	case DO_EXEC_MODE:
		t->exec_mode = 1;
		break;
	case DO_TIME:
	case DO_TCAL:
		if ((c == DO_TIME && t->show_tcal) ||
		    (c == DO_TCAL && t->show_time)) {
			ptt_err("specify either --time or --tcal, not both");
			return -1;
		}
		t->track_time = 1;
		t->show_time |= c == DO_TIME;
		t->show_tcal |= c == DO_TCAL;
		break;
	case DO_TIME_DELTA:
		t->delta = 1;
		break;
	case DO_NO_TCAL:
		t->no_tcal = 1;
		break;
	case DO_NO_WALL_CLOCK:
		t->no_wall_clock = 1;
		break;
	case DO_KEEP_TCAL:
		t->keep_tcal_on_ovf = 1;
		break;
	case DO_NO_TIMING:
		t->no_timing = 1;
		break;
	case DO_NO_CYC:
		t->no_cyc = 1;
		break;
	case DO_RAW:
		o->raw = 1;
		break;
	case DO_NO_OFFSET:
		o->no_offset = 1;
		break;
	case DO_OFFSET:
		o->no_offset = 0;
		break;
	case DO_QUIET:
		o->quiet = 1;
		break;
	}
	o->on = o->raw || o->no_offset || o->quiet || t->lastip ||
		t->exec_mode || t->track_time || t->no_timing || t->no_cyc;
	return 0;
}

/*
 * ptdump's FILE:FROM[-TO]: when what follows the last ':' is a range the
 * name ends there; otherwise the ':' is part of the name.  Returns 0,
 * or -1 for an empty range.
 */
static int dump_split_range(char *path, uint64_t *from, uint64_t *to)
{
	char *colon = strrchr(path, ':'), *dash, *end;
	uint64_t a, b = 0;

	*from = 0;
	*to = 0;
	if (!colon || !colon[1])
		return 0;
	errno = 0;
	a = strtoull(colon + 1, &end, 0);
	if (errno || end == colon + 1)
		return 0;
	dash = end;
	if (*dash == '-') {
		b = strtoull(dash + 1, &end, 0);
		if (errno || end == dash + 1 || *end)
			return 0;
		if (b <= a)
			return -1;
	} else if (*dash) {
		return 0;
	}
	*colon = 0;
	*from = a;
	*to = b;
	return 0;
}

/* A FILE.bts: the options that apply to it, then bts_dump.c. */
static int dump_bts(struct dump_ctx *d, struct bts_dump_opts *bo,
		    const char *out)
{
	int fd = STDOUT_FILENO, ret;

	if (d->json || d->annotate || d->no_pad || d->no_sync) {
		ptt_err("%s: a BTS file takes only -s, --elf, --kallsyms and -o",
			d->path);
		return PTT_EXIT_USAGE;
	}
	bo->stats = d->stats;
	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ptt_err("cannot create %s: %s", out, strerror(errno));
			return PTT_EXIT_INPUT;
		}
	}
	if (ob_init(&d->ob, fd, 1 << 20)) {
		ptt_err("out of memory");
		ret = PTT_EXIT_INTERNAL;
		goto out;
	}
	ret = bts_dump(d->path, bo, &d->ob);
	ob_free(&d->ob);
	if (d->ob.error && d->ob.error != -EPIPE && !ret) {
		ptt_err("writing the dump failed: %s", strerror(-d->ob.error));
		ret = PTT_EXIT_INPUT;
	}
out:
	if (out)
		close(fd);
	return ret;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lastip", no_argument, NULL, DO_LASTIP },
		{ "exec-mode", no_argument, NULL, DO_EXEC_MODE },
		{ "time", no_argument, NULL, DO_TIME },
		{ "tcal", no_argument, NULL, DO_TCAL },
		{ "time-delta", no_argument, NULL, DO_TIME_DELTA },
		{ "no-tcal", no_argument, NULL, DO_NO_TCAL },
		{ "no-wall-clock", no_argument, NULL, DO_NO_WALL_CLOCK },
		{ "keep-tcal-on-ovf", no_argument, NULL, DO_KEEP_TCAL },
		{ "no-timing", no_argument, NULL, DO_NO_TIMING },
		{ "no-cyc", no_argument, NULL, DO_NO_CYC },
		{ "raw", no_argument, NULL, DO_RAW },
		{ "no-offset", no_argument, NULL, DO_NO_OFFSET },
		{ "offset", no_argument, NULL, DO_OFFSET },
		{ "quiet", no_argument, NULL, DO_QUIET },
		{ "mtc-freq", required_argument, NULL, DO_MTC },
		{ "nom-freq", required_argument, NULL, DO_NOM },
		{ "cpuid-0x15.eax", required_argument, NULL, DO_EAX },
		{ "cpuid-0x15-eax", required_argument, NULL, DO_EAX },
		{ "cpuid-0x15.ebx", required_argument, NULL, DO_EBX },
		{ "cpuid-0x15-ebx", required_argument, NULL, DO_EBX },
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
		{ "elf", required_argument, NULL, DO_ELF },
		{ "kallsyms", required_argument, NULL, DO_KALLSYMS },
		{ NULL, 0, NULL, 0 },
	};
	struct bts_dump_opts bo;
	struct dump_ctx d;
	struct pt_config config;
	const char *cpu_arg = NULL, *out = NULL, *loss_path = NULL;
	const char *param[4] = { NULL };	/* DO_MTC..DO_EBX */
	uint64_t from, to;
	struct ptsb sb;
	uint8_t *buf = NULL;
	size_t len = 0, map_len;
	int c, err, fd = STDOUT_FILENO, ret, sb_cpu, loss_flag = 0;

	memset(&d, 0, sizeof(d));
	memset(&bo, 0, sizeof(bo));
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
		case DO_ELF:
			if (bo.nelf == BTS_DUMP_MAX_ELF) {
				ptt_err("at most %d --elf files",
					BTS_DUMP_MAX_ELF);
				return PTT_EXIT_USAGE;
			}
			bo.elf[bo.nelf++] = optarg;
			break;
		case DO_KALLSYMS:
			bo.kallsyms = optarg;
			break;
		case DO_MTC:
		case DO_NOM:
		case DO_EAX:
		case DO_EBX:
			param[c - DO_MTC] = optarg;
			break;
		case DO_LASTIP ... DO_QUIET:
			if (dump_ptdump_opt(&d.pd, c))
				return PTT_EXIT_USAGE;
			break;
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
	if (bts_dump_is_bts(d.path))
		return dump_bts(&d, &bo, out);
	if (bo.nelf || bo.kallsyms) {
		ptt_err("--elf and --kallsyms are for BTS files (FILE.bts); for PT traces use pt-trace decode");
		return PTT_EXIT_USAGE;
	}
	if (dump_split_range(argv[optind], &from, &to)) {
		ptt_err("%s: the range's end must lie after its start, as in FILE:0x1000-0x2000",
			d.path);
		return PTT_EXIT_USAGE;
	}
	if ((from || to) && (loss_path || loss_flag)) {
		ptt_err("loss records are in whole-file offsets: dump the whole file with --loss, or a range without it");
		return PTT_EXIT_USAGE;
	}

	pt_config_init(&config);
	if (!ptt_find_sideband(d.path, &sb, &sb_cpu)) {
		ptt_config_from_sideband(&config, &sb);
		ptsb_free(&sb);
	}
	if (cpu_arg && ptt_config_set_cpu(&config, cpu_arg)) {
		ptt_err("--cpu wants FAMILY/MODEL[/STEPPING], e.g. 6/85/4");
		return PTT_EXIT_USAGE;
	}
	if (ptt_config_set_params(&config, param))
		return PTT_EXIT_USAGE;
	/* The text shows losses only when asked; stats and JSON always. */
	if (!from && !to &&
	    (loss_path || d.stats || d.json || (d.annotate & DUMP_ANN_LOSS))) {
		ret = ptt_load_loss(d.path, loss_path, &d.lf, &d.have_loss);
		if (ret)
			return ret;
	}

	/* Mapped, not read: memory stays bounded (dump_drop_behind()). */
	err = ptt_map_file(d.path, &buf, &len);
	if (err) {
		ptt_err("cannot read %s: %s", d.path, strerror(-err));
		ptl_free(&d.lf);
		return PTT_EXIT_INPUT;
	}
	map_len = len;
	d.map = buf;
	if ((from || to) && (from >= len || to > len)) {
		ptt_err("%s has %zu bytes: the range %#llx-%#llx is not inside it",
			d.path, len, (unsigned long long)from,
			(unsigned long long)(to ? to : len));
		ptt_unmap_file(buf, map_len);
		return PTT_EXIT_USAGE;
	}
	config.begin = buf + from;
	config.end = to ? buf + to : buf + len;
	len = (size_t)(config.end - config.begin);

	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ptt_err("cannot create %s: %s", out, strerror(errno));
			ptt_unmap_file(buf, map_len);
			ptl_free(&d.lf);
			return PTT_EXIT_INPUT;
		}
	}
	if (ob_init(&d.ob, fd, 1 << 20)) {
		ptt_err("out of memory");
		ptt_unmap_file(buf, map_len);
		ptl_free(&d.lf);
		return PTT_EXIT_INTERNAL;
	}
	if (d.json && !d.stats)
		ob_puts(&d.ob, "[");
	/* ptdump's diagnostic for a --cpu it knows no errata of */
	err = cpu_arg && !d.json && !d.stats ? ptt_config_errata_err(&config) : 0;
	if (err < 0)
		ob_printf(&d.ob, "[0: failed to determine errata: %s]\n",
			  pt_errstr(pt_errcode(err)));
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
	ptt_unmap_file(buf, map_len);
	ptl_free(&d.lf);
	return ret;
}
