// SPDX-License-Identifier: GPL-2.0
/*
 * GET_STATUS's vmx field (since status size 120, abi.rst) follows the
 * profile and the model's VMX state of CPU 0, and pt-trace info shows it:
 *  - icl: PRESENT | TRACE_OK (IA32_VMX_MISC[14]=1); after the vmx hook's
 *    VMXON also ON; GUESTS_TRACED exactly while model_vmx=1 (system-wide:
 *    guests run with PT on in VMX non-root), not with 2 (host-only); never
 *    UNKNOWN (the model knows); VMXOFF clears ON;
 *  - bdw: PRESENT without TRACE_OK (START fails in VMX operation), ON
 *    after VMXON;  min: 0 (no VMX);
 *  - a caller of the 112-byte structure gets 112 bytes: nothing written
 *    past them, size 112; the full one gets size 120 and reserved0 = 0;
 *  - info prints "vmx on cpu 0 ... guests traced now yes" with model_vmx=1.
 */
#include <stdio.h>

#include "model_common.h"

#define VS_ALL	(PT_STATUS_VMX_PRESENT | PT_STATUS_VMX_TRACE_OK | \
		 PT_STATUS_VMX_ON | PT_STATUS_VMX_GUESTS_TRACED | \
		 PT_STATUS_VMX_GUESTS_UNKNOWN)

static int fd = -1;

static void vs_restore(void)
{
	mc_param("model_vmx", "0");
	mc_write(MC_MODEL_DIR "vmx", "0 off");
}

static __u32 vs_get(const char *when)
{
	struct pt_trace_status st;

	memset(&st, 0xa5, sizeof(st));
	st.size = sizeof(st);
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st) == 0, "GET_STATUS %s: %s",
		when, strerror(errno));
	CHECK(st.size == PT_TRACE_STATUS_SIZE_VER2, "%s: size %u", when, st.size);
	CHECK(st.reserved0 == 0, "%s: reserved0 %#x", when, st.reserved0);
	CHECK(!(st.vmx & ~VS_ALL), "%s: unknown vmx bits %#x", when, st.vmx);
	fprintf(stderr, "PTT-INFO %s: vmx %#x\n", when, st.vmx);
	return st.vmx;
}

static void vs_expect(const char *when, __u32 want)
{
	__u32 v = vs_get(when);

	CHECK(v == want, "%s: vmx %#x, expected %#x", when, v, want);
}

/* pt-trace info (the device closed: one opener) names the guests. */
static void vs_info(const char *want)
{
	static const char *const cand[] = { "/ptt/bin/pt-trace",
					    "./tools/build/pt-trace" };
	char cmd[256], line[512];
	int found = 0;
	size_t i;
	FILE *p;

	for (i = 0; i < ARRAY_SIZE(cand); i++)
		if (!access(cand[i], X_OK))
			break;
	if (i == ARRAY_SIZE(cand)) {
		fprintf(stderr, "PTT-INFO no pt-trace: info not checked\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s info -C 0 2>&1", cand[i]);
	p = popen(cmd, "r");
	REQUIRE(p, "popen: %s", strerror(errno));
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "vmx on cpu 0") && strstr(line, want))
			found = 1;
	pclose(p);
	CHECK(found, "pt-trace info: no 'vmx on cpu 0 ... %s'", want);
}

int main(void)
{
	struct pt_trace_caps caps;
	__u64 buf[32];
	struct pt_trace_status *old = (struct pt_trace_status *)buf;
	const __u32 base = PT_STATUS_VMX_PRESENT | PT_STATUS_VMX_TRACE_OK;

	fd = mc_open(&caps);
	/* The 112-byte caller: 112 bytes back, nothing past them. */
	memset(buf, 0x5a, sizeof(buf));
	old->size = PT_TRACE_STATUS_SIZE_VER0;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_STATUS, old) == 0,
		"GET_STATUS (size 112): %s", strerror(errno));
	CHECK(old->size == PT_TRACE_STATUS_SIZE_VER0, "size 112 caller got size %u",
	      old->size);
	CHECK(((__u8 *)buf)[PT_TRACE_STATUS_SIZE_VER0] == 0x5a &&
	      ((__u8 *)buf)[PT_TRACE_STATUS_SIZE_VER2 - 1] == 0x5a,
	      "bytes past 112 written for a 112-byte caller");
	/* The 120-byte caller (vmx, no driver_stop_*): 120 back. */
	memset(buf, 0x5a, sizeof(buf));
	old->size = PT_TRACE_STATUS_SIZE_VER1;
	REQUIRE(ioctl(fd, PT_TRACE_IOC_GET_STATUS, old) == 0,
		"GET_STATUS (size 120): %s", strerror(errno));
	CHECK(old->size == PT_TRACE_STATUS_SIZE_VER1 &&
	      ((__u8 *)buf)[PT_TRACE_STATUS_SIZE_VER1] == 0x5a,
	      "a 120-byte caller got size %u or bytes past 120", old->size);

	if (access(MC_MODEL_DIR "vmx", W_OK)) {
		close(fd);
		SKIP("no vmx hook");
	}
	atexit(vs_restore);
	vs_restore();
	if (mc_write(MC_MODEL_DIR "vmx", "0 on")) {
		/* min: no VMX (the hook refuses) */
		vs_expect("no VMX", 0);
		close(fd);
		return ptt_done();
	}
	mc_write(MC_MODEL_DIR "vmx", "0 off");
	if (caps.model == 0x3d) {	/* bdw: IA32_VMX_MISC[14]=0 */
		vs_expect("bdw", PT_STATUS_VMX_PRESENT);
		REQUIRE(!mc_write(MC_MODEL_DIR "vmx", "0 on"), "vmx 0 on");
		vs_expect("bdw VMXON", PT_STATUS_VMX_PRESENT | PT_STATUS_VMX_ON);
		close(fd);
		return ptt_done();
	}
	vs_expect("VMX off", base);
	REQUIRE(!mc_write(MC_MODEL_DIR "vmx", "0 on"), "vmx 0 on");
	vs_expect("VMXON", base | PT_STATUS_VMX_ON);
	REQUIRE(!mc_param("model_vmx", "2"), "model_vmx=2");
	vs_expect("host-only guests", base | PT_STATUS_VMX_ON);
	REQUIRE(!mc_param("model_vmx", "1"), "model_vmx=1");
	vs_expect("system-wide guests",
		  base | PT_STATUS_VMX_ON | PT_STATUS_VMX_GUESTS_TRACED);
	close(fd);
	vs_info("VMX operation on, guests traced now yes");
	fd = ptt_open_cpu(0, O_RDONLY);
	REQUIRE(fd >= 0, "open /dev/pt0: %s", strerror(errno));
	REQUIRE(!mc_write(MC_MODEL_DIR "vmx", "0 off"), "vmx 0 off");
	vs_expect("VMXOFF", base);
	close(fd);
	vs_info("possible (IA32_VMX_MISC[14]=1), VMX operation off, guests traced now no");
	return ptt_done();
}
