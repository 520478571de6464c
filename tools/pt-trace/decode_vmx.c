// SPDX-License-Identifier: GPL-2.0
/*
 * decode under VMX: the execution context of each instruction, from the
 * events libipt derives from PIP and VMCS packets (SDM Vol. 3C
 * 36.4.2.15, 36.5.2):
 *
 * - a paging event sets the context: with NR (non-root) a guest, keyed by
 *   the VMCS the last VMCS event named, else the host, whatever VMCS is
 *   loaded; both with the event's CR3.  A guest's CR3 may equal the
 *   host's or another guest's: only the VMCS and NR tell them apart, so
 *   the key is (VMCS, NR, CR3), never CR3 alone;
 * - a VMCS event (VMPTRLD in the host, or PSB+) only moves a guest
 *   context whose VMCS it changes: in PSB+ it comes before the PIP;
 * - at every synchronisation the context is unknown until PSB+'s PIP
 *   (OS=1 traces have one; user-only traces have no PIP at all, and no
 *   way to tell a guest from the host).  The VMCS is "none loaded", the
 *   all-ones base a VMCS packet gives before any VMPTRLD, until a VMCS
 *   event says otherwise.
 *
 * A guest's code is not the host's: guest contexts decode from their own
 * image (--guest-image VMCS:PATH@ADDR), or an empty one, so host code
 * at a colliding address is never taken for the guest's ("no memory
 * mapped" then, and the decode resumes at the next PSB).  libipt reads
 * through the image set on the decoder at each instruction; its section
 * cache is validated against that image, so swapping is safe.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode_vmx.h"
#include "pkt_walk.h"
#include "tool.h"

int dvmx_add_vmcs(struct decode_vmx *d, const char *arg)
{
	uint64_t v;

	if (d->nsel == DVMX_MAX_VMCS || ptt_parse_u64(arg, &v) || (v & 0xfff)) {
		ptt_err("--vmcs wants a 4 KiB-aligned VMCS base (as dump or contexts print it), at most %d times",
			DVMX_MAX_VMCS);
		return -1;
	}
	d->sel[d->nsel++] = v;
	return 0;
}

int dvmx_add_guest_tsc(struct decode_vmx *d, const char *arg)
{
	if (d->ntsc == DVMX_MAX_TSC ||
	    vmx_guest_tsc_parse(arg, &d->tsc[d->ntsc])) {
		ptt_err("--guest-tsc wants VMCS:OFFSET:RATIO (at most %d)",
			DVMX_MAX_TSC);
		return -1;
	}
	d->ntsc++;
	return 0;
}

static struct dvmx_guest *dvmx_guest_of(const struct decode_vmx *d,
					uint64_t vmcs)
{
	unsigned int i;

	for (i = 0; i < d->nguest; i++)
		if (d->guest[i].vmcs == vmcs)
			return (struct dvmx_guest *)&d->guest[i];
	return NULL;
}

/*
 * A raw file (a dump of guest memory, a flat binary) at @addr, or an ELF
 * file at its own addresses (@have_addr 0) or with its lowest segment at
 * @addr.
 */
static int dvmx_load(struct dvmx_guest *g, const char *path, uint64_t addr,
		     int have_addr)
{
	uint64_t min, bias = 0;
	struct stat sb;
	int err;

	err = elf_image_min_vaddr(path, &min);
	if (!err) {
		if (have_addr)
			bias = addr - min;
		err = elf_image_add(g->image, &g->st, path, bias);
		return err < 0 ? err : 0;
	}
	if (err != -ENOEXEC)
		return err;
	if (!have_addr)
		return -EDESTADDRREQ;
	if (stat(path, &sb))
		return -errno;
	if (!sb.st_size)
		return -ENODATA;
	if (pt_image_add_file(g->image, path, 0, (uint64_t)sb.st_size, NULL,
			      addr) < 0)
		return -EINVAL;
	return 0;
}

