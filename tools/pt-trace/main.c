// SPDX-License-Identifier: GPL-2.0
/*
 * pt-trace: record, dump, decode and describe Intel Processor Trace data.
 * This file only dispatches to the subcommands, in the style of git/perf.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/pt_trace.h>

#include "ptdev.h"
#include "tool.h"

#ifndef PTT_VERSION
#define PTT_VERSION "unknown"
#endif

struct ptt_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
};

static const struct ptt_cmd ptt_cmds[] = {
	{ "record", cmd_record, "trace CPUs through /dev/ptN into a directory" },
	{ "dump",   cmd_dump,   "print the packets of a raw trace (ptdump format)" },
	{ "decode", cmd_decode, "reconstruct the instruction flow with ELF images" },
	{ "info",   cmd_info,   "show what Intel PT this machine (or model) offers" },
	{ "export", cmd_export, "write a recording as perf.data for perf script/report" },
	{ "contexts", cmd_contexts, "list a trace's host and guest contexts (VMCS, PIP.NR, CR3)" },
};

static void main_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: pt-trace <command> [options] [args]\n"
		"       pt-trace --version\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(ptt_cmds); i++)
		fprintf(f, "  %-8s %s\n", ptt_cmds[i].name, ptt_cmds[i].what);
	fprintf(f, "\n'pt-trace <command> --help' describes one command.\n"
		"examples:\n"
		"  pt-trace info\n"
		"  pt-trace record -o out -- ./workload      # it and its children, any CPU\n"
		"  pt-trace decode out/cpu*.pt | less        # perf script's columns\n"
		"  pt-trace decode --calls out/cpu*.pt       # the call tree per thread\n"
		"  pt-trace dump out/cpu0.pt | less          # the packets (ptdump's format)\n"
		"  pt-trace record --bts -o out -- ./workload  # + Branch Trace Store\n"
		"\n"
		"exit status: the command's (see its --help): 0 success, 1 bad usage,\n"
		"2 unreadable or unwritable file, 3 device missing/busy/refused,\n"
		"4 no Intel PT on this CPU, 5 internal error, 130 interrupted; 1 for\n"
		"an unknown command.  See Documentation/tools.rst.\n");
}

/* The driver's ABI version from the first /dev/ptN we may open, or -1. */
static int driver_abi(void)
{
	struct pt_trace_caps caps = { .size = sizeof(caps) };
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int fd, ret = -1;

	for (cpu = 0; cpu < ncpu && ret < 0; cpu++) {
		fd = ptdev_open((int)cpu, O_RDONLY);
		if (fd < 0)
			continue;
		if (!ptdev_get_caps(fd, &caps))
			ret = (int)caps.abi_version;
		close(fd);
	}
	return ret;
}

/* The tool, the ABI it was built for, and the driver when it is loaded. */
static void main_version(void)
{
	char ver[64], backend[64];
	int abi;

	printf("pt-trace %s (uapi ABI %d)\n", PTT_VERSION, PT_TRACE_ABI_VERSION);
	if (!*ptt_sysfs_line("/sys/module/pt_trace/version", ver, sizeof(ver))) {
		printf("driver: pt_trace not loaded\n");
		return;
	}
	printf("driver: pt_trace %s loaded, %s backend", ver,
	       *ptt_sysfs_line("/sys/kernel/pt_trace/backend", backend,
			   sizeof(backend)) ? backend : "no");
	abi = driver_abi();
	if (abi >= 0)
		printf(", ABI %d\n", abi);
	else
		printf(" (ABI unknown: no /dev/ptN this user may open)\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		main_usage(stderr);
		return PTT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		main_usage(stdout);
		return PTT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		main_version();
		return PTT_EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(ptt_cmds); i++) {
		if (!strcmp(argv[1], ptt_cmds[i].name)) {
			static char prog[32];

			snprintf(prog, sizeof(prog), "pt-trace %s",
				 ptt_cmds[i].name);
			ptt_prog = prog;
			return ptt_cmds[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "pt-trace: unknown command '%s'\n", argv[1]);
	main_usage(stderr);
	return PTT_EXIT_USAGE;
}
