/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode under VMX (decode_vmx.c): which execution context each decoded
 * instruction ran in, keyed by (VMCS base, PIP.NR, CR3) as
 * vmx_context.c keys them, from libipt's paging and VMCS events; the
 * --host-only, --guest-only and --vmcs filters; the code of each guest
 * (--guest-image), swapped in as the decoder enters that guest; and the
 * per-context summary (--summary).
 */
#ifndef PT_TRACE_DECODE_VMX_H
#define PT_TRACE_DECODE_VMX_H

#include <stdint.h>
#include <intel-pt.h>

#include "elf_image.h"
#include "outbuf.h"
#include "sideband.h"
#include "vmx_context.h"

#define DVMX_MAX_VMCS	16	/* --vmcs filters, --guest-image guests */
#define DVMX_MAX_TSC	64	/* --guest-tsc */
#define DVMX_MAX_VCPU	64	/* kvm.vcpu sideband lines */

/* A recorded KVM vCPU's TSC (sideband kvm.vcpu): "PID-FD/vcpuN". */
struct dvmx_vcpu {
	char name[48];
	int64_t offset;
	uint64_t ratio;		/* 48 fraction bits, 0: 1.0 */
};

/* One guest's code: an image and its own symbols. */
struct dvmx_guest {
	uint64_t vmcs;
	struct pt_image *image;
	struct elf_symtab st;
};

/*
 * A context the decoder inferred without PIP (dvmx_check_entry(),
 * dvmx_other_done()) at the instruction at @ip, libipt then at trace
 * offset @off of the trace at @buf (past the transition's packets: it
 * reads ahead): the packet pass of --summary switches there too, at the
 * transition's packet naming @ip.
 */
struct dvmx_switch {
	const uint8_t *buf;
	uint64_t off, ip;
	int ctx;
};

struct decode_vmx {
	/* options */
	int host_only, guest_only, summary;
	uint64_t sel[DVMX_MAX_VMCS];	/* --vmcs: guests with these */
	unsigned int nsel;
	struct dvmx_guest guest[DVMX_MAX_VMCS];
	unsigned int nguest;
	struct vmx_guest_tsc tsc[DVMX_MAX_TSC];
	unsigned int ntsc;
	/*
	 * The recording's vCPUs; when they differ (@vcpu_differ), each
	 * VMCS's is inferred from the trace (decode_vmx_tsc.c) and added
	 * to @tsc, or the VMCS is put in @tsc_failed (warned once).
	 */
	struct dvmx_vcpu vcpu[DVMX_MAX_VCPU];
	unsigned int nvcpu;
	int vcpu_differ;
	uint64_t tsc_failed[DVMX_MAX_TSC];
	unsigned int ntsc_failed;
	/*
	 * The recording's kvm.pt_mode was 1 (host_guest): KVM switched the
	 * PT MSRs at entry and exit, so no guest code is in the trace, and
	 * a host IP that only a guest's image holds is no VM entry without
	 * PIP (a TIP.PGE after TIP.PGD() looks alike in both).
	 */
	int host_only_rec;
	/* state */
	struct pt_image *empty;	/* a guest's code without --guest-image */
	struct elf_symtab empty_st;
	struct vmx_ctx_state *ctx;	/* the contexts (and the packet pass) */
	int cur;		/* the instructions' context; -1: unknown */
	uint64_t vmcs;		/* the last VMCS event's base */
	int sel_cur;		/* instructions of @cur are shown */
	int in_host;		/* @cur is known and the host's */
	const struct elf_symtab *cur_st;	/* a guest's symbols, or NULL */
	uint64_t unknown;	/* instructions before the first PIP */
	uint64_t unknown_ticks;
	uint64_t prev_tsc;	/* the last instruction's time */
	int have_prev;		/* @prev_tsc is known */
	uint64_t shown;		/* instructions the filter let through */
	uint64_t nr_no_vmcs;	/* guest PIPs with no VMCS loaded */
	uint64_t no_image;	/* "no memory mapped" in a guest without code */
	/*
	 * A VM entry (VMLAUNCH/VMRESUME) decoded in the host whose PIP has
	 * not come yet: the next instruction is the guest's all the same.
	 */
	int entry_pending;
	uint64_t entry_ip;
	uint64_t nr_no_pip;	/* entries without PIP, context inferred */
	/* the warnings of those, one line each, up to this many */
#define DVMX_NO_PIP_WARN	10
	/*
	 * dvmx_other_side(): the context a trial left, the host's CR3 as
	 * the last host PIP gave it, exits without PIP found by the trial.
	 */
	int other_from;
	uint64_t host_cr3;
	uint64_t nr_no_exit_pip;
	/* --summary: the inferred switches, in decode order */
	const uint8_t *trace;	/* the trace being decoded (set by decode) */
	struct dvmx_switch *sw;
	size_t nsw, sw_cap;
	int sw_ip_due;		/* the last one's @ip: the next instruction's */
};

