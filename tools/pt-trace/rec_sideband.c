// SPDX-License-Identifier: GPL-2.0
/*
 * record: what sideband.txt says about the recording besides the
 * processes' maps (rec_sideband.h): the header (kernel, CPU and its
 * capabilities, frequencies, the trace configuration and command), the
 * TSC samples and rate, each CPU's counts at the end, and where perf's
 * side-band records went (sideband.perf), opened here.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "compiler.h"
#include "cpu_info.h"
#include "rec_sideband.h"
#include "sideband.h"
#include "tool.h"
#include "vmx_info.h"

/*
 * The nominal frequency: the max non-turbo ratio of MSR_PLATFORM_INFO is
 * what libipt wants (nom_freq); when the MSR cannot be read the sideband
 * says why, and nominal_mhz still comes from CPUID 0x16 or cpufreq.
 */
static void rec_write_freq(FILE *sb, int cpu)
{
	uint32_t ratio = 0, mhz;
	int err = cpu_max_nonturbo_ratio(cpu, &ratio);

	if (!err && ratio) {
		ptsb_put(sb, "nom_freq", "%u", ratio);
		ptsb_put(sb, "nom_freq.source", "MSR_PLATFORM_INFO[15:8] of cpu %d",
			 cpu);
		ptsb_put(sb, "nominal_mhz", "%u", ratio * 100);
		ptsb_put(sb, "nominal_mhz.source", "nom_freq x 100 MHz");
		return;
	}
	if (!err)
		ptsb_put(sb, "nom_freq.source",
			 "unavailable: MSR_PLATFORM_INFO[15:8] of cpu %d reads 0",
			 cpu);
	else
		ptsb_put(sb, "nom_freq.source",
			 "unavailable: /dev/cpu/%d/msr: %s%s", cpu,
			 strerror(-err),
			 err == -ENOENT ? " (modprobe msr, as root)" : "");
	mhz = cpu_cpuid_0x16_base_mhz();
	if (mhz) {
		ptsb_put(sb, "nominal_mhz", "%u", mhz);
		ptsb_put(sb, "nominal_mhz.source", "CPUID.16H:EAX");
	} else if (!cpu_cpufreq_base_mhz(cpu, &mhz)) {
		ptsb_put(sb, "nominal_mhz", "%u", mhz);
		ptsb_put(sb, "nominal_mhz.source", "cpufreq base_frequency");
	} else {
		ptsb_put(sb, "nominal_mhz.source",
			 "unavailable: no MSR_PLATFORM_INFO, CPUID.16H or cpufreq base_frequency");
	}
}

