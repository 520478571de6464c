/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pt_trace: user-space ABI of the Intel Processor Trace driver.
 *
 * One character device per online CPU, /dev/ptN.  The configuration is
 * staged with ioctls while tracing is stopped, PT_TRACE_IOC_START programs
 * the hardware and PT_TRACE_IOC_STOP stops it.  The trace buffer is read by
 * mmap(2) of the device (or, in streaming mode, by read(2)).
 *
 * Every structure passed by pointer starts with a __u32 'size' that user
 * space sets to sizeof() of the structure it was compiled with.  The driver
 * accepts any size from the first published size (PT_TRACE_*_SIZE_VER0) on:
 * a shorter structure is zero-extended, and bytes of a longer structure that
 * this driver does not know must be zero (else -E2BIG).  Every reserved or
 * padding field must be zero (else -EINVAL).  This lets later versions add
 * fields at the end without breaking old binaries.
 *
 * See Documentation/abi.rst for the full description.
 */
#ifndef _UAPI_LINUX_PT_TRACE_H
#define _UAPI_LINUX_PT_TRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Bumped only for incompatible changes; new fields do not bump it. */
#define PT_TRACE_ABI_VERSION		1

/*
 * IA32_RTIT_CTL (MSR 0x570) bit positions, as in the SDM, Vol. 3C,
 * Table 36-6.  struct pt_trace_config.ctl uses this layout directly.
 */
#define PT_CTL_TRACEEN			(1ULL << 0)	/* driver-owned */
#define PT_CTL_CYCEN			(1ULL << 1)
#define PT_CTL_OS			(1ULL << 2)
#define PT_CTL_USER			(1ULL << 3)
#define PT_CTL_PWREVTEN			(1ULL << 4)
#define PT_CTL_FUPONPTW			(1ULL << 5)
#define PT_CTL_FABRICEN			(1ULL << 6)	/* driver-owned */
#define PT_CTL_CR3FILTER		(1ULL << 7)
#define PT_CTL_TOPA			(1ULL << 8)	/* driver-owned */
#define PT_CTL_MTCEN			(1ULL << 9)
#define PT_CTL_TSCEN			(1ULL << 10)
#define PT_CTL_DISRETC			(1ULL << 11)
#define PT_CTL_PTWEN			(1ULL << 12)
#define PT_CTL_BRANCHEN			(1ULL << 13)
#define PT_CTL_MTCFREQ_SHIFT		14
#define PT_CTL_MTCFREQ_MASK		(0xfULL << PT_CTL_MTCFREQ_SHIFT)
#define PT_CTL_CYCTHRESH_SHIFT		19
#define PT_CTL_CYCTHRESH_MASK		(0xfULL << PT_CTL_CYCTHRESH_SHIFT)
#define PT_CTL_PSBFREQ_SHIFT		24
#define PT_CTL_PSBFREQ_MASK		(0xfULL << PT_CTL_PSBFREQ_SHIFT)
#define PT_CTL_EVENTEN			(1ULL << 31)
#define PT_CTL_ADDR_CFG_SHIFT(n)	(32 + 4 * (n))
#define PT_CTL_ADDR_CFG_MASK(n)		(0xfULL << PT_CTL_ADDR_CFG_SHIFT(n))
#define PT_CTL_NOTNT			(1ULL << 55)

/* Values of an ADDRn_CFG field. */
#define PT_ADDR_CFG_OFF			0
#define PT_ADDR_CFG_FILTER		1	/* trace only inside the range */
#define PT_ADDR_CFG_STOP		2	/* stop tracing on entry */

#define PT_TRACE_MAX_ADDR_RANGES	4

