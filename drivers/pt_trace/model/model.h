/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The software model of the Intel PT hardware: shared declarations.
 *
 * The model is a behavioural stand-in for the silicon behind the hw-ops
 * interface (hw.h), written from the SDM (Vol. 3C, ch. 36), not from what
 * the driver expects.  See Documentation/model.rst.
 *
 * Concurrency (see model.c for the full argument): all state is per CPU
 * and only ever touched by its own CPU, from the hrtimer tick (hardirq),
 * from MSR operations (the driver calls them with IRQs off, or in NMI)
 * and from NMI context.  No locks: each operation changes a private copy
 * of the state and publishes it with one cmpxchg; one that an NMI
 * overtook is redone (pt_model_update()).
 */
#ifndef _PT_TRACE_MODEL_H
#define _PT_TRACE_MODEL_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "../hw.h"
#include "packets.h"
#include "exact.h"
#include "vmx_enc.h"

struct bts_ds_area;
struct dentry;

/* The CPUID answers of one modelled CPU, plus the facts leaf 0x14 lacks. */
struct pt_model_profile {
	const char *name;
	const char *desc;
	struct pt_cpuid_regs leaf0, leaf1, leaf7, leaf14[2], leaf15;
	u8 phys_bits;		/* MAXPHYADDR */
	u8 cbr;			/* core:bus ratio reported in CBR packets */
	bool branchen_always_on;	/* BDM106: BranchEn=0 with TraceEn #GPs */
	/* IA32_VMX_MISC, read only when CPUID.1:ECX.VMX (bit 5) is set. */
	u64 vmx_misc;
	/* model_vmx=1: VM entries send no PIP (vmx_enc.h, no_entry_pip). */
	bool vmx_entry_no_pip;
	/* Bits IA32_PERF_GLOBAL_STATUS_RESET (0x390) accepts; others #GP. */
	u64 gsr_valid;
	/* IA32_MISC_ENABLE as read (BTS/PEBS unavailable bits; bts.c). */
	u64 misc_enable;
	/* Bits IA32_PEBS_ENABLE accepts (bts_rules.c); others #GP. */
	u64 pebs_valid;
	/* Bytes of the PEBS records it stores (pebs.c); 0: 192. */
	unsigned int pebs_record;
};

extern const struct pt_model_profile pt_model_profiles[];
extern const unsigned int pt_model_nr_profiles;
const struct pt_model_profile *pt_model_profile_find(const char *name);

/* Capability tests on a profile's leaf 0x14 (SDM Table 36-11). */
static inline bool pt_mp_ebx(const struct pt_model_profile *p, int bit)
{
	return p->leaf14[0].ebx & BIT(bit);
}

static inline bool pt_mp_ecx(const struct pt_model_profile *p, int bit)
{
	return p->leaf14[0].ecx & BIT(bit);
}

#define PT_MP_CR3		0	/* EBX */
#define PT_MP_PSB_CYC		1
#define PT_MP_IPFILT		2
#define PT_MP_MTC		3
#define PT_MP_PTWRITE		4
#define PT_MP_PWR		5
#define PT_MP_PSB_PMI		6
#define PT_MP_EVENT		7
#define PT_MP_NOTNT		8
#define PT_MP_TOPA		0	/* ECX */
#define PT_MP_MENTRY		1
#define PT_MP_SINGLE		2
#define PT_MP_FABRIC		3

unsigned int pt_mp_nr_ranges(const struct pt_model_profile *p);
u32 pt_mp_mtc_bitmap(const struct pt_model_profile *p);
u32 pt_mp_cyc_bitmap(const struct pt_model_profile *p);
u32 pt_mp_psb_bitmap(const struct pt_model_profile *p);