void rec_write_header(FILE *sb, const struct rec_opts *o,
		      const struct pt_trace_caps *caps,
		      const struct rec_cpu *rc0)
{
	uint64_t ctl = rc0->cfg.ctl;
	uint32_t eax, ebx, ecx;
	int i;
	struct utsname u;

	ptsb_put(sb, "tool", "pt-trace record");
	ptsb_put(sb, "time", "%lld", (long long)time(NULL));
	if (!uname(&u)) {
		ptsb_put(sb, "kernel", "%s %s %s", u.sysname, u.release,
			 u.machine);
		ptsb_put(sb, "kernel.version", "%s", u.version);
	}
	ptsb_put(sb, "backend", "%s",
		 caps->backend == PT_BACKEND_MODEL ? "model" : "hw");
	/* The traced CPU, as the driver reports it (the model's profile). */
	ptsb_put(sb, "cpu.vendor", "intel");
	ptsb_put(sb, "cpu.family", "%u", caps->family);
	ptsb_put(sb, "cpu.model", "%u", caps->model);
	ptsb_put(sb, "cpu.stepping", "%u", caps->stepping);
	ptsb_put(sb, "caps.flags", "0x%x", caps->flags);
	ptsb_put(sb, "caps.quirks", "0x%x", caps->quirks);
	ptsb_put(sb, "caps.num_addr_ranges", "%u", caps->num_addr_ranges);
	ptsb_put(sb, "caps.mtc_periods", "0x%x", caps->mtc_periods);
	ptsb_put(sb, "caps.cyc_thresholds", "0x%x", caps->cyc_thresholds);
	ptsb_put(sb, "caps.psb_periods", "0x%x", caps->psb_periods);
	ptsb_put(sb, "caps.ctl_valid", "0x%llx",
		 (unsigned long long)caps->ctl_valid);
	ptsb_put(sb, "caps.cpuid14.0", "0x%x 0x%x 0x%x 0x%x",
		 caps->cpuid_14[0][0], caps->cpuid_14[0][1],
		 caps->cpuid_14[0][2], caps->cpuid_14[0][3]);
	ptsb_put(sb, "caps.cpuid14.1", "0x%x 0x%x 0x%x 0x%x",
		 caps->cpuid_14[1][0], caps->cpuid_14[1][1],
		 caps->cpuid_14[1][2], caps->cpuid_14[1][3]);
	if (caps->backend == PT_BACKEND_MODEL)
		fputs("# backend=model: nom_freq, nominal_mhz, cpuid16.* and tsc.*\n"
		      "# describe the CPU pt-trace ran on, not the modelled one\n"
		      "# (cpu.*, caps.*, cpuid15.*)\n",
		      sb);
	/*
	 * CPUID 0x15 as the driver sees it (a driver with caps size >= 128;
	 * on the model, the profile's values, which its MTC packets use),
	 * else as this program sees it.
	 */
	if (caps->size >= PT_TRACE_CAPS_SIZE_VER1 && caps->cpuid_15[0] &&
	    caps->cpuid_15[1]) {
		eax = caps->cpuid_15[0];
		ebx = caps->cpuid_15[1];
		ecx = caps->cpuid_15[2];
		ptsb_put(sb, "cpuid15.source", "driver");
	} else {
		cpu_cpuid_0x15(&eax, &ebx, &ecx);
		ptsb_put(sb, "cpuid15.source", "cpuid");
	}
	/* VMX, kvm_intel's pt_mode, the vCPUs' TSC offset/ratio. */
	vmx_info_sideband(sb);
	ptsb_put(sb, "cpuid15.eax", "%u", eax);
	ptsb_put(sb, "cpuid15.ebx", "%u", ebx);
	ptsb_put(sb, "cpuid15.ecx", "%u", ecx);
	if (eax && ebx && ecx)
		ptsb_put(sb, "tsc_hz.cpuid15", "%llu",
			 (unsigned long long)ecx * ebx / eax);
	/* Where 0x15 is absent or has no crystal: base and bus clock. */
	cpu_cpuid_0x16(&eax, &ebx, &ecx);
	ptsb_put(sb, "cpuid16.eax", "%u", eax);
	ptsb_put(sb, "cpuid16.ebx", "%u", ebx);
	ptsb_put(sb, "cpuid16.ecx", "%u", ecx);
	rec_write_freq(sb, rc0->cpu);
	ptsb_put(sb, "ctl", "0x%llx", (unsigned long long)ctl);
	/*
	 * --filter A-B and --stop-at A-B as a SYMBOL's are written, with no
	 * symbol or file ("-"): decode gives libipt every range the trace
	 * was filtered by (erratum SKL014).
	 */
	for (i = 0; i < o->nranges; i++)
		if (!o->range[i].sym)
			ptsb_put(sb, o->range[i].cfg == PT_ADDR_CFG_STOP ?
				 "stop_at" : "filter", "- 0x%llx 0x%llx -",
				 (unsigned long long)o->range[i].a,
				 (unsigned long long)o->range[i].b);
	if (ctl & PT_CTL_MTCEN)
		ptsb_put(sb, "mtc_freq", "%llu",
			 (unsigned long long)((ctl & PT_CTL_MTCFREQ_MASK) >>
					      PT_CTL_MTCFREQ_SHIFT));
	else
		ptsb_put(sb, "mtc_freq", "off");
	if (o->cyc)
		ptsb_put(sb, "cyc_thresh", "%u", o->cyc_thresh);
	ptsb_put(sb, "psb_freq", "%llu",
		 (unsigned long long)((ctl & PT_CTL_PSBFREQ_MASK) >>
				      PT_CTL_PSBFREQ_SHIFT));
	ptsb_put(sb, "mode", "%s", o->mode == PT_MODE_STREAM ? "stream" :
		 "flight");
	ptsb_put(sb, "buffer_size", "%zu", rc0->map.data_len);
	if (o->mode == PT_MODE_STREAM)
		ptsb_put(sb, "watermark", "%u",
			 __atomic_load_n(&rc0->map.ctrl->watermark,
					 __ATOMIC_RELAXED));
	if (o->cmd) {
		char **a;

		fputs("cmd=", sb);
		for (a = o->cmd; *a; a++)
			fprintf(sb, "%s%s", a == o->cmd ? "" : " ", *a);
		fputc('\n', sb);
	}
}