/*
 * A trace's TSC packets, for --guest-tsc: where each lies, its value, and
 * that value in host time (a guest's converted with its offset/ratio).
 */
struct dvmx_mark {
	uint64_t off, raw, host;
	uint64_t vmcs;		/* the context it was written in */
	int nr;
};

struct dvmx_marks {
	struct dvmx_mark *m;
	size_t n;
};

/* Options: 0, or -1 after an error message. */
int dvmx_add_guest_image(struct decode_vmx *d, const char *arg);
int dvmx_add_vmcs(struct decode_vmx *d, const char *arg);
int dvmx_add_guest_tsc(struct decode_vmx *d, const char *arg);
/*
 * The recording's KVM facts: its pt_mode (sideband kvm.pt_mode; 1: no
 * guest code in the trace, warned when guest options were given), and
 * its TSC offset and ratio (kvm.vcpu lines), for every guest without
 * --guest-tsc, when all vCPUs have the same: 1 taken, 0 none recorded,
 * -1 they differ (dvmx_scan_tsc() infers each VMCS's vCPU then).
 */
int dvmx_tsc_from_sideband(struct decode_vmx *d, const struct ptsb *sb);
/* After the options: 0, or -1 (out of memory). */
int dvmx_init(struct decode_vmx *d);
/* Whether any of --host-only, --guest-only, --vmcs was given. */
int dvmx_filters(const struct decode_vmx *d);
/* At each synchronisation: the context is unknown until its PIP. */
void dvmx_sync(struct decode_vmx *d);
/*
 * One of libipt's events: paging and VMCS events move the context.
 * Returns 1 when the context changed (the image may be another now).
 */
int dvmx_event(struct decode_vmx *d, const struct pt_event *ev);
/* The code and symbols of the current context (@host's for the host). */
struct pt_image *dvmx_image(const struct decode_vmx *d,
			    struct pt_image *host);
/*
 * The per-instruction calls below are inline: decode calls them for
 * every instruction, and they read what dvmx_event(), dvmx_sync() and
 * dvmx_check_entry() worked out when the context moved.
 */
static inline const struct elf_symtab *
dvmx_symtab(const struct decode_vmx *d, const struct elf_symtab *host)
{
	return d->cur_st ? d->cur_st : host;
}

/* dvmx_insn()'s counting for --summary. */
void dvmx_count(struct decode_vmx *d, uint64_t tsc, int have_tsc);

/*
 * One instruction in the current context, at host time @tsc when
 * @have_tsc: 1 when it is to be shown.  With --summary it is counted,
 * and the time since the instruction before is its context's.
 */
static inline int dvmx_insn(struct decode_vmx *d, uint64_t tsc, int have_tsc)
{
	if (d->summary)
		dvmx_count(d, tsc, have_tsc);
	return d->sel_cur;
}

/* VMLAUNCH (0f 01 c2) and VMRESUME (0f 01 c3). */
static inline int dvmx_is_entry(const struct pt_insn *insn)
{
	return insn->size == 3 && insn->raw[0] == 0x0f &&
	       insn->raw[1] == 0x01 &&
	       (insn->raw[2] == 0xc2 || insn->raw[2] == 0xc3);
}

/*
 * After each decoded instruction: is it a VM entry from the host?  Then
 * the guest's context is due with the entry's PIP (dvmx_event()).
 */
