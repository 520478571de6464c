/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinned trace buffers charged like perf's AUX buffers: to the process's
 * pinned_vm against RLIMIT_MEMLOCK (CAP_IPC_LOCK exempt), and to a global
 * cap for everybody.  See account.c.
 */
#ifndef _PT_TRACE_ACCOUNT_H
#define _PT_TRACE_ACCOUNT_H

struct mm_struct;

/* What one buffer charged, kept with it until it is freed. */
struct pt_account {
	unsigned long pages;
	struct mm_struct *mm;		/* charged; NULL: exempt (CAP_IPC_LOCK) */
};

/*
 * Charge @pages to the caller: 0, -EPERM over RLIMIT_MEMLOCK, -ENOMEM
 * over the global cap (locked_max_kb); on an error @a holds no charge.
 */
int pt_account_charge(struct pt_account *a, unsigned long pages);
/* Give a charge back (any context that may sleep). */
void pt_account_uncharge(struct pt_account *a);

#endif /* _PT_TRACE_ACCOUNT_H */
