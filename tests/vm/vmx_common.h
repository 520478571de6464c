/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/vm/vmx_*.c tests: put CPU 0 of the model in VMX
 * operation (the vmx hook) with simulated guests (model_vmx, see
 * Documentation/model.rst "Guests"), trace it through /dev/pt0 and hand
 * back the trace as a list of packets with the IPs they name.
 */
#ifndef VMX_COMMON_H
#define VMX_COMMON_H

#include <stdlib.h>

#include "model_common.h"

/* The model's two VMs (drivers/pt_trace/model/vmx.c). */
#define VX_VMCS_A	0x12345000ULL	/* 64-bit, the host's CR3 */
#define VX_VMCS_B	0x6789a000ULL	/* 32-bit */
#define VX_IP_A		0x0000100000000000ULL
#define VX_IP_B		0x08040000ULL
#define VX_IP_SPAN	0x10000ULL
/* The VMCS base of a VMCS packet before any VMCS is loaded. */
#define VX_VMCS_NONE	0x000ffffffffff000ULL

/* Which VM's code @ip is: 'A', 'B', or 0 (not a guest IP). */
static inline int vx_vm_of_ip(__u64 ip)
{
	if (ip - VX_IP_A < VX_IP_SPAN)
		return 'A';
	if (ip - VX_IP_B < VX_IP_SPAN)
		return 'B';
	return 0;
}

static inline int vx_vm_of_vmcs(__u64 vmcs)
{
	return vmcs == VX_VMCS_A ? 'A' : vmcs == VX_VMCS_B ? 'B' : 0;
}

struct vx_pkt {
	struct pt_packet p;
	__u64 ip;
	int has_ip;
	int in_psb;		/* between PSB and PSBEND */
};

struct vx_trace {
	struct vx_pkt *v;
	size_t n, cap;
	int in_psb;
};

static void vx_collect(const struct pt_packet *p, __u64 ip, int has_ip,
		       void *ctx)
{
	struct vx_trace *t = ctx;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		REQUIRE(t->v, "realloc");
	}
	if (p->type == ppt_psb)
		t->in_psb = 1;
	t->v[t->n].p = *p;
	t->v[t->n].ip = ip;
	t->v[t->n].has_ip = has_ip;
	t->v[t->n].in_psb = t->in_psb;
	t->n++;
	if (p->type == ppt_psbend)
		t->in_psb = 0;
}

/* The next packet after *@i that is not MTC or CYC (NULL: none). */
static inline const struct vx_pkt *vx_next(const struct vx_trace *t,
					   size_t *i)
{
	while (++*i < t->n) {
		enum pt_packet_type ty = t->v[*i].p.type;

		if (ty != ppt_mtc && ty != ppt_cyc)
			return &t->v[*i];
	}
	return NULL;
}

static void vx_restore(void)
{
	mc_param("model_vmx", "0");
	mc_param("model_vmx_tsc_offset", "0");
	mc_param("model_vmx_tsc_ratio", "0");
	mc_write(MC_MODEL_DIR "vmx", "0 off");
}

static unsigned long vx_sink;

static void vx_workload(void *arg)
{
	double t0 = mc_now();
	unsigned long i;

	(void)arg;
	while (mc_now() - t0 < 0.3) {
		for (i = 0; i < 20000; i++) {
			vx_sink += i;
			__asm__ __volatile__("" : : "r"(vx_sink) : "memory");
		}
		getppid();
	}
}

/* The MTCFreq vx_trace() sets with MTCEn: 3 if the CPU has it. */
static inline unsigned int vx_mtc_freq(const struct pt_trace_caps *caps)
{
	return caps->mtc_periods & (1u << 3) ? 3 : 0;
}

/*
 * Open CPU 0 with @ctl, put it in VMX operation with model_vmx=@mode
 * and the guests' TSC offset and ratio (KVM's format: 48 fraction bits),
 * trace the workload and walk the trace into @t.  Skips on a profile
 * without VMX, or whose VMX forbids tracing (IA32_VMX_MISC[14]=0: that
 * refusal is coexist_vmx's).
 */
static inline void vx_trace(const char *mode, const char *tsc_offset,
			    const char *tsc_ratio, __u64 ctl, __u64 ctl_mask,
			    struct pt_trace_caps *caps, struct vx_trace *t)
{
	struct pt_trace_config cfg = { .size = sizeof(cfg) };
	struct mc_trace mt;
	long errors;
	int fd;

	fd = mc_open(caps);
	if (access(MC_MODEL_DIR "vmx", W_OK))
		SKIP("no vmx hook");
	REQUIRE(!access(MC_PARAM_DIR "model_vmx", W_OK),
		"the model cannot run guests (no model_vmx)");
	if (caps->family == 6 && caps->model == 0x3d)
		SKIP("IA32_VMX_MISC[14]=0: no tracing in VMX operation");
	atexit(vx_restore);
	vx_restore();
	if (mc_write(MC_MODEL_DIR "vmx", "0 on"))
		SKIP("this profile has no VMX");
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_CONFIG, &cfg) == 0,
		"GET_CONFIG: %s", strerror(errno));
	cfg.ctl = (cfg.ctl & ~ctl_mask) | ctl;
	if (ctl & PT_CTL_MTCEN)
		cfg.ctl = (cfg.ctl & ~PT_CTL_MTCFREQ_MASK) |
			  (__u64)vx_mtc_freq(caps) << PT_CTL_MTCFREQ_SHIFT;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_SET_CONFIG, &cfg) == 0,
		"SET_CONFIG ctl %#llx: %s", (unsigned long long)cfg.ctl,
		strerror(errno));
	REQUIRE(mc_param("model_vmx_tsc_offset", tsc_offset) == 0 &&
		mc_param("model_vmx_tsc_ratio", tsc_ratio) == 0,
		"model_vmx_tsc_*: %s", strerror(errno));
	REQUIRE(mc_param("model_vmx", mode) == 0, "model_vmx=%s: %s", mode,
		strerror(errno));
	mc_run(fd, vx_workload, NULL, &mt);
	close(fd);
	REQUIRE(mt.len > 0, "no trace");
	memset(t, 0, sizeof(*t));
	errors = mc_walk(mt.buf, mt.len, vx_collect, t);
	CHECK(errors == 0, "libipt: %ld packet decode errors", errors);
	REQUIRE(t->n > 0, "no packet after the first PSB");
	free(mt.buf);
}

#endif /* VMX_COMMON_H */
