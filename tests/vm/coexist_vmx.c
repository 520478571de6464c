// SPDX-License-Identifier: GPL-2.0
/*
 * VMX beside PT, with the model's vmx hook (VMXON/VMXOFF on one CPU):
 *  - IA32_VMX_MISC[14]=0 (bdw): START while in VMX operation fails with
 *    EBUSY and one log line naming the remedy (kvm.enable_virt_at_load=0
 *    or unloading kvm_intel), without a modelled #GP; after VMXOFF it
 *    starts;
 *  - IA32_VMX_MISC[14]=1 (icl): VMXON during a stream changes nothing:
 *    no loss record, data goes on, no #GP.
 * (A VMXON during a bdw stream is coexist_takeover's; min has no VMX.)
 */
#include "coexist_common.h"

int main(void)
{
	struct pt_trace_caps caps;
	struct pt_trace_mmap_page *pg;
	int cpu = cx_cpu(), fd, i;
	long long gp0 = st_model("gp_faults");
	long mark = cx_log_mark();
	ssize_t n, total = 0;
	char buf[4096];

	fd = st_setup(cpu, 1u << 20, 8u * 1024, O_NONBLOCK, &caps);
	if (access(MODEL_DIR "vmx", W_OK))
		SKIP("no vmx hook");
	if (caps.family == 6 && caps.model == 0x3d) {
		cx_agent("vmx", cpu, "on");
		errno = 0;
		CHECK(ioctl(fd, PT_TRACE_IOC_START) < 0 && errno == EBUSY,
		      "START in VMX operation: %s (want EBUSY)", strerror(errno));
		CHECK(cx_log_has(mark, "kvm.enable_virt_at_load=0"),
		      "no log line naming the remedy");
		cx_agent("vmx", cpu, "off");
		CHECK(!ioctl(fd, PT_TRACE_IOC_START), "START after VMXOFF: %s",
		      strerror(errno));
	} else {
		REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s",
			strerror(errno));
		usleep(50000);
		snprintf(buf, sizeof(buf), "%d on", cpu);
		if (ptt_write_str(MODEL_DIR "vmx", buf))
			SKIP("this profile has no VMX");
		for (i = 0; i < 60 && total < 16384; i++) {
			usleep(50000);
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				total += n;
		}
		pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		REQUIRE(pg != MAP_FAILED, "mmap: %s", strerror(errno));
		printf("PTT-INFO in VMX operation: %zd bytes, %llu records\n",
		       total, (unsigned long long)pg->loss_records);
		CHECK(total >= 16384, "the trace stopped in VMX operation");
		CHECK(pg->loss_records == 0, "a gap in VMX operation");
		cx_agent("vmx", cpu, "off");
		munmap(pg, 4096);
	}
	CHECK(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	CHECK(st_model("gp_faults") == gp0, "the driver faulted");
	close(fd);
	st_restore_model();
	return ptt_done();
}