/* The architectural registers of one logical CPU. */
struct pt_model_regs {
	u64 ctl;		/* IA32_RTIT_CTL */
	u64 status;		/* IA32_RTIT_STATUS */
	u64 base;		/* IA32_RTIT_OUTPUT_BASE */
	u64 mask;		/* IA32_RTIT_OUTPUT_MASK_PTRS (bits 6:0 as stored) */
	u64 cr3_match;		/* IA32_RTIT_CR3_MATCH */
	u64 addr[4][2];		/* IA32_RTIT_ADDRn_A/B */
	u64 global_status;	/* IA32_PERF_GLOBAL_STATUS, bits 55 and 62 */
	u64 debugctl;		/* IA32_DEBUGCTL (bts_rules.c) */
	u64 ds_area;		/* IA32_DS_AREA */
	u64 pebs_enable;	/* IA32_PEBS_ENABLE (another agent's) */
	/*
	 * Not a PT MSR: CR4.VMXE (VMX operation, the vmx hook).  With
	 * IA32_VMX_MISC[14]=0, setting TraceEn #GPs while it is set.
	 */
	bool vmxe;
	/*
	 * Not architectural: the single-entry ToPA early PMI was signalled
	 * in this lap of the region (cleared when it fills and on
	 * TraceEn 0->1).
	 */
	bool int_early;
	/*
	 * ToPA entries the hardware read at TraceEn 0->1 (SDM 36.2.6.2: it
	 * "may cache internally any number of entries" and ignore edits):
	 * the first PT_MODEL_TOPA_CACHE from the output position on,
	 * following END.  Used instead of memory until the next enable.
	 */
	unsigned int topa_ncache;
	struct {
		u64 table;
		u32 idx;
		u64 e;
	} topa_cache[8];
};

#define PT_MODEL_TOPA_CACHE	8
/* output.c: TraceEn 0->1 with ToPA: read the entries the hardware keeps. */
void pt_model_topa_cache_fill(struct pt_model_regs *r);

/* Why a write was refused (a modelled #GP). */
enum pt_model_gp {
	PT_GP_NONE = 0,
	PT_GP_UNKNOWN_MSR,
	PT_GP_RESERVED,		/* a reserved bit, or a bit whose cap is absent */
	PT_GP_ENCODING,		/* MTCFreq/CycThresh/PSBFreq/ADDRn_CFG value */
	PT_GP_TRACEEN,		/* MSR written while TraceEn=1 */
	PT_GP_CTL_CHANGE,	/* RTIT_CTL changed while TraceEn stays 1 */
	PT_GP_NO_OUTPUT,	/* TraceEn with an output scheme not supported */
	PT_GP_NONCANONICAL,	/* ADDRn not sign-extended */
	PT_GP_BDM106,		/* Broadwell: TraceEn=1 with BranchEn=0 */
	PT_GP_READONLY,		/* write to a read-only MSR */
	PT_GP_VMX,		/* TraceEn in VMX operation, VMX_MISC[14]=0 */
	PT_GP_INJECTED,		/* test hook ctl_fault: a disabling write */
	PT_GP_BTS,		/* DEBUGCTL BTS bits without DS, or unavailable */
	PT_GP_NR
};

const char *pt_model_gp_str(enum pt_model_gp why);

/* msr_rules.c: pure.  0 and the value to store, or -EIO and why. */
int pt_model_check_wrmsr(const struct pt_model_profile *p,
			 const struct pt_model_regs *cur, u32 msr, u64 val,
			 u64 *store, enum pt_model_gp *why);
int pt_model_check_rdmsr(const struct pt_model_profile *p, u32 msr,
			 enum pt_model_gp *why);
/*
 * bts_rules.c: pure.  The same for IA32_DEBUGCTL, IA32_DS_AREA and
 * IA32_MISC_ENABLE; -ENOENT for any other MSR.
 */
int pt_model_bts_check_wrmsr(const struct pt_model_profile *p, u32 msr,
			     u64 val, u64 *store, enum pt_model_gp *why);
int pt_model_bts_check_rdmsr(const struct pt_model_profile *p, u32 msr,
			     enum pt_model_gp *why);
/* Canonical for the linear-address width of the CPU the model runs on. */
bool pt_model_canonical(u64 v);
/* Does the profile have BTS (DS, and MISC_ENABLE[11] clear)? */
bool pt_model_bts_present(const struct pt_model_profile *p);

