// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ptN and /dev/btsN (see include/uapi/linux/pt_trace.h and
 * Documentation/abi.rst): one character device region, PT's minors
 * first (minor = CPU), then BTS's (minor = nr_cpu_ids + CPU), the same
 * file operations for both; the per-CPU core behind each says which
 * trace source it drives.  /dev/btsN exists only where the CPU has BTS.
 *
 * Nodes are created and removed with the CPUs (cpuhp) and are root-only
 * (0600) by default.  One opener at a time; the open file pins the module
 * (fops.owner) and every mapping pins the file, so rmmod is refused while
 * a mapping lives.  A mapping also holds a reference on the buffer, so
 * neither close nor CPU offline frees pages that are still mapped.
 */
#include <linux/cdev.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/pt_trace.h>

#include "buffer.h"
#include "chardev.h"
#include "compat.h"
#include "core.h"
#include "follow.h"
#include "source.h"
#include "source_pt.h"

static dev_t pt_devt;
static struct cdev pt_cdev;
static struct class *pt_class;
static enum cpuhp_state pt_dev_cpuhp_state;

static struct pt_cpu *pt_minor_cpu(unsigned int minor)
{
	if (minor < nr_cpu_ids)
		return pt_core_cpu(minor);
	return pt_core_bts_cpu(minor - nr_cpu_ids);
}

static int pt_open(struct inode *inode, struct file *file)
{
	struct pt_cpu *pc = pt_minor_cpu(iminor(inode));
	int ret;

	if (!pc)
		return -ENXIO;
	ret = pt_core_open(pc);
	if (ret)
		return ret;
	file->private_data = pc;
	return nonseekable_open(inode, file);
}

static int pt_release(struct inode *inode, struct file *file)
{
	pt_core_release(file->private_data);
	return 0;
}

/*
 * Size-versioned structures: user space says in 'size' how big its
 * structure is; shorter (but at least version 0) is zero-extended,
 * longer must have zeros beyond what this driver knows.
 */
static int pt_copy_in(void *k, size_t ksize, size_t ver0, void __user *u)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)u))
		return -EFAULT;
	if (usize < ver0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(k, ksize, u, usize);
	if (ret)
		return ret;
	*(u32 *)k = ksize;
	return 0;
}

/* Output: as many bytes as both know; 'size' says how many were filled. */
static int pt_copy_out(void *k, size_t ksize, size_t ver0, void __user *u)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)u))
		return -EFAULT;
	if (usize < ver0)
		return -EINVAL;
	usize = min_t(u32, usize, ksize);
	*(u32 *)k = usize;
	return copy_to_user(u, k, usize) ? -EFAULT : 0;
}

/*
 * In and out (SET_CR3): the answer is written after the change is made,
 * so check first that the caller can take it, by writing its own bytes
 * back (the size it gave, the rest as read): a structure in read-only or
 * unmapped memory fails with EFAULT before anything changes.
 */
static int pt_copy_back(void *k, size_t ksize, void __user *u)
{
	u32 ksz = *(u32 *)k, usize;
	int ret;

	if (get_user(usize, (u32 __user *)u))
		return -EFAULT;
	*(u32 *)k = usize;
	ret = copy_to_user(u, k, min_t(u32, usize, ksize)) ? -EFAULT : 0;
	*(u32 *)k = ksz;
	return ret;
}

#define PT_IN(kvar, ver0, arg)  pt_copy_in(&(kvar), sizeof(kvar), ver0, arg)
#define PT_OUT(kvar, ver0, arg) pt_copy_out(&(kvar), sizeof(kvar), ver0, arg)

