/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record, following (rec_follow.c): what the driver could not follow.  A
 * process forked by a followed one that the driver could not add to a
 * device's followed set (its table full, module parameter
 * follow_max_procs, or no memory in the fork path) runs untraced on that
 * CPU; GET_FOLLOW counts it in join_failures.  The recorder reads every
 * device's count at the end, says it on stderr with what to do, and puts
 * it in sideband.txt (follow.join_failures) for decode to warn.
 */
#ifndef PT_TRACE_REC_FOLLOW_H
#define PT_TRACE_REC_FOLLOW_H

#include <stdint.h>
#include <stdio.h>

struct rec_follow_sum {
	uint64_t joined;	/* the most processes a device followed */
	uint64_t failures;	/* the most join failures of a device */
	int cpus;		/* devices asked */
	int failing;		/* devices with join failures */
};

/* Add @cpu's device @fd (following; stopped) to @s, and its sideband. */
void rec_follow_cpu(struct rec_follow_sum *s, int fd, int cpu, FILE *sb);
/* The recording's sideband keys and, on failures, the warning. */
void rec_follow_report(const struct rec_follow_sum *s, FILE *sb);

#endif /* PT_TRACE_REC_FOLLOW_H */