/* Operational errors (SDM 36.3.9), recorded in STATUS.Error. */
enum pt_model_operr {
	PT_OPERR_NONE = 0,
	PT_OPERR_SR_MASK,	/* single range: size not a power of two */
	PT_OPERR_SR_BASE,	/* single range: base not aligned to size */
	PT_OPERR_SR_OFFSET,	/* single range: OutputOffset > mask */
	PT_OPERR_TABLE_ALIGN,	/* ToPA table base not 4 KiB aligned */
	PT_OPERR_ENTRY_RSVD,	/* ToPA entry reserved bit set */
	PT_OPERR_ENTRY_ALIGN,	/* region base not aligned to its size */
	PT_OPERR_ENTRY_PHYS,	/* base above MAXPHYADDR */
	PT_OPERR_END_FLAGS,	/* STOP or INT on an END entry */
	PT_OPERR_END_FIRST,	/* END in entry 0 */
	PT_OPERR_SINGLE_ENTRY,	/* single-entry ToPA rules */
	PT_OPERR_OFFSET,	/* OutputOffset >= region size */
	PT_OPERR_END_LOOP,	/* END entries that never reach a region */
	PT_OPERR_UNBACKED,	/* model limit: not RAM of this kernel */
	PT_OPERR_NR
};

const char *pt_model_operr_str(enum pt_model_operr e);

/* output.c: where bytes go, exactly as the hardware would put them. */
struct pt_model_out_result {
	u32 written;		/* bytes stored in memory */
	u32 lost;		/* bytes dropped: stopped, error */
	bool pmi;		/* an INT region filled */
};

/*
 * Where one operation's bytes go in memory, computed before its state is
 * published and copied after (see pt_model_update()).  A run never
 * crosses an output region; ToPA regions are 4 KiB at least and a
 * single-range write keeps only the last lap, so a tick of at most
 * PT_MODEL_STAGE_MAX + PT_MODEL_STAGE_SLACK bytes needs 2 + 64 KiB / 4 KiB
 * runs.
 */
#define PT_MODEL_MAX_SEGS	24

struct pt_model_seg {
	u64 phys;
	u32 from;		/* offset in the operation's bytes */
	u32 len;
};

struct pt_model_state;

struct pt_model_pending {
	/* The copy is due once this state is published (NULL: none). */
	struct pt_model_state *state;
	const u8 *data;
	unsigned int nseg;
	struct pt_model_seg seg[PT_MODEL_MAX_SEGS];
};

enum pt_model_operr pt_model_out_check(const struct pt_model_profile *p,
				       const struct pt_model_regs *r);
/* Place the bytes and store them at once (pure users, KUnit). */
void pt_model_out_write(const struct pt_model_profile *p,
			struct pt_model_regs *r, const u8 *data, u32 len,
			struct pt_model_out_result *res,
			enum pt_model_operr *operr);
/* Place the bytes, recording the runs in @pend; store nothing yet. */
void pt_model_out_place(const struct pt_model_profile *p,
			struct pt_model_regs *r, u32 len,
			struct pt_model_out_result *res,
			enum pt_model_operr *operr,
			struct pt_model_pending *pend);
/* Store the runs recorded by pt_model_out_place() from pend->data. */
void pt_model_out_copy(const struct pt_model_pending *pend);

