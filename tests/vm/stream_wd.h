/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's per-CPU streaming counters in debugfs
 * (/sys/kernel/debug/pt_trace/stream: a header line naming the columns,
 * then one line per CPU), read by column name so that new columns do not
 * break the tests.  Used for the watchdog count, which is not in the
 * ABI: the stream tests check it stays 0, stream_watchdog that it works.
 */
#ifndef STREAM_WD_H
#define STREAM_WD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_DEBUGFS_STREAM "/sys/kernel/debug/pt_trace/stream"

/* Column @name of CPU @cpu, or -1 when the file or the column is missing. */
static inline long long st_stream_counter(int cpu, const char *name)
{
	char line[1024], *tok, *save;
	long long val = -1;
	int col = -1, i;
	FILE *f = fopen(ST_DEBUGFS_STREAM, "r");

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		for (i = 0, tok = strtok_r(line, " \t\n", &save); tok;
		     i++, tok = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(tok, name))
				col = i;
	}
	while (col >= 0 && fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \t\n", &save);
		if (!tok || atoi(tok) != cpu)
			continue;
		for (i = 1; i <= col && tok; i++)
			tok = strtok_r(NULL, " \t\n", &save);
		if (tok)
			val = strtoll(tok, NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

/* The watchdog count of @cpu's last session: printed, and it must be 0. */
#define ST_CHECK_NO_WATCHDOG(cpu)					\
	do {								\
		int cpu_ = (cpu);					\
		long long wd_ = st_stream_counter(cpu_, "watchdog");	\
									\
		printf("PTT-INFO watchdog %lld (cpu %d)\n", wd_, cpu_);	\
		CHECK(wd_ == 0, "the watchdog serviced cpu %d %lld times", \
		      cpu_, wd_);					\
	} while (0)

#endif /* STREAM_WD_H */
