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

/* "NAME" then ", WHAT: IP" unless the event's IP is suppressed. */
static char *event_ip(char *p, const struct pt_event *ev, const char *name,
		      const char *what, uint64_t ip)
{
	p += sprintf(p, "%s", name);
	if (ev->ip_suppressed)
		return p;
	return p + sprintf(p, ", %s: %016llx", what, (unsigned long long)ip);
}

/* "NAME: ADDR" then ", WHAT: IP" unless the IP is suppressed. */
static char *event_at(char *p, const struct pt_event *ev, const char *name,
		      uint64_t addr, const char *what, uint64_t ip)
{
	p += sprintf(p, "%s: %016llx", name, (unsigned long long)addr);
	return event_ip(p, ev, "", what, ip);
}

/* The asynchronous variant of an event has the IP it binds to. */
static char *event_async_ip(char *p, int async, uint64_t ip)
{
	if (!async)
		return p;
	return p + sprintf(p, ", ip: %016llx", (unsigned long long)ip);
}

/* The new CR3 of a paging event, and ", nr" for a VMX non-root one. */
static uint64_t event_cr3(const struct pt_event *ev, const char **nr)
{
	int non_root = ev->type == ptev_paging ? ev->variant.paging.non_root :
		       ev->variant.async_paging.non_root;

	*nr = non_root ? ", nr" : "";
	return ev->type == ptev_paging ? ev->variant.paging.cr3 :
	       ev->variant.async_paging.cr3;
}

void decode_print_event(struct outbuf *ob, const struct pt_event *ev,
			int with_time)
{
	char *p = ob_reserve(ob);
	const char *nr;
	uint64_t cr3;

	*p++ = '[';
	if (with_time && ev->has_tsc)
		p += sprintf(p, "%016llx  ", (unsigned long long)ev->tsc);
	switch (ev->type) {
	case ptev_enabled:
		p += sprintf(p, "%s, ip: %016llx",
			     ev->variant.enabled.resumed ? "resumed" : "enabled",
			     (unsigned long long)ev->variant.enabled.ip);
		break;
	case ptev_disabled:
		p = event_ip(p, ev, "disabled", "ip", ev->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		p = event_at(p, ev, "disabled, at", ev->variant.async_disabled.at,
			     "ip", ev->variant.async_disabled.ip);
		break;
	case ptev_async_branch:
		p = event_at(p, ev, "interrupt, from",
			     ev->variant.async_branch.from, "to",
			     ev->variant.async_branch.to);
		break;
	case ptev_paging:
	case ptev_async_paging:
		cr3 = event_cr3(ev, &nr);
		p += sprintf(p, "paging, cr3: %016llx%s",
			     (unsigned long long)cr3, nr);
		p = event_async_ip(p, ev->type == ptev_async_paging,
				   ev->variant.async_paging.ip);
		break;
	case ptev_overflow:
		p = event_ip(p, ev, "overflow", "ip", ev->variant.overflow.ip);
		break;
	case ptev_exec_mode:
		p += sprintf(p, "exec mode: ");
		p = event_ip(p, ev, event_mode(ev->variant.exec_mode.mode),
			     "ip", ev->variant.exec_mode.ip);
		break;
	case ptev_tsx:
		p = event_ip(p, ev, ev->variant.tsx.aborted ? "aborted" :
			     ev->variant.tsx.speculative ? "begin transaction" :
			     "committed", "ip", ev->variant.tsx.ip);
		break;
	case ptev_stop:
		p += sprintf(p, "stopped");
		break;
	case ptev_vmcs:
	case ptev_async_vmcs:
		p += sprintf(p, "vmcs, base: %016llx", (unsigned long long)
			     (ev->type == ptev_vmcs ? ev->variant.vmcs.base :
			      ev->variant.async_vmcs.base));
		p = event_async_ip(p, ev->type == ptev_async_vmcs,
				   ev->variant.async_vmcs.ip);
		break;
	case ptev_exstop:
		p = event_ip(p, ev, "exstop", "ip", ev->variant.exstop.ip);
		break;
	case ptev_mwait:
		p += sprintf(p, "mwait %x %x", ev->variant.mwait.hints,
			     ev->variant.mwait.ext);
		p = event_ip(p, ev, "", "ip", ev->variant.mwait.ip);
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
		p = event_ip(p, ev, "", "ip", ev->variant.ptwrite.ip);
		break;
	case ptev_tick:
		p = event_ip(p, ev, "tick", "ip", ev->variant.tick.ip);
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