static long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pt_cpu *pc = file->private_data;
	void __user *uarg = (void __user *)arg;
	union {
		struct pt_trace_caps caps;
		struct pt_trace_config cfg;
		struct pt_trace_cr3 cr3;
		struct pt_trace_cyc cyc;
		struct pt_trace_addr addr;
		struct pt_trace_status st;
		struct pt_trace_follow fol;
		struct pt_trace_follow_status fst;
		u64 size;
	} u;
	int ret;

	if (_IOC_TYPE(cmd) != PT_TRACE_IOC_MAGIC)
		return -ENOTTY;
	/* CR3, CYC, address filters and following are PT's alone. */
	if (pc->src != &pt_source_pt)
		switch (_IOC_NR(cmd)) {
		case _IOC_NR(PT_TRACE_IOC_SET_CR3):
		case _IOC_NR(PT_TRACE_IOC_SET_CYC):
		case _IOC_NR(PT_TRACE_IOC_SET_ADDR):
		case _IOC_NR(PT_TRACE_IOC_FOLLOW):
		case _IOC_NR(PT_TRACE_IOC_GET_FOLLOW):
			return -ENOTTY;
		}
	/* Dispatch on number and direction: the size is versioned. */
	switch (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) {
	case PT_TRACE_IOC_GET_CAPS & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		pc->src->get_caps(pc, &u.caps);
		return PT_OUT(u.caps, PT_TRACE_CAPS_SIZE_VER0, uarg);
	case PT_TRACE_IOC_SET_CONFIG & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		ret = PT_IN(u.cfg, PT_TRACE_CONFIG_SIZE_VER0, uarg);
		return ret ?: pt_core_set_config(pc, &u.cfg);
	case PT_TRACE_IOC_GET_CONFIG & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		pt_core_get_config(pc, &u.cfg);
		return PT_OUT(u.cfg, PT_TRACE_CONFIG_SIZE_VER0, uarg);
	case PT_TRACE_IOC_SET_CR3 & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		ret = PT_IN(u.cr3, PT_TRACE_CR3_SIZE_VER0, uarg);
		ret = ret ?: pt_copy_back(&u.cr3, sizeof(u.cr3), uarg);
		ret = ret ?: pt_src_set_cr3(pc, &u.cr3);
		return ret ?: PT_OUT(u.cr3, PT_TRACE_CR3_SIZE_VER0, uarg);
	case PT_TRACE_IOC_SET_CYC & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		ret = PT_IN(u.cyc, PT_TRACE_CYC_SIZE_VER0, uarg);
		return ret ?: pt_src_set_cyc(pc, &u.cyc);
	case PT_TRACE_IOC_SET_ADDR & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		ret = PT_IN(u.addr, PT_TRACE_ADDR_SIZE_VER0, uarg);
		return ret ?: pt_src_set_addr(pc, &u.addr);
	case PT_TRACE_IOC_SET_BUFSIZE & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		if (get_user(u.size, (u64 __user *)uarg))
			return -EFAULT;
		return pt_core_set_bufsize(pc, u.size);
	case PT_TRACE_IOC_START:
		return pt_core_start(pc);
	case PT_TRACE_IOC_STOP:
		return pt_core_stop(pc);
	case PT_TRACE_IOC_GET_STATUS & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		ret = pt_core_get_status(pc, &u.st);
		return ret ?: PT_OUT(u.st, PT_TRACE_STATUS_SIZE_VER0, uarg);
	case PT_TRACE_IOC_FOLLOW & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		ret = PT_IN(u.fol, PT_TRACE_FOLLOW_SIZE_VER0, uarg);
		return ret ?: pt_follow_set(pc, &u.fol);
	case PT_TRACE_IOC_GET_FOLLOW & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT):
		pt_follow_get(pc, &u.fst);
		return PT_OUT(u.fst, PT_TRACE_FOLLOW_STATUS_SIZE_VER0, uarg);
	}
	return -ENOTTY;
}

/* ---- mmap: control page at 0, data from PAGE_SIZE, read-only ---- */

static void pt_vm_open(struct vm_area_struct *vma)
{
	struct pt_buffer *buf = vma->vm_private_data;

	pt_buffer_get(buf);
	atomic_inc(&buf->maps);
}

static void pt_vm_close(struct vm_area_struct *vma)
{
	struct pt_buffer *buf = vma->vm_private_data;

	atomic_dec(&buf->maps);
	pt_buffer_put(buf);
}

static vm_fault_t pt_vm_fault(struct vm_fault *vmf)
{
	struct pt_buffer *buf = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff == 0)
		page = buf->ctrl_page;
	else
		page = pt_buffer_data_page(buf, vmf->pgoff - 1);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct pt_vm_ops = {
	.open	= pt_vm_open,
	.close	= pt_vm_close,
	.fault	= pt_vm_fault,
};