int dvmx_add_guest_image(struct decode_vmx *d, const char *arg)
{
	char path[4096], *at, *end;
	struct dvmx_guest *g;
	uint64_t vmcs, addr = 0;
	int have_addr = 0, err;

	vmcs = strtoull(arg, &end, 0);
	if (end == arg || *end != ':' || !end[1] || (vmcs & 0xfff) ||
	    strlen(end + 1) >= sizeof(path)) {
		ptt_err("--guest-image wants VMCS:PATH[@ADDR], e.g. 0x12345000:guest.bin@0x100000000000");
		return -1;
	}
	strcpy(path, end + 1);
	at = strrchr(path, '@');
	if (at && !ptt_parse_u64(at + 1, &addr)) {
		*at = 0;
		have_addr = 1;
	}
	g = dvmx_guest_of(d, vmcs);
	if (!g) {
		if (d->nguest == DVMX_MAX_VMCS) {
			ptt_err("--guest-image: at most %d guests", DVMX_MAX_VMCS);
			return -1;
		}
		g = &d->guest[d->nguest];
		g->image = pt_image_alloc(NULL);
		if (!g->image) {
			ptt_err("out of memory");
			return -1;
		}
		g->vmcs = vmcs;
		d->nguest++;
	}
	err = dvmx_load(g, path, addr, have_addr);
	if (err == -EDESTADDRREQ)
		ptt_err("--guest-image %s: %s", arg,
			"not an ELF file: give the address its first byte was at (PATH@ADDR)");
	else if (err)
		ptt_err("--guest-image %s: %s", arg,
			err == -ENODATA ? "the file is empty" : strerror(-err));
	if (err)
		return -1;
	return 0;
}

int dvmx_init(struct decode_vmx *d)
{
	unsigned int i;

	d->ctx = malloc(sizeof(*d->ctx));
	d->empty = pt_image_alloc(NULL);
	if (!d->ctx || !d->empty)
		return -1;
	vmx_ctx_init(d->ctx, d->tsc, d->ntsc);
	elf_symtab_finish(&d->empty_st);
	for (i = 0; i < d->nguest; i++)
		elf_symtab_finish(&d->guest[i].st);
	d->host_cr3 = VMX_CR3_UNKNOWN;
	d->other_from = -1;
	dvmx_sync(d);
	return 0;
}

int dvmx_filters(const struct decode_vmx *d)
{
	return d->host_only || d->guest_only || d->nsel;
}

static int dvmx_selected(const struct decode_vmx *d)
{
	const struct vmx_ctx *c;
	unsigned int i;

	if (!dvmx_filters(d))
		return 1;
	if (d->cur < 0)
		return 0;
	c = &d->ctx->ctx[d->cur];
	if (!c->nr)
		return d->host_only;
	if (d->host_only)
		return 0;
	if (!d->nsel)
		return 1;
	for (i = 0; i < d->nsel; i++)
		if (d->sel[i] == c->vmcs)
			return 1;
	return 0;
}

/*
 * @cur changed: what the per-instruction inlines of decode_vmx.h read
 * is worked out here, once, not per instruction.
 */
static void dvmx_moved(struct decode_vmx *d)
{
	const struct dvmx_guest *g;

	d->sel_cur = dvmx_selected(d);
	d->in_host = d->cur >= 0 && !d->ctx->ctx[d->cur].nr;
	d->cur_st = NULL;
	if (d->cur < 0 || d->in_host)
		return;
	g = dvmx_guest_of(d, d->ctx->ctx[d->cur].vmcs);
	d->cur_st = g ? &g->st : &d->empty_st;
}

void dvmx_sync(struct decode_vmx *d)
{
	d->entry_pending = 0;
	d->have_prev = 0;	/* a gap or an error: no time across it */
	d->cur = -1;
	d->vmcs = VMX_VMCS_NONE;
	dvmx_moved(d);
}

int dvmx_event(struct decode_vmx *d, const struct pt_event *ev)
{
	int old = d->cur, nr;
	uint64_t cr3;

	switch (ev->type) {
	case ptev_disabled:
	case ptev_async_disabled:
	case ptev_overflow:
		/* no guest code follows the entry in this trace */
		d->entry_pending = 0;
		return 0;
	case ptev_vmcs:
	case ptev_async_vmcs:
		d->vmcs = ev->type == ptev_vmcs ? ev->variant.vmcs.base :
			  ev->variant.async_vmcs.base;
		if (d->cur < 0 || !d->ctx->ctx[d->cur].nr ||
		    d->ctx->ctx[d->cur].vmcs == d->vmcs)
			return 0;
		nr = 1;
		cr3 = d->ctx->ctx[d->cur].cr3;
		break;
	case ptev_paging:
		nr = ev->variant.paging.non_root;
		cr3 = ev->variant.paging.cr3;
		break;
	case ptev_async_paging:
		nr = ev->variant.async_paging.non_root;
		cr3 = ev->variant.async_paging.cr3;
		break;
	default:
		return 0;
	}
	d->entry_pending = 0;
	if (!nr)
		d->host_cr3 = cr3;
	if (nr && d->vmcs == VMX_VMCS_NONE)
		d->nr_no_vmcs++;
	d->cur = vmx_ctx_get(d->ctx, nr ? d->vmcs : 0, nr, cr3);
	dvmx_moved(d);
	return d->cur != old;
}

