// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace info: what Intel PT the driver offers, from the device
 * (PT_TRACE_IOC_GET_CAPS) or, without access to it, from sysfs; and why
 * there is nothing when there is nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu_errata.h"
#include "cpu_info.h"
#include "ptdev.h"
#include "tool.h"
#include "bts_info.h"
#include "vmx_info.h"

#define SYSFS_CAPS	"/sys/kernel/pt_trace/caps"

static void info_usage(FILE *f)
{
	fputs("usage: pt-trace info [options]\n"
	      "\n"
	      "Show the Intel PT capabilities the pt_trace driver reports for a CPU\n"
	      "(from /dev/ptN, else from " SYSFS_CAPS "), its VMX\n"
	      "situation and whether Branch Trace Store (/dev/btsN) is there.\n"
	      "\n"
	      "options:\n"
	      "  -C, --cpu N    ask /dev/ptN (default: the first that opens)\n"
	      "  -h, --help     this text\n"
	      "\n"
	      "examples:\n"
	      "  pt-trace info\n"
	      "  pt-trace info -C 1\n"
	      "\n"
	      "exit status: 0 shown, 1 bad usage, 3 driver missing or device refused,\n"
	      "4 this CPU has no Intel PT.\n", f);
}

static const struct {
	uint32_t flag;
	const char *name;
} info_flags[] = {
	{ PT_CAP_CR3_FILTER, "cr3 filtering" },
	{ PT_CAP_PSB_CYC, "psb period, cyc (cycle-accurate mode)" },
	{ PT_CAP_IP_FILTER, "ip filtering / trace stop" },
	{ PT_CAP_MTC, "mtc timing packets" },
	{ PT_CAP_PTWRITE, "ptwrite" },
	{ PT_CAP_POWER_EVENTS, "power event trace" },
	{ PT_CAP_PSB_PMI_PRESERVE, "psb and pmi preservation" },
	{ PT_CAP_EVENT_TRACE, "event trace" },
	{ PT_CAP_TNT_DISABLE, "tnt disable" },
	{ PT_CAP_TOPA, "topa output" },
	{ PT_CAP_TOPA_MULTI, "topa with multiple entries" },
	{ PT_CAP_SINGLE_RANGE, "single-range output" },
	{ PT_CAP_TRACE_TRANSPORT, "trace transport subsystem output" },
	{ PT_CAP_LIP, "ip payloads are linear addresses" },
};

static void info_bitmap(const char *name, uint32_t map)
{
	int i;

	printf("  %-22s", name);
	for (i = 0; i < 32; i++)
		if (map & (1U << i))
			printf(" %d", i);
	printf("  (bitmap %#x)\n", map);
}

/*
 * The PT errata dump and decode work around for this CPU (cpu_errata.c,
 * else libipt's table): a decoder that does not know them misreads its
 * traces.
 */
static void info_errata(const struct pt_trace_caps *c)
{
	struct pt_cpu cpu = {
		.vendor = pcv_intel,
		.family = (uint16_t)c->family,
		.model = (uint8_t)c->model,
		.stepping = (uint8_t)c->stepping,
	};
	struct pt_errata e;
	char names[128];

	printf("  %-22s", "decoder errata");
	if (ptt_cpu_errata(&e, &cpu) < 0) {
		printf(" unknown to pt-trace and libipt: none worked around\n");
		return;
	}
	printf(" %s\n", ptt_errata_names(&e, names, sizeof(names)) ? names : "none");
}

static void info_print_caps(const struct pt_trace_caps *c, int cpu)
{
	size_t i;

	printf("/dev/pt%d: Intel PT, backend %s, abi %u\n", cpu,
	       c->backend == PT_BACKEND_MODEL ? "model (software)" : "hw",
	       c->abi_version);
	printf("  cpu                    family %u model %#x stepping %u\n",
	       c->family, c->model, c->stepping);
	info_errata(c);
	for (i = 0; i < ARRAY_SIZE(info_flags); i++)
		printf("  %-38s %s\n", info_flags[i].name,
		       c->flags & info_flags[i].flag ? "yes" : "no");
	printf("  %-22s %u\n", "address ranges", c->num_addr_ranges);
	info_bitmap("mtc periods", c->mtc_periods);
	info_bitmap("cyc thresholds", c->cyc_thresholds);
	info_bitmap("psb periods", c->psb_periods);
	printf("  %-22s %#llx\n", "settable RTIT_CTL bits",
	       (unsigned long long)c->ctl_valid);
	printf("  %-22s %llu .. %llu KiB per cpu\n",
	       "buffer size", (unsigned long long)c->min_buffer_size >> 10,
	       (unsigned long long)c->max_buffer_size >> 10);
	if (c->quirks & PT_QUIRK_BRANCHEN_ALWAYS_ON)
		printf("  quirk: BranchEn kept on (BDM106)\n");
	if (c->quirks & PT_QUIRK_SINGLE_RANGE_4K)
		printf("  quirk: single-range output limited (TGL052)\n");
	printf("  cpuid 0x14.0  %08x %08x %08x %08x\n", c->cpuid_14[0][0],
	       c->cpuid_14[0][1], c->cpuid_14[0][2], c->cpuid_14[0][3]);
	printf("  cpuid 0x14.1  %08x %08x %08x %08x\n", c->cpuid_14[1][0],
	       c->cpuid_14[1][1], c->cpuid_14[1][2], c->cpuid_14[1][3]);
}