/* Per-CPU counters, all read by debugfs; atomic: NMIs update them too. */
struct pt_model_stats {
	atomic64_t gp_faults;		/* driver path #GPs: must stay 0 */
	atomic64_t gp_faults_test;	/* #GPs provoked through debugfs hooks */
	atomic64_t gp_by_reason[PT_GP_NR];
	atomic64_t op_errors;
	atomic64_t bytes_written;
	atomic64_t packets;
	atomic64_t lost_bytes;		/* could not be written: stopped, error */
	atomic64_t pmis_raised;
	atomic64_t pmis_masked;		/* PMI while LVTPC still masked */
	atomic64_t nmi_races;		/* an op was redone or a tick dropped */
	atomic64_t ticks;
	atomic64_t psbs;
	atomic64_t ovfs;
	atomic64_t burst_bytes;		/* model_burst: bytes that were copies */
	/*
	 * Time in the generator's tick (hardirq), and the part of it that
	 * interrupted a task in kernel mode: without IRQ_TIME_ACCOUNTING
	 * (Debian's kernels) that time is charged to the task, so a
	 * benchmark timing the driver's system calls subtracts it.
	 */
	atomic64_t tick_ns;
	atomic64_t tick_ns_ktask;
	/* BTS (bts.c) */
	atomic64_t bts_records;		/* stored in a BTS buffer */
	atomic64_t bts_filtered;	/* BTS_OFF_OS/USR */
	atomic64_t bts_dropped;		/* BTINT=1, index at the maximum */
	atomic64_t bts_pmis;		/* threshold reached */
	atomic64_t bts_ds_errors;	/* DS area unreadable or its layout wrong */
	atomic64_t bts_pti_faults;	/* a user-mode record under PTI */
	atomic64_t bts_tail;		/* stored after DEBUGCTL turned BTS on */
	atomic64_t bts_late;		/* stored by bts_late_pmi */
	atomic64_t bts_exact_busy;	/* a stepped branch found the stage full */
	atomic64_t bts_exact_exceptions;	/* interrupts, exceptions from user */
	atomic64_t bts_exact_returns;	/* records of returns to user mode */
	/* PEBS (pebs.c) */
	atomic64_t pebs_records;	/* stored in a PEBS buffer */
	atomic64_t pebs_dropped;	/* no room below the PEBS maximum */
	atomic64_t pebs_pmis;		/* PEBS threshold reached */
	atomic64_t pebs_ds_errors;	/* DS area not in the direct map */
	u32 last_gp_msr;
	u64 last_gp_val;
	enum pt_model_gp last_gp_why;
	enum pt_model_operr last_operr;
};

/* model_vmx (vmx.c): the VMCS this CPU has loaded (0: none yet). */
struct pt_model_vmx_state {
	u64 vmcs;
	u32 visits;		/* VM entries so far: which VM runs next */
};

/*
 * Everything an MSR write or a tick may change, replaced as a whole:
 * an operation copies the active state into its own scratch copy,
 * changes the copy and publishes it with one cmpxchg of the pointer.  A
 * nested operation (an NMI) that published first makes the outer one's
 * cmpxchg fail; the outer one then redoes its work on the new state (MSR
 * writes) or drops it (a tick).  Readers see one consistent state.
 */
struct pt_model_state {
	struct pt_model_regs regs;
	u64 last_ip;		/* IP compression state of the stream */
	u64 last_cr3;		/* the last CR3 a PIP announced */
	u64 seen_cr3;		/* the CR3 the last tick sampled */
	u64 seq;		/* the last PTW sequence number (model_seq) */
	u64 lfsr;		/* pseudo-random TNT bits and targets */
	u32 psb_cnt;		/* bytes since the last PSB */
	u32 steps;
	u8 last_mtc;
	bool packet_en;		/* PacketEn after the last tick */
	bool need_psb;		/* PSB+ due (enable with PacketByteCnt=0) */
	bool need_timing;	/* enable without PSB: TSC/TMA/CBR */
	bool ovf_pending;	/* test hook: next tick overflows */
	bool in_tx;		/* MODE.TSX state when model_tsx=1 */
	bool trace_stopped;	/* STATUS.Stopped came from a TraceStop range */
	/*
	 * model_stale: the last tick's bytes, placed (the pointers are past
	 * them) but not yet in memory; their data is in
	 * pt_model_cpu.held_data[held_idx].  And the pointers before that
	 * tick, which every other pointer read returns while TraceEn=1.
	 */
	struct pt_model_pending held;
	u8 held_idx;
	u64 old_base, old_mask;
	struct pt_model_vmx_state vmx;
	struct pt_model_exact x;	/* model_exact (exact.c) */
};