/* struct pt_trace_caps.flags: what this CPU (or model profile) supports. */
#define PT_CAP_CR3_FILTER		(1U << 0)	/* CPUID.14.0:EBX[0] */
#define PT_CAP_PSB_CYC			(1U << 1)	/* EBX[1] */
#define PT_CAP_IP_FILTER		(1U << 2)	/* EBX[2] */
#define PT_CAP_MTC			(1U << 3)	/* EBX[3] */
#define PT_CAP_PTWRITE			(1U << 4)	/* EBX[4] */
#define PT_CAP_POWER_EVENTS		(1U << 5)	/* EBX[5] */
#define PT_CAP_PSB_PMI_PRESERVE		(1U << 6)	/* EBX[6] */
#define PT_CAP_EVENT_TRACE		(1U << 7)	/* EBX[7] */
#define PT_CAP_TNT_DISABLE		(1U << 8)	/* EBX[8] */
#define PT_CAP_TOPA			(1U << 16)	/* ECX[0] */
#define PT_CAP_TOPA_MULTI		(1U << 17)	/* ECX[1] */
#define PT_CAP_SINGLE_RANGE		(1U << 18)	/* ECX[2] */
#define PT_CAP_TRACE_TRANSPORT		(1U << 19)	/* ECX[3] */
#define PT_CAP_LIP			(1U << 20)	/* ECX[31] */

/* struct pt_trace_caps.quirks: errata the driver works around. */
#define PT_QUIRK_BRANCHEN_ALWAYS_ON	(1U << 0)	/* BDM106 */
#define PT_QUIRK_SINGLE_RANGE_4K	(1U << 1)	/* TGL052 ADL037 RPL017 */

/* Where the hardware operations go. */
#define PT_BACKEND_HW			0	/* the CPU's own MSRs */
#define PT_BACKEND_MODEL		1	/* the software model (testing) */

struct pt_trace_caps {
	__u32 size;
	__u32 abi_version;		/* PT_TRACE_ABI_VERSION */
	__u32 backend;			/* PT_BACKEND_* */
	__u32 cpu;			/* the CPU this device traces */
	__u32 flags;			/* PT_CAP_* */
	__u32 quirks;			/* PT_QUIRK_* */
	__u32 num_addr_ranges;		/* usable ADDRn_A/B pairs */
	__u32 mtc_periods;		/* bitmap of valid MTCFreq values */
	__u32 cyc_thresholds;		/* bitmap of valid CycThresh values */
	__u32 psb_periods;		/* bitmap of valid PSBFreq values */
	__u32 cpuid_14[2][4];		/* raw CPUID 0x14 subleaves 0, 1 */
	__u32 family;
	__u32 model;
	__u32 stepping;
	__u32 reserved0;
	__u64 ctl_valid;		/* RTIT_CTL bits user space may set */
	__u64 max_buffer_size;		/* per CPU, bytes */
	__u64 min_buffer_size;		/* bytes */
	/* Since size 128: what a decoder needs for MTC and CYC timing. */
	__u32 cpuid_15[4];		/* raw CPUID 0x15 (TSC/crystal ratio) */
};

#define PT_TRACE_CAPS_SIZE_VER0		112
#define PT_TRACE_CAPS_SIZE_VER1		128	/* + cpuid_15 */

/* struct pt_trace_config.output */
#define PT_OUTPUT_AUTO			0	/* driver picks, see status */
#define PT_OUTPUT_TOPA			1	/* table of physical addresses */
#define PT_OUTPUT_SINGLE		2	/* one contiguous range */

/* One Branch Trace Store record, 64-bit format (SDM Vol. 3B 18.4.4.1). */
struct pt_trace_bts_record {
	__u64 from;			/* the branch's linear address */
	__u64 to;			/* its target */
	__u64 flags;			/* PT_BTS_PREDICTED */
};

#define PT_BTS_RECORD_SIZE		24
#define PT_BTS_PREDICTED		(1ULL << 4)
/*
 * A switch record, stored by the driver (not the CPU) where a context
 * switch happened on the traced CPU, with PT_BTS_CTL_SWITCHES: from is
 * PT_BTS_SWITCH_FROM, to is the next task's pid (thread group id) in
 * bits 63:32 and tid in 31:0 (0/0: idle), flags is PT_BTS_SWITCH.
 */
