// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/pt_trace/caps/<name>: one read-only file per capability, in
 * the spirit of perf's /sys/bus/event_source/devices/intel_pt/caps/, so
 * scripts can ask "is there a CR3 filter?" without parsing CPUID.  Also
 * /sys/kernel/pt_trace/backend ("hw" or "model") and ownership (what
 * protects PT against perf, ownership.c).
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/pt_trace.h>

#include "caps.h"
#include "hw.h"
#include "ownership.h"
#include "sysfs.h"

static struct kobject *pt_kobj;

struct pt_cap_attr {
	struct kobj_attribute attr;
	u32 flag;		/* PT_CAP_* or 0 for a value */
	const u32 *value;	/* when flag == 0 */
	bool hex;
};

static ssize_t pt_cap_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct pt_cap_attr *ca = container_of(attr, struct pt_cap_attr, attr);

	if (ca->flag)
		return sysfs_emit(buf, "%d\n", pt_cap(&pt_caps, ca->flag));
	return sysfs_emit(buf, ca->hex ? "0x%x\n" : "%u\n", *ca->value);
}

#define PT_CAP_FLAG(_name, _flag)					\
	static struct pt_cap_attr pt_cap_##_name = {			\
		.attr = __ATTR(_name, 0444, pt_cap_show, NULL),		\
		.flag = _flag,						\
	}
#define PT_CAP_VALUE(_name, _field, _hex)				\
	static struct pt_cap_attr pt_cap_##_name = {			\
		.attr = __ATTR(_name, 0444, pt_cap_show, NULL),		\
		.value = &pt_caps._field,				\
		.hex = _hex,						\
	}

PT_CAP_FLAG(cr3_filtering, PT_CAP_CR3_FILTER);
PT_CAP_FLAG(psb_cyc, PT_CAP_PSB_CYC);
PT_CAP_FLAG(ip_filtering, PT_CAP_IP_FILTER);
PT_CAP_FLAG(mtc, PT_CAP_MTC);
PT_CAP_FLAG(ptwrite, PT_CAP_PTWRITE);
PT_CAP_FLAG(power_event_trace, PT_CAP_POWER_EVENTS);
PT_CAP_FLAG(psb_pmi_preserve, PT_CAP_PSB_PMI_PRESERVE);
PT_CAP_FLAG(event_trace, PT_CAP_EVENT_TRACE);
PT_CAP_FLAG(tnt_disable, PT_CAP_TNT_DISABLE);
PT_CAP_FLAG(topa_output, PT_CAP_TOPA);
PT_CAP_FLAG(topa_multiple_entries, PT_CAP_TOPA_MULTI);
PT_CAP_FLAG(single_range_output, PT_CAP_SINGLE_RANGE);
PT_CAP_FLAG(output_subsys, PT_CAP_TRACE_TRANSPORT);
PT_CAP_FLAG(payloads_lip, PT_CAP_LIP);
PT_CAP_VALUE(num_address_ranges, num_addr_ranges, false);
PT_CAP_VALUE(mtc_periods, mtc_periods, true);
PT_CAP_VALUE(cycle_thresholds, cyc_thresholds, true);
PT_CAP_VALUE(psb_periods, psb_periods, true);
PT_CAP_VALUE(quirks, quirks, true);
PT_CAP_VALUE(family, family, false);
PT_CAP_VALUE(model, model, true);
PT_CAP_VALUE(stepping, stepping, false);

static struct attribute *pt_caps_attrs[] = {
	&pt_cap_cr3_filtering.attr.attr,
	&pt_cap_psb_cyc.attr.attr,
	&pt_cap_ip_filtering.attr.attr,
	&pt_cap_mtc.attr.attr,
	&pt_cap_ptwrite.attr.attr,
	&pt_cap_power_event_trace.attr.attr,
	&pt_cap_psb_pmi_preserve.attr.attr,
	&pt_cap_event_trace.attr.attr,
	&pt_cap_tnt_disable.attr.attr,
	&pt_cap_topa_output.attr.attr,
	&pt_cap_topa_multiple_entries.attr.attr,
	&pt_cap_single_range_output.attr.attr,
	&pt_cap_output_subsys.attr.attr,
	&pt_cap_payloads_lip.attr.attr,
	&pt_cap_num_address_ranges.attr.attr,
	&pt_cap_mtc_periods.attr.attr,
	&pt_cap_cycle_thresholds.attr.attr,
	&pt_cap_psb_periods.attr.attr,
	&pt_cap_quirks.attr.attr,
	&pt_cap_family.attr.attr,
	&pt_cap_model.attr.attr,
	&pt_cap_stepping.attr.attr,
	NULL,
};

static const struct attribute_group pt_caps_group = {
	.name = "caps",
	.attrs = pt_caps_attrs,
};

static ssize_t backend_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", pt_hw->name);
}

static struct kobj_attribute pt_backend_attr = __ATTR_RO(backend);

/* What protects PT against perf (ownership.c), as decided at load. */
static ssize_t ownership_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", pt_own_str(pt_own_summary()));
}

static struct kobj_attribute pt_ownership_attr = __ATTR_RO(ownership);

static struct attribute *pt_top_attrs[] = {
	&pt_backend_attr.attr,
	&pt_ownership_attr.attr,
	NULL,
};

static const struct attribute_group pt_top_group = {
	.attrs = pt_top_attrs,
};

static const struct attribute_group *pt_groups[] = {
	&pt_top_group,
	&pt_caps_group,
	&pt_sysfs_vmx_group,
	&pt_sysfs_bts_group,
	NULL,
};

int pt_sysfs_init(void)
{
	int ret;

	pt_kobj = kobject_create_and_add("pt_trace", kernel_kobj);
	if (!pt_kobj)
		return -ENOMEM;
	ret = sysfs_create_groups(pt_kobj, pt_groups);
	if (ret)
		kobject_put(pt_kobj);
	return ret;
}

void pt_sysfs_exit(void)
{
	sysfs_remove_groups(pt_kobj, pt_groups);
	kobject_put(pt_kobj);
}