static inline void dvmx_after_insn(struct decode_vmx *d,
				   const struct pt_insn *insn)
{
	/* --summary: an inferred entry's IP is its first instruction's */
	if (d->sw_ip_due) {
		d->sw[d->nsw - 1].ip = insn->ip;
		d->sw_ip_due = 0;
	}
	d->entry_pending = d->in_host && dvmx_is_entry(insn);
	if (d->entry_pending)
		d->entry_ip = insn->ip;
}

/*
 * Before the next instruction, its events taken: a VM entry whose PIP
 * did not come (SDM 36.5.2.5: a VMM that emulated the guest's MOV CR3
 * without writing the PIP, or a CPU that drops it) would leave the
 * guest's code taken for the host's.  Warns naming the trace offset
 * @off, then enters the guest of the loaded VMCS with the CR3 it last
 * had.  Returns 1 when the context changed (set the image again).
 */
int dvmx_check_entry(struct decode_vmx *d, uint64_t off);
/*
 * "No memory mapped" at @ip, where the decoder stopped before decoding
 * any instruction there (the target of a branch, an enable, a resume):
 * in the host with a VMCS loaded whose guest has --guest-image, or in
 * a guest that has one, it may be a VM entry or exit whose PIP did not come (a VMM
 * that did not write it after emulating a MOV CR3, SDM 36.5.2.5, a CPU
 * that drops it, a PIP lost with an overflow).  Moves to the other side
 * (the loaded VMCS's guest with the CR3 it last had, or the host with
 * its last CR3) and returns 1: set its image, decode the instruction
 * again and call dvmx_other_done() with whether that worked.  0: the
 * context stays.
 */
int dvmx_other_side(struct decode_vmx *d);
/*
 * After the trial: @ok, the code was the other side's (warns naming the
 * trace offset @off and @ip, counted as an entry or exit without PIP),
 * else the context goes back to what it was.  Returns 1 when the context
 * changed back (set the image again).
 */
int dvmx_other_done(struct decode_vmx *d, int ok, uint64_t ip, uint64_t off);
/*
 * The packet pass of --summary over one trace (@buf as decode had it in
 * d->trace): packets and TSC spans by the PIPs and VMCS packets, and by
 * the contexts decode inferred where a PIP was missing.  @buf is a
 * ptt_map_file() mapping (the pass drops what it read).
 */
void dvmx_packets(struct decode_vmx *d, const uint8_t *buf, size_t len);
/*
 * The TSC packets of a trace (nothing without --guest-tsc or kvm.vcpu
 * lines).  With vCPUs that differ, first the vCPU of each guest VMCS
 * not known yet, inferred from its timestamps (noted or warned once per
 * VMCS on stderr).  @buf is a ptt_map_file() mapping.
 */
void dvmx_scan_tsc(struct decode_vmx *d, const uint8_t *buf, size_t len,
		   struct dvmx_marks *out);
/*
 * The index in @v[@nv] of the one (offset, ratio) that puts the first
 * guest TSC packets of @vmcs in @m[@n] between the host TSC packets
 * around them (vCPUs with equal ones count as one); -1: none fits (or no
 * host timestamps to tell), -2: several do.
 */
int dvmx_tsc_infer(const struct dvmx_mark *m, size_t n, uint64_t vmcs,
		   const struct dvmx_vcpu *v, unsigned int nv);
/*
 * The decoder's time @t, at trace offset @off, in host time: the last TSC
 * packet before @off converted, plus what libipt added since (MTC and
 * CYC count the crystal and core clocks, which no VMM scales).
 */
uint64_t dvmx_host_time(const struct dvmx_marks *m, uint64_t off, uint64_t t);
void dvmx_marks_free(struct dvmx_marks *m);
/* 1 with the VMCS when the instructions' context is a guest's. */
static inline int dvmx_cur_guest(const struct decode_vmx *d, uint64_t *vmcs)
{
	const struct vmx_ctx *c;

	if (d->cur < 0)
		return 0;
	c = &d->ctx->ctx[d->cur];
	*vmcs = c->vmcs;
	return c->nr;
}

void dvmx_print_summary(const struct decode_vmx *d, struct outbuf *ob);
void dvmx_free(struct decode_vmx *d);

#endif /* PT_TRACE_DECODE_VMX_H */
