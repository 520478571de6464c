// SPDX-License-Identifier: GPL-2.0
/*
 * record: the devices /dev/ptN, one per traced CPU (rec_device.h).
 * Opened and configured from the options first (RTIT_CTL bits, mode,
 * buffer, CYC); once the target is known, given the address ranges and
 * the process to follow (or its CR3), mapped, and started together.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpu_info.h"
#include "rec_device.h"
#include "rec_sideband.h"
#include "tool.h"
#include "vmx_info.h"

/*
 * MTC by default, as perf's intel_pt does (mtc, mtc_period=3): timing
 * between PSBs (decode's times, and which image a remapped library's
 * code decodes in: tools.rst) where the CPU has it and the period.
 */
static int rec_mtc(const struct rec_opts *o, const struct pt_trace_caps *caps)
{
	if (o->mtc >= 0)
		return o->mtc;
	return (caps->ctl_valid & PT_CTL_MTCEN) &&
	       (caps->mtc_periods & (1u << o->mtc_freq));
}

static uint64_t rec_ctl(const struct rec_opts *o,
			const struct pt_trace_caps *caps)
{
	uint64_t ctl = PT_CTL_BRANCHEN;

	if (o->user || !o->kernel)
		ctl |= PT_CTL_USER;
	if (o->kernel || !o->user)
		ctl |= PT_CTL_OS;
	if (o->tsc)
		ctl |= PT_CTL_TSCEN;
	if (rec_mtc(o, caps))
		ctl |= PT_CTL_MTCEN |
		       ((uint64_t)o->mtc_freq << PT_CTL_MTCFREQ_SHIFT);
	if (o->psb)
		ctl |= (uint64_t)o->psb_freq << PT_CTL_PSBFREQ_SHIFT;
	if (o->ptw)
		ctl |= PT_CTL_PTWEN | PT_CTL_FUPONPTW;
	if (o->pwr)
		ctl |= PT_CTL_PWREVTEN;
	if (o->disretc)
		ctl |= PT_CTL_DISRETC;
	return ctl;
}

/* Configure one CPU with every ioctl the options ask for. */
static int rec_setup_cpu(struct rec_cpu *rc, const struct rec_opts *o,
			 const struct pt_trace_caps *caps)
{
	struct pt_trace_config cfg;
	uint64_t want = rec_ctl(o, caps);
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.output = o->output;
	cfg.ctl = want & (caps->ctl_valid | PT_CTL_BRANCHEN);
	if (want & ~cfg.ctl) {
		ptt_err("cpu %d: this CPU cannot trace with RTIT_CTL bits %#llx: leave out the options that need them (see 'pt-trace info')",
			rc->cpu, (unsigned long long)(want & ~cfg.ctl));
		return -EINVAL;
	}
	if (o->mode == PT_MODE_STREAM && !(caps->flags & PT_CAP_TOPA)) {
		ptt_err("cpu %d: stream mode needs ToPA output, which this CPU lacks: use -m flight",
			rc->cpu);
		return -EOPNOTSUPP;
	}
	cfg.buffer_size = o->bufsize;
	cfg.mode = o->mode;
	if (o->mode == PT_MODE_STREAM && o->watermark) {
		if (o->watermark > UINT32_MAX) {
			ptt_err("--watermark: at most 4G-1 bytes");
			return -EINVAL;
		}
		cfg.watermark = (uint32_t)o->watermark;
	}
	err = ptdev_set_config(rc->fd, &cfg);
	if (err) {
		ptt_err("cpu %d: SET_CONFIG: %s", rc->cpu,
			ptdev_why(err, rc->cpu, PTDEV_CONFIG));
		return err;
	}
	if (o->cyc) {
		err = ptdev_set_cyc(rc->fd, 1, o->cyc_thresh);
		if (err) {
			ptt_err("cpu %d: SET_CYC (--cyc=%u): %s", rc->cpu,
				o->cyc_thresh,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG));
			return err;
		}
	}
	/* What the driver will program (BranchEn forced on BDM106, ...). */
	if (ptdev_get_config(rc->fd, &rc->cfg))
		rc->cfg = cfg;
	return 0;
}

/*
 * Make the driver follow @o->target's tasks on @rc's CPU (the follow ABI,
 * Documentation/abi.rst).  -ENOTTY from a driver without it.
 */
static int rec_follow(struct rec_cpu *rc, const struct rec_opts *o)
{
	struct pt_trace_follow f = { .size = sizeof(f), .pid = o->target };

	/*
	 * Its threads and, as perf record's inherit, what it forks; with
	 * --no-inherit its threads only (the driver always follows every
	 * thread of a followed process: a process is what CMD names).
	 */
	if (!o->no_inherit)
		f.flags = PT_FOLLOW_INHERIT;
	return ioctl(rc->fd, PT_TRACE_IOC_FOLLOW, &f) ? -errno : 0;
}

/*
 * What to trace on one CPU, once the target is known (a command stopped
 * at its exec, or -p's process): the address ranges (--filter,
 * --stop-at) and the process, followed (the driver's follow ABI) or,
 * with a driver without it, filtered by its CR3.
 */