#define PT_BTS_SWITCH			(1ULL << 63)
#define PT_BTS_SWITCH_FROM		(~0ULL)
#define PT_BTS_SWITCH_PID(to)		((__u32)((to) >> 32))
#define PT_BTS_SWITCH_TID(to)		((__u32)(to))
/* /dev/btsN's ctl only: a switch record at each context switch. */
#define PT_BTS_CTL_SWITCHES		(1ULL << 63)

/* struct pt_trace_config.mode */
#define PT_MODE_FLIGHT			0	/* wrap, overwriting the oldest */
#define PT_MODE_STREAM			1	/* ring drained by user space */

struct pt_trace_addr_range {
	__u64 start;			/* ADDRn_A, inclusive */
	__u64 end;			/* ADDRn_B, inclusive */
};

/*
 * The whole configuration of one device.  'ctl' is IA32_RTIT_CTL in the
 * SDM's layout; TraceEn, FabricEn and ToPA must be 0 (the driver owns
 * them).  CR3Filter uses cr3_match; ADDRn_CFG uses addr[n].
 *
 * /dev/btsN (Branch Trace Store) takes the same structure and ioctls:
 * 'ctl' holds only PT_CTL_OS (kernel branches) and/or PT_CTL_USER (user
 * branches), at least one, and PT_BTS_CTL_SWITCHES (switch records in the
 * data, for telling threads apart); 'mode' is PT_MODE_FLIGHT (a circular BTS
 * buffer, copied oldest first to the start of the data at STOP or a
 * status: the data is [0, head), PT_STATUS_WRAPPED when older records
 * were overwritten) or PT_MODE_STREAM (the threshold PMI copies records
 * into the ring, read as for PT; records dropped for lack of room are
 * counted exactly in PT_LOSS_NO_SPACE records); 'buffer_size' and
 * 'watermark' as for PT; 'output', 'cr3_match', 'addr' and 'reserved'
 * must be 0.  The data is a sequence of struct pt_trace_bts_record.
 * SET_CR3, SET_CYC, SET_ADDR, FOLLOW and GET_FOLLOW fail with ENOTTY.
 * User branches are refused (EOPNOTSUPP) under page table isolation,
 * and a filter of one side alone where the CPU has no DS-CPL.
 */
struct pt_trace_config {
	__u32 size;
	__u32 output;			/* PT_OUTPUT_* */
	__u64 ctl;			/* PT_CTL_* */
	__u64 cr3_match;		/* IA32_RTIT_CR3_MATCH */
	struct pt_trace_addr_range addr[PT_TRACE_MAX_ADDR_RANGES];
	__u64 buffer_size;		/* bytes, 0 = module default */
	__u32 mode;			/* PT_MODE_* */
	__u32 watermark;		/* stream: wake after this many bytes */
	__u64 reserved[4];
};

#define PT_TRACE_CONFIG_SIZE_VER0	136

/* PT_TRACE_IOC_SET_CR3: CR3 filter by value or by process. */
#define PT_CR3_BY_VALUE			0	/* use 'cr3' as given */
#define PT_CR3_BY_PID			1	/* derive from process 'pid' */
#define PT_CR3_OFF			2	/* clear CR3Filter */

struct pt_trace_cr3 {
	__u32 size;
	__u32 how;			/* PT_CR3_* */
	__u64 cr3;			/* in: BY_VALUE; out: value used */
	__s32 pid;			/* in: BY_PID (0 = caller) */
	__u32 reserved;
};

#define PT_TRACE_CR3_SIZE_VER0		24

struct pt_trace_cyc {
	__u32 size;
	__u32 enable;			/* 0 or 1: CYCEn */
	__u32 threshold;		/* CycThresh encoding */
	__u32 reserved;
};

#define PT_TRACE_CYC_SIZE_VER0		16

struct pt_trace_addr {
	__u32 size;
	__u32 index;			/* range n, < num_addr_ranges */
	__u32 cfg;			/* PT_ADDR_CFG_* */
	__u32 reserved;
	__u64 start;
	__u64 end;
};

#define PT_TRACE_ADDR_SIZE_VER0		32