/* The CR3 of the guest of @vmcs when it last ran, if it did. */
static uint64_t dvmx_guest_cr3(const struct decode_vmx *d, uint64_t vmcs)
{
	unsigned int i;

	for (i = d->ctx->n; i-- > 0;)
		if (d->ctx->ctx[i].nr && d->ctx->ctx[i].vmcs == vmcs &&
		    d->ctx->ctx[i].cr3 != VMX_CR3_UNKNOWN)
			return d->ctx->ctx[i].cr3;
	return VMX_CR3_UNKNOWN;
}

static void dvmx_cr3_str(char *s, size_t n, uint64_t cr3)
{
	if (cr3 == VMX_CR3_UNKNOWN)
		snprintf(s, n, "unknown");
	else
		snprintf(s, n, "0x%llx", (unsigned long long)cr3);
}

/*
 * --summary: the packet pass has no instructions to infer from, so it
 * takes decode's inferences, at libipt's offset then (a packet or two
 * past the transition's).  Out of memory: the packets stay by PIP.
 */
static void dvmx_note_switch(struct decode_vmx *d, uint64_t off, uint64_t ip,
			     int ip_due)
{
	if (!d->summary || !d->trace)
		return;
	if (d->nsw == d->sw_cap) {
		size_t cap = d->sw_cap ? 2 * d->sw_cap : 64;
		struct dvmx_switch *n = realloc(d->sw, cap * sizeof(*n));

		if (!n)
			return;
		d->sw = n;
		d->sw_cap = cap;
	}
	d->sw[d->nsw].buf = d->trace;
	d->sw[d->nsw].off = off;
	d->sw[d->nsw].ip = ip;
	d->sw[d->nsw++].ctx = d->cur;
	d->sw_ip_due = ip_due;
}

int dvmx_check_entry(struct decode_vmx *d, uint64_t off)
{
	uint64_t cr3;
	int old = d->cur;
	char c3[24];

	if (!d->entry_pending)
		return 0;
	d->entry_pending = 0;
	if (d->host_only_rec)
		return 0;	/* the guest is not traced: nothing follows */
	cr3 = dvmx_guest_cr3(d, d->vmcs);
	dvmx_cr3_str(c3, sizeof(c3), cr3);
	if (d->nr_no_pip++ < DVMX_NO_PIP_WARN)
		ptt_warn("offset 0x%llx: the VM entry at 0x%llx has no PIP: the code after it taken as the guest's of VMCS 0x%llx, CR3 %s (inferred)",
			 (unsigned long long)off,
			 (unsigned long long)d->entry_ip,
			 (unsigned long long)d->vmcs, c3);
	d->cur = vmx_ctx_get(d->ctx, d->vmcs, 1, cr3);
	dvmx_moved(d);
	if (d->cur >= 0)
		dvmx_note_switch(d, off, 0, 1);
	return d->cur != old;
}

int dvmx_other_side(struct decode_vmx *d)
{
	int to;

	if (d->cur < 0)
		return 0;	/* no PIP since the sync: no side to leave */
	if (!d->ctx->ctx[d->cur].nr) {
		/*
		 * Only into a guest whose code is known to hold the IP, and
		 * that was traced (not with pt_mode=1).
		 */
		if (d->host_only_rec || d->vmcs == VMX_VMCS_NONE ||
		    !dvmx_guest_of(d, d->vmcs))
			return 0;
		to = vmx_ctx_get(d->ctx, d->vmcs, 1,
				 dvmx_guest_cr3(d, d->vmcs));
	} else {
		/*
		 * Only out of a guest whose code is known: without it every
		 * guest IP is "no memory mapped", and the host's code at a
		 * colliding address would be taken for the guest's.
		 */
		if (!dvmx_guest_of(d, d->ctx->ctx[d->cur].vmcs))
			return 0;
		to = vmx_ctx_get(d->ctx, 0, 0, d->host_cr3);
	}
	if (to < 0)
		return 0;
	d->other_from = d->cur;
	d->cur = to;
	dvmx_moved(d);
	return 1;
}

