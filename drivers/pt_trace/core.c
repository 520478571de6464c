// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU tracing core (placeholder: per-CPU state comes and goes
 * with cpuhp; tracing is added by the capture-core work).
 */
#include <linux/cpuhotplug.h>
#include <linux/percpu.h>

#include "core.h"

static enum cpuhp_state pt_cpuhp_state;

static int pt_cpu_online(unsigned int cpu)
{
	return 0;
}

static int pt_cpu_offline(unsigned int cpu)
{
	return 0;
}

int pt_core_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pt_trace:online",
				pt_cpu_online, pt_cpu_offline);
	if (ret < 0)
		return ret;
	pt_cpuhp_state = ret;
	return 0;
}

void pt_core_exit(void)
{
	cpuhp_remove_state(pt_cpuhp_state);
}