/* TSC against CLOCK_MONOTONIC on every traced CPU (when: 0 start, 1 end). */
void rec_sample_tsc(struct rec_cpu *rcs, int n, int when)
{
	cpu_set_t saved;
	int i, have = !sched_getaffinity(0, sizeof(saved), &saved);

	for (i = 0; i < n; i++) {
		struct rec_tsc *t = &rcs[i].tsc[when];

		t->ok = !cpu_tsc_sample(rcs[i].cpu, &t->tsc, &t->ns,
					&t->err_ns);
	}
	if (have)
		sched_setaffinity(0, sizeof(saved), &saved);
}

/*
 * The TSC rate over the recording (first CPU) and each CPU's TSC offset
 * from the first one's, from the samples of rec_sample_tsc().
 */
void rec_write_tsc(FILE *sb, const struct rec_cpu *rcs, int n)
{
	const struct rec_tsc *s0 = &rcs[0].tsc[0], *s1 = &rcs[0].tsc[1];
	double hz = 0;
	uint64_t adj;
	int i, w;

	for (i = 0; i < n; i++)
		for (w = 0; w < 2; w++)
			if (rcs[i].tsc[w].ok)
				ptsb_put(sb, w ? "tsc.end" : "tsc.start",
					 "%d %llu %llu %llu", rcs[i].cpu,
					 (unsigned long long)rcs[i].tsc[w].ns,
					 (unsigned long long)rcs[i].tsc[w].tsc,
					 (unsigned long long)rcs[i].tsc[w].err_ns);
	/* Under 10 ms the sampling error would dominate the rate. */
	if (s0->ok && s1->ok && s1->ns > s0->ns + 10000000ULL &&
	    s1->tsc > s0->tsc) {
		hz = (double)(s1->tsc - s0->tsc) * 1e9 /
		     (double)(s1->ns - s0->ns);
		ptsb_put(sb, "tsc_hz", "%.0f", hz);
		ptsb_put(sb, "tsc_hz.source",
			 "measured on cpu %d over %.3f s against CLOCK_MONOTONIC",
			 rcs[0].cpu, (double)(s1->ns - s0->ns) / 1e9);
	}
	for (i = 0; i < n; i++) {
		const struct rec_tsc *t = &rcs[i].tsc[0];
		double expect;

		if (hz > 0 && s0->ok && t->ok) {
			expect = (double)s0->tsc +
				 ((double)t->ns - (double)s0->ns) * hz / 1e9;
			ptsb_put(sb, "tsc_offset", "%d %.0f %llu", rcs[i].cpu,
				 (double)t->tsc - expect,
				 (unsigned long long)((t->err_ns + s0->err_ns) *
						      hz / 1e9 + 1));
		}
		if (!cpu_read_msr(rcs[i].cpu, MSR_IA32_TSC_ADJUST, &adj))
			ptsb_put(sb, "tsc_adjust", "%d %lld", rcs[i].cpu,
				 (long long)adj);
	}
}