static int pt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pt_cpu *pc = file->private_data;
	unsigned long npages = vma_pages(vma);
	struct pt_buffer *buf;
	bool writable = vma->vm_pgoff == 0 && npages == 1 &&
			(vma->vm_flags & VM_SHARED);

	/*
	 * Only the control page alone may be writable, and shared:
	 * streaming readers store data_tail there.  The data is always
	 * read-only, and so is a private control page (a copy on write
	 * would hide the driver's updates from its owner): neither mprotect
	 * nor a forced write (/proc/PID/mem, ptrace) may add what is
	 * refused here.
	 */
	if ((vma->vm_flags & VM_WRITE) && !writable)
		return -EPERM;
	/* Counted in maps already: no resize from here on. */
	buf = pt_core_get_buffer(pc, vma->vm_pgoff, npages);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (!writable)
		vm_flags_clear(vma, VM_MAYWRITE);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	vma->vm_ops = &pt_vm_ops;
	vma->vm_private_data = buf;	/* the reference from get_buffer */
	return 0;
}

/* Streaming: the ring, oldest first; blocks unless O_NONBLOCK. */
static ssize_t pt_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *ppos)
{
	return pt_core_read(file->private_data, ubuf, len,
			    file->f_flags & O_NONBLOCK);
}

static __poll_t pt_poll(struct file *file, struct poll_table_struct *wait)
{
	return pt_core_poll(file->private_data, file, wait);
}

static const struct file_operations pt_fops = {
	.owner		= THIS_MODULE,
	.open		= pt_open,
	.release	= pt_release,
	.unlocked_ioctl	= pt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= pt_mmap,
	.read		= pt_read,
	.poll		= pt_poll,
};

static int pt_dev_online(unsigned int cpu)
{
	struct device *dev;

	dev = device_create(pt_class, NULL, MKDEV(MAJOR(pt_devt), cpu), NULL,
			    "pt%u", cpu);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	if (!pt_core_bts_cpu(cpu))
		return 0;
	dev = device_create(pt_class, NULL,
			    MKDEV(MAJOR(pt_devt), nr_cpu_ids + cpu), NULL,
			    "bts%u", cpu);
	if (IS_ERR(dev)) {
		device_destroy(pt_class, MKDEV(MAJOR(pt_devt), cpu));
		return PTR_ERR(dev);
	}
	return 0;
}

static int pt_dev_offline(unsigned int cpu)
{
	if (pt_core_bts_cpu(cpu))
		device_destroy(pt_class,
			       MKDEV(MAJOR(pt_devt), nr_cpu_ids + cpu));
	device_destroy(pt_class, MKDEV(MAJOR(pt_devt), cpu));
	return 0;
}

int pt_chardev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&pt_devt, 0, 2 * nr_cpu_ids, "pt_trace");
	if (ret)
		return ret;
	cdev_init(&pt_cdev, &pt_fops);
	pt_cdev.owner = THIS_MODULE;
	ret = cdev_add(&pt_cdev, pt_devt, 2 * nr_cpu_ids);
	if (ret)
		goto err_region;
#ifdef class_create	/* a macro taking the owner before 6.4 */
	pt_class = class_create(THIS_MODULE, "pt_trace");
#else
	pt_class = class_create("pt_trace");
#endif
	if (IS_ERR(pt_class)) {
		ret = PTR_ERR(pt_class);
		goto err_cdev;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pt_trace/dev:online",
				pt_dev_online, pt_dev_offline);
	if (ret < 0)
		goto err_class;
	pt_dev_cpuhp_state = ret;
	return 0;

err_class:
	class_destroy(pt_class);
err_cdev:
	cdev_del(&pt_cdev);
err_region:
	unregister_chrdev_region(pt_devt, 2 * nr_cpu_ids);
	return ret;
}

void pt_chardev_exit(void)
{
	cpuhp_remove_state(pt_dev_cpuhp_state);
	class_destroy(pt_class);
	cdev_del(&pt_cdev);
	unregister_chrdev_region(pt_devt, 2 * nr_cpu_ids);
}
