// SPDX-License-Identifier: GPL-2.0
/*
 * Which backend sits behind the hw-ops interface: the CPU's own (hw_msr.c,
 * built in) or one exported by its own module, taken with symbol_get()
 * only when backend= names it (see hw.h: Registration).
 */
#include <linux/errno.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "hw.h"

int pt_hw_select(const char *name)
{
	const struct pt_hw_ops *ops;

	if (!strcmp(name, "hw")) {
		pt_hw = &pt_hw_msr_ops;
		return 0;
	}
	if (strcmp(name, "model")) {
		pr_err("unknown backend '%s': use backend=hw (the default) or backend=model (tests)\n",
		       name);
		return -EINVAL;
	}
	ops = try_then_request_module(symbol_get(pt_model_hw_ops),
				      "pt_trace_model");
	if (!ops) {
		pr_err("backend=model needs pt_trace_model.ko: load it first (insmod pt_trace_model.ko, or modprobe pt_trace_model)\n");
		return -ENOENT;
	}
	pt_hw = ops;
	return 0;
}

/* Let go of a backend module taken by pt_hw_select(). */
void pt_hw_release(void)
{
	if (pt_hw != &pt_hw_msr_ops)
		symbol_put(pt_model_hw_ops);
	pt_hw = &pt_hw_msr_ops;
}