/*
 * The device's CPU under VMX now (GET_STATUS's vmx, since status size
 * 120): whether PT may run in VMX operation, so that a hypervisor can
 * trace host-only or guest-only; whether the CPU is in VMX operation;
 * whether guests run there with PT on in VMX non-root.
 */
static void info_print_vmx_status(const struct pt_trace_status *st, int cpu)
{
	char name[32];
	uint32_t v = st->vmx;

	snprintf(name, sizeof(name), "vmx on cpu %d", cpu);
	if (st->size < PT_TRACE_STATUS_SIZE_VER1) {
		printf("  %-22s not reported (a driver older than status size %d)\n",
		       name, PT_TRACE_STATUS_SIZE_VER1);
		return;
	}
	if (!(v & PT_STATUS_VMX_PRESENT)) {
		printf("  %-22s no VMX\n", name);
		return;
	}
	printf("  %-22s host-only/guest-only tracing %s, VMX operation %s, guests traced now %s\n",
	       name,
	       v & PT_STATUS_VMX_TRACE_OK ? "possible (IA32_VMX_MISC[14]=1)" :
					    "impossible (IA32_VMX_MISC[14]=0)",
	       v & PT_STATUS_VMX_ON ? "on" : "off",
	       v & PT_STATUS_VMX_GUESTS_TRACED ? "yes" :
	       v & PT_STATUS_VMX_GUESTS_UNKNOWN ? "unknown (the hypervisor's to say)" :
						  "no");
}

static int info_sysfs(void)
{
	struct dirent *de;
	DIR *d = opendir(SYSFS_CAPS);
	char backend[32] = "";
	FILE *f;

	if (!d)
		return -errno;
	f = fopen("/sys/kernel/pt_trace/backend", "re");
	if (f) {
		if (!fgets(backend, sizeof(backend), f))
			backend[0] = 0;
		backend[strcspn(backend, "\n")] = 0;
		fclose(f);
	}
	printf("pt_trace (sysfs), backend %s\n", backend[0] ? backend : "?");
	while ((de = readdir(d))) {
		char path[512], val[64] = "";

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYSFS_CAPS "/%s", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(val, sizeof(val), f))
			val[0] = 0;
		fclose(f);
		val[strcspn(val, "\n")] = 0;
		printf("  %-24s %s\n", de->d_name, val);
	}
	closedir(d);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pt_trace_status st;
	struct pt_trace_caps caps;
	int c, cpu = -1, first_err = 0, i, n;
	uint32_t v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (ptt_parse_u32(optarg, &v) || v > 4095) {
				ptt_err("--cpu wants a CPU number");
				return PTT_EXIT_USAGE;
			}
			cpu = (int)v;
			break;
		case 'h':
			info_usage(stdout);
			return PTT_EXIT_OK;
		default:
			info_usage(stderr);
			return PTT_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		ptt_err("no arguments expected (try --help)");
		return PTT_EXIT_USAGE;
	}
	n = ptdev_nr_cpus();
	for (i = cpu >= 0 ? cpu : 0; i < (cpu >= 0 ? cpu + 1 : n); i++) {
		int fd = ptdev_open(i, O_RDONLY), err;

		if (fd < 0) {
			if (!first_err)
				first_err = fd;
			continue;
		}
		err = ptdev_get_caps(fd, &caps);
		if (!err)
			err = ptdev_get_status(fd, &st);
		close(fd);
		if (err) {
			ptt_err("/dev/pt%d: GET_CAPS/GET_STATUS: %s", i,
				ptdev_why(err, i, PTDEV_OTHER));
			return PTT_EXIT_DEVICE;
		}
		info_print_caps(&caps, i);
		printf("  devices                /dev/pt0 .. /dev/pt%d\n",
		       n - 1);
		info_print_vmx_status(&st, i);
		vmx_info_print();
		bts_info_print();
		return PTT_EXIT_OK;
	}
	/* No device we may open: sysfs is world-readable. */
	if (!info_sysfs()) {
		vmx_info_print();
		bts_info_print();
		if (first_err)
			ptt_warn("%s", ptdev_why(first_err,
						 cpu >= 0 ? cpu : 0,
						 PTDEV_OPEN));
		return PTT_EXIT_OK;
	}
	if (!cpu_has_intel_pt()) {
		ptt_err("this CPU has no Intel PT: CPUID.(EAX=07H):EBX[25]=0; pt_trace needs Intel PT (Broadwell or later; in a VM, passed through by the hypervisor)");
		return PTT_EXIT_NO_PT;
	}
	ptt_err("%s", ptdev_why(first_err ? first_err : -ENOENT,
				cpu >= 0 ? cpu : 0, PTDEV_OPEN));
	return PTT_EXIT_DEVICE;
}