#define PT_MODEL_DEPTHS		3	/* 0 unused, 1 tick/op, 2 NMI */

/*
 * BTS branches handed from the tick (or another producer) to the
 * model's NMI, which stores them: see bts.c.
 */
#define PT_MODEL_BTS_STAGE	64

struct pt_model_bts_branch {
	u64 from, to;
	bool kernel;		/* lands at CPL 0 (BTS_OFF_OS), else BTS_OFF_USR */
};

struct pt_model_bts {
	/* PT_MODEL_BTS_STAGE, allocated (module per-CPU data is scarce). */
	struct pt_model_bts_branch *br;
	unsigned int staged;	/* the producer fills br only while 0 */
	atomic_t nmis_owed;	/* sent, not yet seen (merged NMIs) */
	u64 lfsr;
	bool late;		/* bts_late_pmi armed (bts.c) */
	struct irq_work late_work;	/* ... its NMI, delivered late */
};

struct pt_model_cpu {
	struct pt_model_state buf[PT_MODEL_DEPTHS];
	struct pt_model_state *active;
	struct pt_model_state *scratch[PT_MODEL_DEPTHS];
	unsigned int depth;	/* >0: inside a model operation */
	struct hrtimer timer;
	struct irq_work kick;	/* start the timer from NMI context */
	bool running;		/* timer armed */
	bool lvtpc_masked;	/* a PMI was sent and not yet re-armed */
	u8 *stage;		/* the packets of one tick */
	u8 *nmi_stage;		/* exact mode: an event inside an NMI */
	/* Bytes placed by the operation at each depth, not yet stored. */
	struct pt_model_pending pend[PT_MODEL_DEPTHS];
	u8 flush[PT_MODEL_DEPTHS][64];	/* the bytes of a TraceEn 1->0 flush */
	u8 *held_data[2];	/* model_stale: bytes not yet in memory */
	u64 stale_reads;	/* model_stale: pointer reads, old on odd */
	u64 rate_last_ns;	/* model_rate: when the last tick's budget ran */
	s64 rate_carry;		/* model_rate: bytes owed (or ahead) */
	int cpu;
	/* Test hook ctl_fault: the driver's next disabling write #GPs. */
	int fail_disable;
	struct pt_model_bts bts;
	/*
	 * model_exact: the next user instruction of the task stepped on
	 * this CPU, for every consumer of the steps (PT's encoder keeps its
	 * own copy in its state, x.pending; BTS, bts_exact.c, uses this).
	 */
	u64 xpending;
	/*
	 * Our sys_enter probe, or a retire of a SYSCALL before it, is at
	 * work on this CPU: a disable in an NMI there leaves the syscall
	 * to it (exact_step.c).
	 */
	bool xsys_probe;
	/* exact.c: a PSB+ followed the instruction whose truth line is due. */
	bool xpsb_after;
	/* exact.c: the PMI of that instruction's packets is due after it. */
	bool xpmi_due;
	/*
	 * BTS (bts_exact.c): the kernel's SYSRET or IRET that resumes the
	 * task at xpending (0: none seen), whether an interrupt or exception
	 * was taken there (a page fault's signal is that same exception),
	 * and whether the task runs user code now (from our #DB until its
	 * next kernel entry: an interrupt then came from user mode).
	 */
	u64 xkret;
	bool xkentered;
	bool xuser;
	/*
	 * xkret was made due by a switch-in, which happens in the kernel:
	 * the task has not been in user mode since, and an exception's
	 * signal seen then (a ptrace stop came first) was raised before it.
	 */
	bool xkswitched;
	/*
	 * The stepped task that was current when BTS went 1 -> 0 here
	 * (compared only), until its next step, kernel entry or switch: BTS
	 * on again before that (a threshold PMI's drain, a switch record)
	 * finds its return state as it was (pt_exact_arm()).
	 */
	const void *xbts_off;
	struct pt_model_stats stats;
};