/* struct pt_trace_status.flags */
#define PT_STATUS_RUNNING		(1U << 0)
#define PT_STATUS_WRAPPED		(1U << 1)	/* oldest data overwritten */
#define PT_STATUS_HW_STOPPED		(1U << 2)	/* RTIT_STATUS.Stopped */
#define PT_STATUS_HW_ERROR		(1U << 3)	/* RTIT_STATUS.Error */
#define PT_STATUS_CONFIGURED		(1U << 4)	/* buffer allocated */
#define PT_STATUS_CPU_OFFLINE		(1U << 5)	/* CPU offline: stopped */
/* Another agent stopped or replaced our trace (abi.rst, "Taken over"). */
#define PT_STATUS_TAKEN_OVER		(1U << 6)

/*
 * poll(2) on /dev/ptN reports POLLPRI (EPOLLPRI) while the status says
 * PT_STATUS_HW_STOPPED as far as the driver has read RTIT_STATUS, and
 * wakes its pollers when it first reads Stopped (a TraceStop range): see
 * abi.rst, "poll(2)/epoll".  An addition to ABI version 1: a driver from
 * before it never reports POLLPRI in flight mode, so poll with a timeout
 * and look at GET_STATUS then.
 */
#define PT_TRACE_POLL_STOPPED		0x0002	/* POLLPRI */

struct pt_trace_status {
	__u32 size;
	__u32 flags;			/* PT_STATUS_* */
	__u32 output;			/* PT_OUTPUT_* actually in use */
	__u32 mode;			/* PT_MODE_* */
	__u64 buffer_size;		/* bytes mapped at the data offset */
	__u64 head;			/* bytes produced since start */
	__u64 offset;			/* head % buffer_size: next write */
	__u64 rtit_status;		/* IA32_RTIT_STATUS at last stop */
	__u64 lost_bytes;		/* stream: sum of the records' bytes */
	__u64 loss_records;		/* stream: gaps recorded */
	__u64 pmis;			/* PMIs handled on this CPU */
	__u64 starts;			/* successful starts */
	/* Streaming (zero before ABI 1 drivers had streaming). */
	__u64 stream_bytes;		/* bytes the hardware wrote */
	__u64 stops;			/* times the hardware stopped (ToPA STOP) */
	__u64 lost_ns;			/* time not traced, over all gaps */
	__u64 errors;			/* RTIT_STATUS.Error seen */
	/* Since size 120 (PT_TRACE_STATUS_SIZE_VER1). */
	__u32 vmx;			/* PT_STATUS_VMX_*: this CPU, now */
	__u32 reserved0;		/* 0 */
	/*
	 * Since size 136 (PT_TRACE_STATUS_SIZE_VER2): when the driver last
	 * stopped this trace itself (its CPU went offline, a suspend), just
	 * after the stop: CLOCK_MONOTONIC ns and the TSC.  0 when it never
	 * did since open.
	 */
	__u64 driver_stop_ns;
	__u64 driver_stop_tsc;
};

#define PT_TRACE_STATUS_SIZE_VER0	112	/* the streaming fields included */
#define PT_TRACE_STATUS_SIZE_VER1	120	/* + vmx */
#define PT_TRACE_STATUS_SIZE_VER2	136	/* + driver_stop_ns, _tsc */

/*
 * struct pt_trace_status.vmx: the VMX situation of the device's CPU when
 * GET_STATUS ran (abi.rst, "GET_STATUS").
 */
#define PT_STATUS_VMX_PRESENT		(1U << 0)	/* CPUID.1:ECX.VMX */
/*
 * IA32_VMX_MISC[14]: PT may run in VMX operation, so a VMM can trace
 * host-only or guest-only (SDM 36.5.2); without it START fails there.
 */
#define PT_STATUS_VMX_TRACE_OK		(1U << 1)
#define PT_STATUS_VMX_ON		(1U << 2)	/* CR4.VMXE now */
/* Guests run on the CPU with PT on in VMX non-root (our trace has them). */
#define PT_STATUS_VMX_GUESTS_TRACED	(1U << 3)
/*
 * VMX is on and the backend cannot tell whether guests run traced (on
 * silicon only the hypervisor knows; kvm_intel's pt_mode says how it
 * sets PT up): GUESTS_TRACED is then never set.
 */
