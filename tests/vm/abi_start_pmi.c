// SPDX-License-Identifier: GPL-2.0
/*
 * A ToPA PMI raised between START's TraceEn write and the moment the
 * driver may handle PMIs (issue 11 point 5): silicon raises one at once
 * when the output already sits at an INT region or PendTopaPMI is set.
 * The model's late_pmi "start" plays it; the driver's NMI handler claims
 * it and defers it to the START IPI, which must serve it before START
 * returns, not leave it to the 50 ms streaming watchdog.  Checked through
 * the driver's per-CPU stream counters (debugfs): one service already
 * when START has returned, none by the watchdog, and no driver #GP.  The
 * model runs slowly so that no other PMI comes meanwhile.
 */
#include "stream_common.h"
#include "stream_wd.h"

#define BUF	(64u * 1024)

int main(void)
{
	struct pt_trace_caps caps;
	long long raised0, gp0, svc;
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0, fd;
	char cmd[32];
	double t0, t1, dt;

	if (access(MODEL_DIR "late_pmi", W_OK))
		SKIP("no late_pmi hook");
	fd = st_setup(cpu, BUF, 0, 0, &caps);
	st_model_slow();
	raised0 = st_model("late_pmis_raised");
	gp0 = st_model("gp_faults");
	snprintf(cmd, sizeof(cmd), "%d start", cpu);
	REQUIRE(!ptt_write_str(MODEL_DIR "late_pmi", cmd), "late_pmi start");

	t0 = st_now();
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	t1 = st_now();
	svc = st_stream_counter(cpu, "services");
	dt = st_now() - t1;
	printf("PTT-INFO services %lld, read %.1f ms after START returned (START took %.1f ms)\n",
	       svc, dt * 1e3, (t1 - t0) * 1e3);
	CHECK(st_model("late_pmis_raised") == raised0 + 1,
	      "the model raised no PMI at the enabling write");
	/* The watchdog's first look is 50 ms after START at the earliest. */
	CHECK(svc >= 1, "the PMI raised at START was not served by START (services %lld)",
	      svc);
	usleep(150 * 1000);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	ST_CHECK_NO_WATCHDOG(cpu);
	CHECK(st_model("gp_faults") == gp0, "the driver faulted");
	close(fd);
	st_restore_model();
	return ptt_done();
}