/* Allocated at module load: the modules' static per-CPU area is small. */
extern struct pt_model_cpu __percpu *pt_model_cpus;

extern const struct pt_model_profile *pt_model_prof;
extern unsigned int pt_model_period_us;
extern unsigned int pt_model_tick_bytes;
extern bool pt_model_seq;
extern bool pt_model_burst;
extern bool pt_model_tsx;
extern bool pt_model_vmx_guest;
extern bool pt_model_vmcs;
extern unsigned int pt_model_early_pmi;
extern bool pt_model_topa_cached;
extern unsigned long pt_model_rate;
struct kernel_param;
/*
 * A module parameter's set(): @val parsed, EINVAL outside [@lo, @hi],
 * stored in *kp->arg as an unsigned long (@ulong) or an unsigned int.
 */
int pt_model_set_ranged(const char *val, const struct kernel_param *kp,
			unsigned long lo, unsigned long hi, bool ulong);
/*
 * model_rate's largest value (1 TiB/s, far above the 64 KiB per 10 us
 * ceiling): the tick's bytes owed, rate x gap / 1 s with a gap of up to
 * two 1 s periods, must fit the 64-bit quotient of mul_u64_u64_div_u64()
 * (a #DE on x86 otherwise).
 */
#define PT_MODEL_RATE_MAX	BIT(40)
extern bool pt_model_stale;

#define PT_MODEL_STAGE_MAX	(64 * 1024)
#define PT_MODEL_STAGE_SLACK	512	/* room for one PSB+ and one step */
#define PT_MODEL_NMI_STAGE	256	/* exact: PSB+ and FUP + TIP.PGD */

/* model.c */
typedef int (*pt_model_fn)(struct pt_model_cpu *st, struct pt_model_state *s,
			   void *arg);
int pt_model_update(struct pt_model_cpu *st, pt_model_fn fn, void *arg,
		    bool redo);
int pt_model_do_wrmsr(struct pt_model_cpu *st, u32 msr, u64 val, bool test);
int pt_model_do_rdmsr(struct pt_model_cpu *st, u32 msr, u64 *val);
void pt_model_count_gp(struct pt_model_cpu *st, u32 msr, u64 val,
		       enum pt_model_gp why, bool test);
void pt_model_count_operr(struct pt_model_cpu *st, enum pt_model_operr e);
struct pt_model_cpu *pt_model_cpu_ptr(int cpu);
/* The pending copy of the operation running now (inside fn only). */
struct pt_model_pending *pt_model_pending_now(struct pt_model_cpu *st);
void pt_model_finish_interrupted(struct pt_model_cpu *st);

/* xorshift64 over *@x (@seed while it is 0): cheap, deterministic per CPU. */
static inline u64 pt_model_xorshift(u64 *x, u64 seed)
{
	u64 v = *x ? *x : seed;

	v ^= v << 13;
	v ^= v >> 7;
	v ^= v << 17;
	*x = v;
	return v;
}

/* generator.c */
void pt_model_gen_init(struct pt_model_cpu *st);
void pt_model_gen_exit(struct pt_model_cpu *st);
/* model_stale: store the held bytes of @s now (TraceEn 1->0, a tick). */
void pt_model_held_store(struct pt_model_state *s);
/* TraceEn 0->1 and 1->0 on a scratch state (pmi-safe, no timer ops). */
void pt_model_gen_on_enable(struct pt_model_state *s);
void pt_model_gen_on_disable(struct pt_model_cpu *st, struct pt_model_state *s,
			     struct pt_model_out_result *out, u32 *packets);
/* Shared with the exact model (exact.c). */
struct pt_ctx;
void pt_model_timing(struct pt_pkt_buf *b, const struct pt_model_regs *r,
		     const struct pt_ctx *c);
void pt_model_timing_at(struct pt_pkt_buf *b, const struct pt_model_regs *r,
			const struct pt_ctx *c, u64 tsc);