static int rec_target_cpu(struct rec_cpu *rc, struct rec_opts *o,
			  const struct pt_trace_caps *caps)
{
	int err, i;

	for (i = 0; i < o->nranges; i++) {
		err = ptdev_set_addr(rc->fd, (uint32_t)i, o->range[i].cfg,
				     o->range[i].a, o->range[i].b);
		if (err) {
			ptt_err("cpu %d: SET_ADDR %d: %s (this CPU has %u address ranges)",
				rc->cpu, i,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG),
				caps->num_addr_ranges);
			return err;
		}
	}
	if (o->target > 0 && !o->all && !o->have_cr3 && !o->by_cr3) {
		err = rec_follow(rc, o);
		if (!err)
			o->following = 1;
		if (err && err != -ENOTTY) {
			ptt_err("cpu %d: FOLLOW %d: %s", rc->cpu, (int)o->target,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG));
			return err;
		}
	}
	/* Followed: no CR3 filter, but mapped as below all the same. */
	if (!o->following && ((o->target > 0 && !o->all) || o->have_cr3)) {
		struct pt_trace_cr3 c = { 0 };

		c.how = o->have_cr3 ? PT_CR3_BY_VALUE : PT_CR3_BY_PID;
		c.cr3 = o->cr3;
		c.pid = o->target;
		err = ptdev_set_cr3(rc->fd, &c);
		if (err == -ESRCH) {
			ptt_err("cpu %d: SET_CR3: no process %d", rc->cpu,
				(int)o->target);
			return err;
		}
		if (err) {
			ptt_err("cpu %d: SET_CR3: %s", rc->cpu,
				ptdev_why(err, rc->cpu, PTDEV_CONFIG));
			return err;
		}
	}
	/* Mapped last: without privilege only a process's filter may map. */
	err = ptdev_mmap(rc->fd, &rc->map, o->mode == PT_MODE_STREAM);
	if (err) {
		ptt_err("cpu %d: mmap: %s", rc->cpu,
			ptdev_why(err, rc->cpu, PTDEV_MMAP));
		return err;
	}
	return 0;
}

int rec_open_all(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		 struct pt_trace_caps *caps)
{
	int i, err;

	for (i = 0; i < n; i++) {
		rcs[i].fd = ptdev_open(rcs[i].cpu, O_RDWR);
		if (rcs[i].fd < 0) {
			err = rcs[i].fd;
			if ((err == -ENOENT || err == -ENODEV) &&
			    !cpu_has_intel_pt() &&
			    access("/sys/kernel/pt_trace", F_OK)) {
				ptt_err("this CPU has no Intel PT: CPUID.(EAX=07H):EBX[25]=0, so /dev/pt%d cannot exist; pt_trace needs Intel PT (Broadwell or later; in a VM, passed through by the hypervisor)",
					rcs[i].cpu);
				return PTT_EXIT_NO_PT;
			}
			ptt_err("%s", ptdev_why(err, rcs[i].cpu, PTDEV_OPEN));
			return PTT_EXIT_DEVICE;
		}
		err = ptdev_get_caps(rcs[i].fd, caps);
		if (err) {
			ptt_err("/dev/pt%d: GET_CAPS: %s", rcs[i].cpu,
				ptdev_why(err, rcs[i].cpu, PTDEV_OTHER));
			return PTT_EXIT_DEVICE;
		}
		if (rec_setup_cpu(&rcs[i], o, caps))
			return PTT_EXIT_DEVICE;
	}
	return 0;
}

/*
 * Program the target on every CPU, write the sideband's header (the
 * buffers are mapped now), and start them all.
 */
int rec_start_all(struct rec_cpu *rcs, int n, struct rec_opts *o,
		  const struct pt_trace_caps *caps, FILE *sb)
{
	int i, err;

	for (i = 0; i < n; i++)
		if (rec_target_cpu(&rcs[i], o, caps))
			return PTT_EXIT_DEVICE;
	rec_write_header(sb, o, caps, &rcs[0]);
	for (i = 0; i < o->nranges; i++)
		if (o->range[i].cfg == PT_ADDR_CFG_STOP)
			o->stop_armed = 1;
	if (o->target > 0 && !o->all && !o->following && !o->have_cr3 &&
	    !o->by_cr3)
		ptt_warn("this pt_trace cannot follow a process across CPUs (PT_TRACE_IOC_FOLLOW: ENOTTY, a driver from before it): tracing process %d by its CR3 on every CPU, without the children it forks",
			 (int)o->target);
	vmx_info_record_warn();
	for (i = 0; i < n; i++)
		vmx_info_record_cpu_warn(rcs[i].fd, rcs[i].cpu, rcs[i].cfg.ctl);
	rec_sample_tsc(rcs, n, 0);
	for (i = 0; i < n; i++) {
		err = ptdev_start(rcs[i].fd);
		if (err) {
			const char *vmx = vmx_info_start_why(rcs[i].fd,
							     rcs[i].cpu, err);

			ptt_err("cpu %d: START: %s", rcs[i].cpu, vmx ? vmx :
				ptdev_why(err, rcs[i].cpu, PTDEV_START));
			while (--i >= 0)
				ptdev_stop(rcs[i].fd);
			return PTT_EXIT_DEVICE;
		}
	}
	return 0;
}
