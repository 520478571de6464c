// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/pt_trace/bts/: the CPU's Branch Trace Store, beside PT's
 * caps/ (bts_caps.h):
 *   present      1 when BTS can be used: DS, and IA32_MISC_ENABLE[11]
 *                (BTS unavailable) clear;
 *   ds           CPUID.1:EDX[21];
 *   cpl_filter   CPUID.1:ECX[4] DS-CPL: user-only or kernel-only branch
 *                recording (BTS_OFF_OS/BTS_OFF_USR); without it BTS
 *                records both and the driver cannot filter;
 *   unavailable  IA32_MISC_ENABLE[11] (or that MSR could not be read);
 *   pti          1 when page table isolation is on: every BTS
 *                configuration is refused (source_bts.c, "PTI").
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "bts_caps.h"
#include "sysfs.h"

static ssize_t present_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", bts_present(&bts_caps));
}

static ssize_t ds_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	return sysfs_emit(buf, "%d\n", bts_caps.ds);
}

static ssize_t cpl_filter_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", bts_caps.cpl_filter);
}

static ssize_t unavailable_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", bts_caps.unavailable);
}

static ssize_t pti_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", bts_pti());
}

static struct kobj_attribute pt_bts_present_attr = __ATTR_RO(present);
static struct kobj_attribute pt_bts_ds_attr = __ATTR_RO(ds);
static struct kobj_attribute pt_bts_cpl_filter_attr = __ATTR_RO(cpl_filter);
static struct kobj_attribute pt_bts_unavailable_attr = __ATTR_RO(unavailable);
static struct kobj_attribute pt_bts_pti_attr = __ATTR_RO(pti);

static struct attribute *pt_bts_attrs[] = {
	&pt_bts_present_attr.attr,
	&pt_bts_ds_attr.attr,
	&pt_bts_cpl_filter_attr.attr,
	&pt_bts_unavailable_attr.attr,
	&pt_bts_pti_attr.attr,
	NULL,
};

const struct attribute_group pt_sysfs_bts_group = {
	.name = "bts",
	.attrs = pt_bts_attrs,
};