u64 pt_model_ctc(u64 tsc);
u64 pt_model_ctc_tsc(u64 ctc);
u32 pt_model_psb_threshold(const struct pt_model_regs *r);
void pt_model_account_bytecnt(struct pt_model_state *s, u32 n);
u64 pt_model_ctx_cr3(bool user);
/* After the enable is published: make sure the tick runs. */
void pt_model_gen_kick(struct pt_model_cpu *st);

/* vmx.c: simulated guests on a CPU in VMX operation (model_vmx). */
#define PT_MODEL_VMX_OFF	0
#define PT_MODEL_VMX_SYSTEM	1	/* system-wide: guests traced */
#define PT_MODEL_VMX_HOST	2	/* host-only: Table 36-48 */
/*
 * The guests' code: the same 16-byte block throughout each VM's 64 KiB
 * (vmx.c), whose six JZ a guest step walks with a TNT bit each before
 * its JMP *%rax (a TIP) to another block (generator.c).
 */
#define PT_MODEL_VM_CODE_SIZE	SZ_64K
#define PT_MODEL_VMX_BLOCK	16
#define PT_MODEL_VMX_BLOCK_JCC	6
unsigned int pt_model_vmx_mode(const struct pt_model_regs *r);
u64 pt_model_vmx_tsc(const struct pt_ctx *c, u64 tsc);
u64 pt_model_vmx_psb_vmcs(const struct pt_model_state *s);
void pt_model_vmx_enter(struct pt_model_state *s, struct pt_pkt_buf *b,
			const struct pt_ctx *host, bool host_ctx_en,
			struct pt_ctx *g);
bool pt_model_vmx_entry(unsigned int mode, struct pt_model_state *s,
			struct pt_pkt_buf *b, const struct pt_ctx *host,
			const struct pt_ctx *g, bool g_ctx_en, bool g_pe);
void pt_model_vmx_exit(unsigned int mode, struct pt_model_state *s,
		       struct pt_pkt_buf *b, const struct pt_ctx *host,
		       const struct pt_ctx *g, bool h_ctx_en, bool h_pe);
void pt_model_vmx_debugfs_init(struct dentry *dir);

/* pmi.c */
void pt_model_nmi_self(void);
void pt_model_pmi_send(struct pt_model_cpu *st);
/* Set bit 55 (a model operation) and send the PMI: the raise of a PMI. */
void pt_model_pmi_raise(struct pt_model_cpu *st);

/* bts.c: Branch Trace Store. */
int pt_model_bts_init(struct dentry *dir);
void pt_model_bts_exit(void);
/* DEBUGCTL has TR and BTS: records are stored. */
/* DEBUGCTL @debugctl has TR and BTS set: branches are stored. */
bool pt_model_debugctl_bts(u64 debugctl);
bool pt_model_bts_on(const struct pt_model_regs *r);
/* The tick's sampled branches (hardirq, on the CPU). */
void pt_model_bts_tick(struct pt_model_cpu *st, u64 ip, bool user);
/*
 * An agent file's "CPU ACTION" (agents.c): @cpu online, @name the
 * action (at most PT_AGENT_NAME - 1 characters); 0 or -EINVAL.
 */
#define PT_AGENT_NAME	24
int pt_model_agent_args(const char __user *ubuf, size_t len,
			unsigned int *cpu, char name[PT_AGENT_NAME]);
/* PEBS (pebs.c): a tick's assist, and the perf-like agent. */
void pt_model_pebs_tick(struct pt_model_cpu *st, u64 ip);
int pt_model_pebs_init(struct dentry *dir);
void pt_model_pebs_exit(void);
bool pt_model_kvm_pmi(struct pt_model_cpu *st);
int pt_model_kvm_init(struct dentry *dir);
void pt_model_kvm_exit(void);
/* DEBUGCTL turned BTS on: model_bts_tail's branches after the write. */
void pt_model_bts_started(struct pt_model_cpu *st);
/* The driver writes DEBUGCTL with @val: bts_late_pmi's moment? */
void pt_model_bts_writing(struct pt_model_cpu *st, u64 val);
/*
 * The one entry for branches to store (the sampled generator now; the
 * exact model's stepped branches can come through it), IRQs off on the
 * CPU: the PT_MODEL_BTS_STAGE slots to fill, or NULL while the last
 * batch waits for its NMI; then hand the first @n filled ones over.
 */
