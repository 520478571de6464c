// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of every structure of the ABI (include/uapi/linux/pt_trace.h)
 * as a table of sizes and field offsets.  tests/host/run compiles it for
 * x86-64 and for i386 and compares the two tables: a 32-bit process calls
 * the same ioctls through compat_ioctl (compat_ptr_ioctl(), no translation)
 * and maps the same control page, so every structure must be laid out
 * alike in both (no __u64 at an offset that is not a multiple of 8, sizes
 * multiples of 8).  Compiled only (-c), with no C library.
 */
#include <stddef.h>
#include <linux/pt_trace.h>

#define S(s)	 sizeof(struct s)
#define F(s, f)	 offsetof(struct s, f)

const unsigned int pt_abi_layout[] = {
	S(pt_trace_caps), F(pt_trace_caps, abi_version), F(pt_trace_caps, cpuid_14),
	F(pt_trace_caps, family), F(pt_trace_caps, reserved0),
	F(pt_trace_caps, ctl_valid), F(pt_trace_caps, max_buffer_size),
	F(pt_trace_caps, min_buffer_size), F(pt_trace_caps, cpuid_15),
	S(pt_trace_bts_record), F(pt_trace_bts_record, flags),
	S(pt_trace_addr_range), F(pt_trace_addr_range, end),
	S(pt_trace_config), F(pt_trace_config, output), F(pt_trace_config, ctl),
	F(pt_trace_config, cr3_match), F(pt_trace_config, addr),
	F(pt_trace_config, buffer_size), F(pt_trace_config, mode),
	F(pt_trace_config, watermark), F(pt_trace_config, reserved),
	S(pt_trace_cr3), F(pt_trace_cr3, how), F(pt_trace_cr3, cr3),
	F(pt_trace_cr3, pid), F(pt_trace_cr3, reserved),
	S(pt_trace_cyc), F(pt_trace_cyc, enable), F(pt_trace_cyc, threshold),
	F(pt_trace_cyc, reserved),
	S(pt_trace_addr), F(pt_trace_addr, index), F(pt_trace_addr, cfg),
	F(pt_trace_addr, reserved), F(pt_trace_addr, start), F(pt_trace_addr, end),
	S(pt_trace_status), F(pt_trace_status, flags), F(pt_trace_status, output),
	F(pt_trace_status, mode), F(pt_trace_status, buffer_size),
	F(pt_trace_status, head), F(pt_trace_status, offset),
	F(pt_trace_status, rtit_status), F(pt_trace_status, lost_bytes),
	F(pt_trace_status, loss_records), F(pt_trace_status, pmis),
	F(pt_trace_status, starts), F(pt_trace_status, stream_bytes),
	F(pt_trace_status, stops), F(pt_trace_status, lost_ns),
	F(pt_trace_status, errors), F(pt_trace_status, vmx),
	F(pt_trace_status, reserved0), F(pt_trace_status, driver_stop_ns),
	F(pt_trace_status, driver_stop_tsc),
	S(pt_trace_loss), F(pt_trace_loss, pos), F(pt_trace_loss, bytes),
	F(pt_trace_loss, start_ns), F(pt_trace_loss, end_ns),
	F(pt_trace_loss, start_tsc), F(pt_trace_loss, end_tsc),
	F(pt_trace_loss, flags), F(pt_trace_loss, seq), F(pt_trace_loss, reserved),
	S(pt_trace_mmap_page), F(pt_trace_mmap_page, size),
	F(pt_trace_mmap_page, data_offset), F(pt_trace_mmap_page, data_size),
	F(pt_trace_mmap_page, data_head), F(pt_trace_mmap_page, data_tail),
	F(pt_trace_mmap_page, flags), F(pt_trace_mmap_page, mode),
	F(pt_trace_mmap_page, lost_bytes), F(pt_trace_mmap_page, loss_records),
	F(pt_trace_mmap_page, generation), F(pt_trace_mmap_page, loss_offset),
	F(pt_trace_mmap_page, loss_slots), F(pt_trace_mmap_page, pmis),
	F(pt_trace_mmap_page, stops), F(pt_trace_mmap_page, watermark),
	F(pt_trace_mmap_page, reserved0),
	S(pt_trace_follow), F(pt_trace_follow, pid), F(pt_trace_follow, flags),
	F(pt_trace_follow, reserved),
	S(pt_trace_follow_status), F(pt_trace_follow_status, pid),
	F(pt_trace_follow_status, flags), F(pt_trace_follow_status, state),
	F(pt_trace_follow_status, processes), F(pt_trace_follow_status, joined),
	F(pt_trace_follow_status, left), F(pt_trace_follow_status, switches_in),
	F(pt_trace_follow_status, switches_out),
	F(pt_trace_follow_status, join_failures),
	F(pt_trace_follow_status, reserved),
	/* the ioctl numbers carry the sizes: equal too */
	PT_TRACE_IOC_GET_CAPS, PT_TRACE_IOC_SET_CONFIG, PT_TRACE_IOC_GET_CONFIG,
	PT_TRACE_IOC_SET_CR3, PT_TRACE_IOC_SET_CYC, PT_TRACE_IOC_SET_ADDR,
	PT_TRACE_IOC_SET_BUFSIZE, PT_TRACE_IOC_START, PT_TRACE_IOC_STOP,
	PT_TRACE_IOC_GET_STATUS, PT_TRACE_IOC_FOLLOW, PT_TRACE_IOC_GET_FOLLOW,
};
