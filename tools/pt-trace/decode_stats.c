// SPDX-License-Identifier: GPL-2.0
/*
 * decode's statistics: a trace's counts added to the total, the "# ..."
 * summary line, and the exit status and message at the end of the
 * listing (decode_stats.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decode_stats.h"
#include "tool.h"

void decode_sum(struct decode_stats *sum, const struct decode_stats *s)
{
	sum->insns += s->insns;
	sum->blocks += s->blocks;
	sum->shown += s->shown;
	sum->syncs += s->syncs;
	sum->bytes += s->bytes;
	sum->errors += s->errors;
	sum->nomap += s->nomap;
	sum->events += s->events;
	sum->gaps += s->gaps;
	sum->gap_bytes += s->gap_bytes;
	sum->gap_unknown += s->gap_unknown;
	sum->gap_ns += s->gap_ns;
	sum->dropped += s->dropped;
	sum->dropped_errors += s->dropped_errors;
	sum->lapped += s->lapped;
	sum->have_loss |= s->have_loss;
}

void decode_print_stats(struct outbuf *ob, const char *what,
			const struct decode_stats *s)
{
	ob_printf(ob, "# %s%s%llu instructions, %llu events, %llu errors",
		  what ? what : "", what ? ": " : "",
		  (unsigned long long)s->insns, (unsigned long long)s->events,
		  (unsigned long long)s->errors);
	if (s->have_loss) {
		ob_printf(ob,
			  ", %llu gap(s): %llu bytes lost (known), %llu of unknown size, %llu.%03llu ms not traced",
			  (unsigned long long)s->gaps,
			  (unsigned long long)s->gap_bytes,
			  (unsigned long long)s->gap_unknown,
			  (unsigned long long)(s->gap_ns / 1000000),
			  (unsigned long long)(s->gap_ns / 1000 % 1000));
		if (s->dropped)
			ob_printf(ob,
				  ", %llu bytes dropped while tracing ran (%llu errors in those stretches)",
				  (unsigned long long)s->dropped,
				  (unsigned long long)s->dropped_errors);
		if (s->lapped)
			ob_printf(ob, ", %llu loss records lapped",
				  (unsigned long long)s->lapped);
	}
	ob_puts(ob, "\n");
}

/*
 * The listing could not be written (a full disk, a closed file): an
 * error and a failing exit, not a success with the output cut short.
 * A reader that went away (EPIPE, as with 'decode | head' when SIGPIPE
 * is ignored) asked for no more: not an error, as in dump.
 */
int decode_write_error(const struct outbuf *ob, int ret)
{
	if (!ob->error || ob->error == -EPIPE || ret)
		return ret;
	ptt_err("writing the listing failed: %s", strerror(-ob->error));
	return PTT_EXIT_INPUT;
}

/*
 * Not one instruction came out: not a success, and the message says
 * which of the usual reasons it was.
 */
void decode_nothing(const struct decode_stats *s)
{
	static const char *const no_psb =
		"not an Intel PT trace, or cut before its first PSB: see pt-trace dump --stats";

	if (!s->errors && !s->syncs) {
		ptt_err("nothing decoded: 0 instructions: no PSB in %llu bytes of trace (%s)",
			(unsigned long long)s->bytes, s->bytes ? no_psb :
			"the trace file is empty: nothing was traced on that CPU");
		return;
	}
	if (!s->errors) {
		ptt_err("nothing decoded: 0 instructions: the trace has %llu PSBs but not one instruction between them and its end (tracing disabled, or the trace ends first: see decode --events)",
			(unsigned long long)s->syncs);
		return;
	}
	ptt_err("nothing decoded: 0 instructions, %llu decode errors",
		(unsigned long long)s->errors);
	if (s->nomap)
		fprintf(stderr,
			"  %llu of them 'no memory mapped': the traced code is not in the image;\n"
			"  decode next to the recording's sideband.txt (its map= lines name the\n"
			"  program's files, which must exist here), or give --elf FILE[:BASE]\n",
			(unsigned long long)s->nomap);
}