#define PT_STATUS_VMX_GUESTS_UNKNOWN	(1U << 4)

/*
 * mmap layout: the control page at offset PT_TRACE_MMAP_CTRL_OFFSET (one
 * page, read-only except data_tail in streaming mode) and the data at
 * data_offset (read-only, data_size bytes, linear whatever the hardware
 * layout).  The driver writes data_head after the data it covers is
 * visible: read data_head, then smp_rmb() (or an acquire load) before
 * reading data.  In streaming mode user space writes data_tail with a
 * release store after it has finished reading the data below it (the
 * control page may be mapped alone with PROT_WRITE for that).
 */
#define PT_TRACE_MMAP_CTRL_OFFSET	0ULL

/*
 * Streaming: a gap in the stream.  The trace stopped at stream position
 * 'pos' (bytes since start: data before it was written, data from it on
 * was produced after tracing resumed) and was not recorded from
 * 'start_ns' to 'end_ns' (CLOCK_MONOTONIC) / 'start_tsc' to 'end_tsc'.
 * Silicon does not count what it could not write, so 'bytes' is 0
 * (unknown) unless PT_LOSS_BYTES_KNOWN is set; with it (a backend that
 * counts, such as the model) 'bytes' is exactly what was produced and
 * not written, and may be 0 (the trace was off: time lost, no bytes).
 * PT_LOSS_DROPPED: bytes a backend counted as lost while the trace ran
 * without stopping, recorded at 'pos' = where that run began, with
 * 'start_*' the start of that run (not time lost: not in lost_ns).
 */
#define PT_LOSS_HW_STOP			(1U << 0)	/* RTIT_STATUS.Stopped */
#define PT_LOSS_NO_SPACE		(1U << 1)	/* held stopped: ring full */
#define PT_LOSS_HW_ERROR		(1U << 2)	/* RTIT_STATUS.Error */
#define PT_LOSS_BYTES_KNOWN		(1U << 3)	/* 'bytes' is exact */
#define PT_LOSS_DROPPED			(1U << 4)	/* lost while running */
#define PT_LOSS_TAKEN_OVER		(1U << 5)	/* another agent held PT */
#define PT_LOSS_THROTTLED		(1U << 6)	/* PMI rate limit */

struct pt_trace_loss {
	__u64 pos;
	__u64 bytes;
	__u64 start_ns;
	__u64 end_ns;
	__u64 start_tsc;
	__u64 end_tsc;
	__u32 flags;			/* PT_LOSS_* */
	__u32 seq;			/* index of this record (low 32 bits) */
	__u64 reserved;
};

struct pt_trace_mmap_page {
	__u32 version;			/* PT_TRACE_ABI_VERSION */
	__u32 size;			/* sizeof this structure */
	__u64 data_offset;		/* mmap offset of the data */
	__u64 data_size;		/* bytes */
	__u64 data_head;		/* bytes produced since start */
	__u64 data_tail;		/* stream: bytes consumed */
	__u32 flags;			/* PT_STATUS_* at last update */
	__u32 mode;			/* PT_MODE_* */
	__u64 lost_bytes;		/* stream: sum of the records' bytes */
	__u64 loss_records;
	__u64 generation;		/* bumped on every start */
	/*
	 * Streaming: loss records (struct pt_trace_loss) live in this page
	 * at loss_offset, a ring of loss_slots; record i (i < loss_records)
	 * is in slot i % loss_slots.  The driver fills a slot before it
	 * publishes loss_records (release): copy record i, re-load
	 * loss_records (acquire) and keep the copy only if
	 * loss_records - i < loss_slots.
	 */
	__u32 loss_offset;
	__u32 loss_slots;
	__u64 pmis;
	__u64 stops;
	__u32 watermark;		/* bytes, as in effect */
	__u32 reserved0;
};