int dvmx_other_done(struct decode_vmx *d, int ok, uint64_t ip, uint64_t off)
{
	const struct vmx_ctx *from = &d->ctx->ctx[d->other_from];
	const struct vmx_ctx *to = &d->ctx->ctx[d->cur];
	char c3[24];

	if (!ok) {
		d->cur = d->other_from;
		d->other_from = -1;
		dvmx_moved(d);
		return 1;
	}
	d->other_from = -1;
	dvmx_note_switch(d, off, ip, 0);
	dvmx_cr3_str(c3, sizeof(c3), to->cr3);
	if (to->nr) {
		if (d->nr_no_pip++ < DVMX_NO_PIP_WARN)
			ptt_warn("offset 0x%llx: the VM entry to 0x%llx has no PIP (the code there is not the host's but the guest's of VMCS 0x%llx): taken as that guest's, CR3 %s (inferred)",
				 (unsigned long long)off,
				 (unsigned long long)ip,
				 (unsigned long long)to->vmcs, c3);
	} else if (d->nr_no_exit_pip++ < DVMX_NO_PIP_WARN) {
		ptt_warn("offset 0x%llx: the VM exit to 0x%llx has no PIP (the code there is not the guest's of VMCS 0x%llx but the host's): taken as the host's, CR3 %s (inferred)",
			 (unsigned long long)off, (unsigned long long)ip,
			 (unsigned long long)from->vmcs, c3);
	}
	return 0;
}

struct pt_image *dvmx_image(const struct decode_vmx *d, struct pt_image *host)
{
	const struct dvmx_guest *g;

	if (d->cur < 0 || !d->ctx->ctx[d->cur].nr)
		return host;
	g = dvmx_guest_of(d, d->ctx->ctx[d->cur].vmcs);
	return g ? g->image : d->empty;
}

void dvmx_count(struct decode_vmx *d, uint64_t tsc, int have_tsc)
{
	/*
	 * libipt's time after an instruction includes the timing packets
	 * up to the next branch packet: the time since the last one is
	 * this instruction's, and its context's.
	 */
	if (d->have_prev && have_tsc && tsc >= d->prev_tsc) {
		if (d->cur < 0)
			d->unknown_ticks += tsc - d->prev_tsc;
		else
			d->ctx->ctx[d->cur].ticks += tsc - d->prev_tsc;
	}
	d->have_prev = have_tsc;
	d->prev_tsc = tsc;
	if (d->cur < 0)
		d->unknown++;
	else
		d->ctx->ctx[d->cur].insns++;
	d->shown += !!d->sel_cur;
}

/* An IP packet's IP from the last one's (SDM 36.4.2.2), 0: none. */
static int dvmx_pkt_ip(const struct pt_packet *p, uint64_t *last)
{
	const struct pt_packet_ip *ip = &p->payload.ip;
	uint64_t v = ip->ip;

	if (p->type != ppt_tip && p->type != ppt_tip_pge &&
	    p->type != ppt_tip_pgd && p->type != ppt_fup)
		return 0;
	switch (ip->ipc) {
	case pt_ipc_update_16:
		v = (*last & ~0xffffULL) | (v & 0xffff);
		break;
	case pt_ipc_update_32:
		v = (*last & ~0xffffffffULL) | (v & 0xffffffff);
		break;
	case pt_ipc_update_48:
		v = (*last & ~0xffffffffffffULL) | (v & 0xffffffffffffULL);
		break;
	case pt_ipc_sext_48:
		v = (uint64_t)((int64_t)(v << 16) >> 16);
		break;
	case pt_ipc_full:
		break;
	default:
		return 0;	/* suppressed */
	}
	*last = v;
	return 1;
}

struct dvmx_walk {
	struct decode_vmx *d;
	const uint8_t *buf;
	uint64_t last_ip;
	size_t k;
};