struct pt_model_bts_branch *pt_model_bts_slots(struct pt_model_cpu *st);
void pt_model_bts_commit(struct pt_model_cpu *st, unsigned int n);
/* bts_selftest: BTS PMIs on @cpu (-1: none) are claimed and re-armed. */
void pt_model_bts_claim_pmis(int cpu);
extern atomic_t pt_model_bts_pmis_claimed;
void pt_model_bts_selftest_init(struct dentry *dir);
/*
 * bts_exact.c: BTS fed by the exact model.  Does this CPU step user code
 * for BTS (model_exact, TR and BTS, not BTS_OFF_USR)?  And one stepped
 * instruction at @from (STEP or SYSCALL), @next the one after it:
 * stores its record if it is a taken branch; false when BTS is not fed.
 */
bool pt_model_bts_exact(struct pt_model_cpu *st);
bool pt_model_bts_exact_insn(struct pt_model_cpu *st, enum pt_exact_ev ev,
			     u64 from, const struct pt_insn *in, u64 next);
/*
 * The task was resumed in user mode at @regs (a system call's or a
 * signal's return): the record of that return is stored with its first
 * instruction.  Switched out: no return pending here; true when an
 * interrupt or exception at its pending instruction was seen and the
 * return from it not yet stored, which is then due where it is switched
 * in (@kentered of pt_model_bts_exact_in()).
 */
void pt_model_bts_exact_resume(struct pt_model_cpu *st,
			       const struct pt_regs *regs);
bool pt_model_bts_exact_out(struct pt_model_cpu *st);
void pt_model_bts_exact_in(struct pt_model_cpu *st,
			   const struct pt_regs *regs, bool kentered);
/*
 * An interrupt or exception (@vec, -1: unknown) taken at the pending
 * instruction; @fault_sig: seen by the signal it raised.  False when
 * BTS is not fed or it was seen already.  IRQs off.
 */
bool pt_model_bts_exact_kentry(struct pt_model_cpu *st, int vec,
			       bool fault_sig);
/* bts_kret.c: the kernel's SYSRET and IRET to user mode (0: not found). */
extern u64 pt_model_kret_sysret, pt_model_kret_iret;
void pt_model_kret_init(void);
/* bts_rules.c: the DS area's BTS fields are a valid buffer. */
bool pt_model_bts_layout_ok(const struct bts_ds_area *ds);

/* agents.c: the other agents on a CPU (model.rst, "Other agents"). */
int pt_model_agents_init(struct dentry *dir);
void pt_model_agents_exit(void);
void pt_model_agents_free(void);
/* The driver (not a hook) cleared TraceEn on this CPU. */
void pt_model_agents_on_disable(struct pt_model_cpu *st);
void pt_model_agents_on_enable(struct pt_model_cpu *st);
/* perf's sched-in (@in) or sched-out on this CPU, IRQs off. */
void pt_model_foreign_sched(bool in);

/* perf_pmu.c: the model's stand-in for perf's intel_pt PMU. */
int pt_model_perf_pmu_register(void);
void pt_model_perf_pmu_unregister(void);
void pt_model_perf_pmu_live(bool live);

/* Test hook: PMIs still to swallow, and how many were (debugfs). */
extern atomic_t pt_model_drop_pmis;
extern atomic_t pt_model_pmis_dropped;
int pt_model_pmi_selftest(int cpu);

/* debugfs.c, selftest.c */
int pt_model_debugfs_init(struct dentry *parent);
void pt_model_debugfs_exit(void);
void pt_model_selftest_init(struct dentry *dir);
void pt_model_selftest_exit(void);
/* Following's ground truth (witness.c). */
void pt_model_witness_init(struct dentry *dir);
void pt_model_witness_exit(void);

#endif /* _PT_TRACE_MODEL_H */