void rec_cpu_sideband(FILE *sb, const struct rec_cpu *rc, int stream)
{
	const struct {
		const char *key;
		__u64 v;
	} counts[] = {
		{ "cpu.loss_lapped", rc->loss.lapped },
		{ "cpu.lost_bytes", rc->loss.known_bytes },
		{ "cpu.loss_unknown", rc->loss.unknown },
		{ "cpu.lost_ns", rc->loss.lost_ns },
		{ "cpu.driver_loss_records", rc->status.loss_records },
		{ "cpu.driver_lost_ns", rc->status.lost_ns },
		{ "cpu.driver_lost_bytes", rc->status.lost_bytes },
		{ "cpu.pmis", rc->status.pmis },
		{ "cpu.stops", rc->status.stops },
		{ "cpu.errors", rc->status.errors },
	};
	int c = rc->cpu;
	size_t i;

	ptsb_put(sb, "cpu", "%d", c);
	ptsb_put(sb, "cpu.file", "%d cpu%d.pt", c, c);
	ptsb_put(sb, "cpu.ctl", "%d 0x%llx", c, (unsigned long long)rc->cfg.ctl);
	ptsb_put(sb, "cpu.bytes", "%d %llu", c,
		 (unsigned long long)rc->written);
	ptsb_put(sb, "cpu.head", "%d %llu", c,
		 (unsigned long long)rc->status.head);
	/* any run's: a run before a restart lost its older data too */
	ptsb_put(sb, "cpu.wrapped", "%d %d", c, rec_wrapped(rc));
	ptsb_put(sb, "cpu.rtit_status", "%d 0x%llx", c,
		 (unsigned long long)rc->status.rtit_status);
	/* the output scheme the driver used (AUTO's choice, or asked) */
	ptsb_put(sb, "cpu.output", "%d %s", c,
		 rc->status.output == PT_OUTPUT_SINGLE ? "single" :
		 rc->status.output == PT_OUTPUT_TOPA ? "topa" : "unknown");
	if (rc->restarts || rc->down)
		ptsb_put(sb, "cpu.restarts", "%d %u %s", c, rc->restarts,
			 rc->down ? "stopped" : "running");
	if (!stream && !rc->lossf)
		return;
	ptsb_put(sb, "cpu.loss_file", "%d cpu%d%s", c, c, PTL_SUFFIX);
	ptsb_put(sb, "cpu.loss_records", "%d %llu", c,
		 (unsigned long long)rc->loss.records);
	if (!stream)
		return;
	/* streaming: the recorder's loss sums, then the driver's counters */
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		ptsb_put(sb, counts[i].key, "%d %llu", c,
			 (unsigned long long)counts[i].v);
}

/*
 * perf's side-band records of what is traced: the target's tasks (and
 * its descendants), or every task.  Without them the recording still
 * works; the sideband says why they are missing.
 */
void rec_perf_open(struct rec_run *run, const int *cpus, int n,
		   const struct rec_opts *o)
{
	pid_t pid = o->all || o->target <= 0 ? -1 : o->target;
	char why[512];

	if (pcol_open(&run->perf, cpus, n, pid, o->outdir, why, sizeof(why))) {
		ptt_warn("no perf sideband (mmap/comm/fork/switch records): %s",
			 why);
		ptsb_put(run->sb, "perf", "unavailable: %s", why);
		return;
	}
	ptsb_put(run->sb, "perf", "%s", PTPSB_FILE_NAME);
	ptsb_put(run->sb, "perf.text", "%s", PTPSB_TEXT_NAME);
	if (run->perf.hdr.clock != PTPSB_CLOCK_PERF)
		ptsb_put(run->sb, "perf.clock",
			 "monotonic (no cap_user_time_zero: TSC only through tsc.start/tsc.end)");
	else
		ptsb_put(run->sb, "perf.clock",
			 "perf (time_zero %llu, time_mult %u, time_shift %u)",
			 (unsigned long long)run->perf.hdr.time_zero,
			 run->perf.hdr.time_mult, run->perf.hdr.time_shift);
	if (o->pid > 0)
		pcol_synth_maps(&run->perf, o->pid);
}