static int dvmx_packet(void *arg, const struct pt_packet *pkt, uint64_t off,
		       int err)
{
	struct dvmx_walk *w = arg;
	struct decode_vmx *d = w->d;

	if (!err && pkt->type == ppt_psb)
		w->last_ip = 0;
	/*
	 * decode's inferred contexts: at the transition's packet, the
	 * first that names the IP decode inferred at while in
	 * another context, else where libipt was.
	 */
	while (w->k < d->nsw && d->sw[w->k].buf != w->buf)
		w->k++;
	if (w->k < d->nsw && !err &&
	    ((dvmx_pkt_ip(pkt, &w->last_ip) && w->last_ip == d->sw[w->k].ip &&
	      d->ctx->cur != d->sw[w->k].ctx) || off >= d->sw[w->k].off)) {
		d->ctx->cur = d->sw[w->k].ctx;
		w->k++;
	}
	if (err)
		d->ctx->cur = -1;	/* back at the next PSB */
	else
		vmx_ctx_packet(d->ctx, pkt, pkt_has_ip(pkt));
	return 0;
}

void dvmx_packets(struct decode_vmx *d, const uint8_t *buf, size_t len)
{
	struct dvmx_walk w = { .d = d, .buf = buf };

	d->ctx->cur = -1;
	d->ctx->vmcs = VMX_VMCS_NONE;
	pkt_walk_mapped(buf, len, dvmx_packet, &w);
}

uint64_t dvmx_host_time(const struct dvmx_marks *m, uint64_t off, uint64_t t)
{
	size_t lo = 0, hi = m->n, i;
	const struct dvmx_mark *k;

	/* The last mark before @off: the decoder has read past it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->m[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * libipt's offset may lag the timing packets it has read ahead, or
	 * run past them: of the marks around, the one libipt's time counts
	 * from is the one it exceeds least (a guest's and the host's TSC
	 * differ by the offset).
	 */
	k = NULL;
	for (i = lo > 2 ? lo - 2 : 0; i < m->n && i < lo + 2; i++)
		if (m->m[i].raw <= t && (!k || t - m->m[i].raw < t - k->raw))
			k = &m->m[i];
	if (!k)
		return t;
	return k->host + (t - k->raw);
}

void dvmx_marks_free(struct dvmx_marks *m)
{
	free(m->m);
	memset(m, 0, sizeof(*m));
}

/*
 * "# context" lines after the summary: one per context, the guests'
 * TSC spans in host time when --guest-tsc gave their offset and ratio.
 */
void dvmx_print_summary(const struct decode_vmx *d, struct outbuf *ob)
{
	const struct vmx_ctx_state *s = d->ctx;
	unsigned int i;

	ob_printf(ob, "# context %-18s %-18s %12s %14s %10s  %s\n", "vmcs",
		  "cr3", "insns", "tsc-ticks", "packets",
		  "host tsc first .. last");
	for (i = 0; i < s->n; i++) {
		const struct vmx_ctx *c = &s->ctx[i];

		if (!c->nr)
			ob_printf(ob, "# host    %-18s", "-");
		else if (c->vmcs == VMX_VMCS_NONE)
			ob_printf(ob, "# guest   %-18s", "none-loaded");
		else
			ob_printf(ob, "# guest   0x%016llx",
				  (unsigned long long)c->vmcs);
		if (c->cr3 == VMX_CR3_UNKNOWN)
			ob_printf(ob, " %-18s", "unknown");
		else
			ob_printf(ob, " 0x%016llx", (unsigned long long)c->cr3);
		ob_printf(ob, " %12llu %14llu %10llu  ",
			  (unsigned long long)c->insns,
			  (unsigned long long)c->ticks,
			  (unsigned long long)c->packets);
		if (c->have_tsc)
			ob_printf(ob, "%llu .. %llu\n",
				  (unsigned long long)c->tsc_first,
				  (unsigned long long)c->tsc_last);
		else
			ob_puts(ob, "-\n");
	}
	if (d->unknown)
		ob_printf(ob,
			  "# unknown context (no PIP since the PSB): %llu insns, %llu tsc-ticks\n",
			  (unsigned long long)d->unknown,
			  (unsigned long long)d->unknown_ticks);
	if (dvmx_filters(d))
		ob_printf(ob, "# shown by the filter: %llu insns\n",
			  (unsigned long long)d->shown);
}

void dvmx_free(struct decode_vmx *d)
{
	unsigned int i;

	for (i = 0; i < d->nguest; i++) {
		pt_image_free(d->guest[i].image);
		elf_symtab_free(&d->guest[i].st);
	}
	pt_image_free(d->empty);
	elf_symtab_free(&d->empty_st);
	free(d->sw);
	d->sw = NULL;
	free(d->ctx);
	d->ctx = NULL;
}
