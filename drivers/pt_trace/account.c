// SPDX-License-Identifier: GPL-2.0
/*
 * Trace buffers are pinned kernel memory that user space allocates (a
 * START, an mmap, a read on a fresh open).  On a widened node any user
 * could otherwise pin up to half of RAM per CPU.  So, as perf charges the
 * AUX buffers that exceed its perf_event_mlock_kb allowance (and RDMA its
 * pinned pages), the pages of a buffer are charged to the allocating
 * process's pinned_vm against RLIMIT_MEMLOCK, unless the caller has
 * CAP_IPC_LOCK, and every buffer, whoever allocates it, to a global cap
 * (locked_max_kb; default half of RAM).  pinned_vm is an atomic, so the
 * charge can be given back without mmap_lock, from munmap too (which
 * holds it); the mm is grabbed until then.  The user's locked_vm (perf's
 * allowance) is not used: kernels without perf, BPF and networking do not
 * have it.  The charge goes with the buffer: it is given back when the
 * last reference (the device's or a mapping's) is dropped.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "account.h"

static unsigned long locked_max_kb;
module_param(locked_max_kb, ulong, 0644);
MODULE_PARM_DESC(locked_max_kb,
		 "pages all trace buffers together may pin, in KiB (0: half of RAM)");

static atomic_long_t pt_locked_pages = ATOMIC_LONG_INIT(0);

static unsigned long pt_locked_max_pages(void)
{
	unsigned long kb = READ_ONCE(locked_max_kb);

	if (!kb)
		return totalram_pages() / 2;
	return kb >> (PAGE_SHIFT - 10);
}

int pt_account_charge(struct pt_account *a, unsigned long pages)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit;

	/* Nothing charged unless it succeeds: an uncharge is then a no-op. */
	a->pages = 0;
	a->mm = NULL;
	if (atomic_long_add_return(pages, &pt_locked_pages) >
	    pt_locked_max_pages()) {
		atomic_long_sub(pages, &pt_locked_pages);
		return -ENOMEM;
	}
	if (mm && !capable(CAP_IPC_LOCK)) {
		limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		if (atomic64_add_return(pages, &mm->pinned_vm) > limit) {
			atomic64_sub(pages, &mm->pinned_vm);
			atomic_long_sub(pages, &pt_locked_pages);
			return -EPERM;
		}
		mmgrab(mm);
		a->mm = mm;
	}
	a->pages = pages;
	return 0;
}

void pt_account_uncharge(struct pt_account *a)
{
	if (!a->pages)
		return;
	if (a->mm) {
		atomic64_sub(a->pages, &a->mm->pinned_vm);
		mmdrop(a->mm);
		a->mm = NULL;
	}
	atomic_long_sub(a->pages, &pt_locked_pages);
	a->pages = 0;
}