/*
 * PT_TRACE_IOC_FOLLOW: trace this CPU only while a task of the followed
 * set runs on it (perf's per-task events).  Set on each /dev/ptN of the
 * CPUs to follow on, while stopped; the configuration (filters, mode,
 * buffer) applies on top.  The set: the process 'pid' with all its
 * threads, and with PT_FOLLOW_INHERIT every process it (or a member)
 * creates from this call on.  A task leaves the set when it exits.
 * PT_FOLLOW_CLEAR (pid 0, no other flag) ends following: the device
 * traces its whole CPU again.  Unknown flags: -EINVAL.
 */
#define PT_FOLLOW_INHERIT		(1U << 0)	/* + new descendants */
#define PT_FOLLOW_CLEAR			(1U << 1)	/* stop following */

struct pt_trace_follow {
	__u32 size;
	__s32 pid;			/* process (any of its threads' tid) */
	__u32 flags;			/* PT_FOLLOW_* */
	__u32 reserved;
};

#define PT_TRACE_FOLLOW_SIZE_VER0	16

/* struct pt_trace_follow_status.state */
#define PT_FOLLOW_ACTIVE		(1U << 0)	/* a set is followed */
#define PT_FOLLOW_SWITCHED_IN		(1U << 1)	/* a member runs here now */
#define PT_FOLLOW_EMPTY			(1U << 2)	/* every member has exited */

/* PT_TRACE_IOC_GET_FOLLOW: what this device follows (counters since FOLLOW). */
struct pt_trace_follow_status {
	__u32 size;
	__s32 pid;			/* as given to FOLLOW, 0 when not following */
	__u32 flags;			/* PT_FOLLOW_* as given */
	__u32 state;			/* PT_FOLLOW_ACTIVE, _SWITCHED_IN, _EMPTY */
	__u64 processes;		/* processes in the set now */
	__u64 joined;			/* processes that joined (the first included) */
	__u64 left;			/* processes that left (exit, setuid exec) */
	__u64 switches_in;		/* a member switched in while running */
	__u64 switches_out;		/* ... and out again */
	__u64 join_failures;		/* descendants not followed (set full, no memory) */
	__u64 reserved[2];
};

#define PT_TRACE_FOLLOW_STATUS_SIZE_VER0	80

#define PT_TRACE_IOC_MAGIC		0xB6

#define PT_TRACE_IOC_GET_CAPS	_IOR(PT_TRACE_IOC_MAGIC, 0x00, struct pt_trace_caps)
#define PT_TRACE_IOC_SET_CONFIG	_IOW(PT_TRACE_IOC_MAGIC, 0x01, struct pt_trace_config)
#define PT_TRACE_IOC_GET_CONFIG	_IOR(PT_TRACE_IOC_MAGIC, 0x02, struct pt_trace_config)
#define PT_TRACE_IOC_SET_CR3	_IOWR(PT_TRACE_IOC_MAGIC, 0x03, struct pt_trace_cr3)
#define PT_TRACE_IOC_SET_CYC	_IOW(PT_TRACE_IOC_MAGIC, 0x04, struct pt_trace_cyc)
#define PT_TRACE_IOC_SET_ADDR	_IOW(PT_TRACE_IOC_MAGIC, 0x05, struct pt_trace_addr)
#define PT_TRACE_IOC_SET_BUFSIZE _IOW(PT_TRACE_IOC_MAGIC, 0x06, __u64)
#define PT_TRACE_IOC_START	_IO(PT_TRACE_IOC_MAGIC, 0x07)
#define PT_TRACE_IOC_STOP	_IO(PT_TRACE_IOC_MAGIC, 0x08)
#define PT_TRACE_IOC_GET_STATUS	_IOR(PT_TRACE_IOC_MAGIC, 0x09, struct pt_trace_status)
/* 0x10..0x17: following tasks */
#define PT_TRACE_IOC_FOLLOW	_IOW(PT_TRACE_IOC_MAGIC, 0x10, struct pt_trace_follow)
#define PT_TRACE_IOC_GET_FOLLOW	_IOR(PT_TRACE_IOC_MAGIC, 0x11, struct pt_trace_follow_status)

#endif /* _UAPI_LINUX_PT_TRACE_H */
