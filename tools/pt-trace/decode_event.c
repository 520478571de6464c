// SPDX-License-Identifier: GPL-2.0
/*
 * decode --events: every event type of libipt 2.0.5 by name, worded as
 * ptxed words it with --event:ip (so a listing can be compared with
 * ptxed's), with the IP wherever the event has one and it is not
 * suppressed.
 */
#include <stdio.h>

#include "decode_out.h"

static const char *event_mode(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit:
		return "16-bit";
	case ptem_32bit:
		return "32-bit";
	case ptem_64bit:
		return "64-bit";
	default:
		return "<unknown>";
	}
}

/* ", ip: IP" unless the event's IP is suppressed. */
static char *event_ip(char *p, const struct pt_event *ev, const char *what,
		      uint64_t ip)
{
	if (ev->ip_suppressed)
		return p;
	return p + sprintf(p, ", %s: %016llx", what, (unsigned long long)ip);
}

void decode_print_event(struct outbuf *ob, const struct pt_event *ev)
{
	char *p = ob_reserve(ob);
	const char *nr;

	*p++ = '[';
	switch (ev->type) {
	case ptev_enabled:
		p += sprintf(p, "%s, ip: %016llx",
			     ev->variant.enabled.resumed ? "resumed" : "enabled",
			     (unsigned long long)ev->variant.enabled.ip);
		break;
	case ptev_disabled:
		p += sprintf(p, "disabled");
		p = event_ip(p, ev, "ip", ev->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		p += sprintf(p, "disabled, at: %016llx",
			     (unsigned long long)ev->variant.async_disabled.at);
		p = event_ip(p, ev, "ip", ev->variant.async_disabled.ip);
		break;
	case ptev_async_branch:
		p += sprintf(p, "interrupt, from: %016llx",
			     (unsigned long long)ev->variant.async_branch.from);
		p = event_ip(p, ev, "to", ev->variant.async_branch.to);
		break;
	case ptev_paging:
		nr = ev->variant.paging.non_root ? ", nr" : "";
		p += sprintf(p, "paging, cr3: %016llx%s",
			     (unsigned long long)ev->variant.paging.cr3, nr);
		break;
	case ptev_async_paging:
		nr = ev->variant.async_paging.non_root ? ", nr" : "";
		p += sprintf(p, "paging, cr3: %016llx%s, ip: %016llx",
			     (unsigned long long)ev->variant.async_paging.cr3, nr,
			     (unsigned long long)ev->variant.async_paging.ip);
		break;
	case ptev_overflow:
		p += sprintf(p, "overflow");
		p = event_ip(p, ev, "ip", ev->variant.overflow.ip);
		break;
	case ptev_exec_mode:
		p += sprintf(p, "exec mode: %s",
			     event_mode(ev->variant.exec_mode.mode));
		p = event_ip(p, ev, "ip", ev->variant.exec_mode.ip);
		break;
	case ptev_tsx:
		p += sprintf(p, "%s", ev->variant.tsx.aborted ? "aborted" :
			     ev->variant.tsx.speculative ? "begin transaction" :
			     "committed");
		p = event_ip(p, ev, "ip", ev->variant.tsx.ip);
		break;
	case ptev_stop:
		p += sprintf(p, "stopped");
		break;
	case ptev_vmcs:
		p += sprintf(p, "vmcs, base: %016llx",
			     (unsigned long long)ev->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		p += sprintf(p, "vmcs, base: %016llx, ip: %016llx",
			     (unsigned long long)ev->variant.async_vmcs.base,
			     (unsigned long long)ev->variant.async_vmcs.ip);
		break;
	case ptev_exstop:
		p += sprintf(p, "exstop");
		p = event_ip(p, ev, "ip", ev->variant.exstop.ip);
		break;
	case ptev_mwait:
		p += sprintf(p, "mwait %x %x", ev->variant.mwait.hints,
			     ev->variant.mwait.ext);
		p = event_ip(p, ev, "ip", ev->variant.mwait.ip);
		break;
	case ptev_pwre:
		p += sprintf(p, "pwre c%u.%u%s",
			     (ev->variant.pwre.state + 1u) & 0xf,
			     (ev->variant.pwre.sub_state + 1u) & 0xf,
			     ev->variant.pwre.hw ? " hw" : "");
		break;
	case ptev_pwrx:
		p += sprintf(p, "pwrx %s%s%sc%u (c%u)",
			     ev->variant.pwrx.interrupt ? "int: " : "",
			     ev->variant.pwrx.store ? "st: " : "",
			     ev->variant.pwrx.autonomous ? "hw: " : "",
			     (ev->variant.pwrx.last + 1u) & 0xf,
			     (ev->variant.pwrx.deepest + 1u) & 0xf);
		break;
	case ptev_ptwrite:
		p += sprintf(p, "ptwrite: %llx",
			     (unsigned long long)ev->variant.ptwrite.payload);
		p = event_ip(p, ev, "ip", ev->variant.ptwrite.ip);
		break;
	case ptev_tick:
		p += sprintf(p, "tick");
		p = event_ip(p, ev, "ip", ev->variant.tick.ip);
		break;
	case ptev_cbr:
		p += sprintf(p, "cbr: %x", ev->variant.cbr.ratio);
		break;
	case ptev_mnt:
		p += sprintf(p, "mnt: %llx",
			     (unsigned long long)ev->variant.mnt.payload);
		break;
	default:
		/* A type newer than libipt 2.0.5: say so, never guess. */
		p += sprintf(p, "event type %d (unknown to this pt-trace)",
			     (int)ev->type);
		break;
	}
	*p++ = ']';
	*p++ = '\n';
	ob_commit(ob, p);
}
