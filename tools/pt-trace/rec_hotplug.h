/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record (rec_hotplug.c): the driver stops the trace of a CPU that goes
 * offline (and every trace at a suspend) and leaves it stopped
 * (Documentation/abi.rst, "CPU hotplug"); the recorder reads what it
 * has, STARTs it again when it can and writes a loss record for the gap.
 */
#ifndef PT_TRACE_REC_HOTPLUG_H
#define PT_TRACE_REC_HOTPLUG_H

#include "rec_ctx.h"

/* Look at @rc once (every 100 ms or sooner): 0, or -errno (said). */
int rec_hotplug(struct rec_cpu *rc, const struct rec_opts *o,
		struct pcol *perf);

#endif /* PT_TRACE_REC_HOTPLUG_H */
