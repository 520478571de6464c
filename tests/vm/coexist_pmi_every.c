// SPDX-License-Identifier: GPL-2.0
/*
 * A PMI inside every service (issue 10, bounded NMI rate).  The model's
 * late_pmi "every" raises bit 55 and the NMI at each TraceEn 1->0 of the
 * driver's on the traced CPU, so every service raises a PMI while it
 * works.  One served in NMI counts against stream_pmi_max; one that
 * comes while an IPI of the driver's works (here: a followed task's
 * switch-out, whose service halts the trace) is deferred to that
 * service or the next (pmi_pending, debugfs "deferred") and must count
 * too.  Else the limit does not hold (each switch-out raised a PMI that
 * nothing counted), and a service that restarts the trace could go
 * round for ever, each halt raising the next.
 *
 * Streaming on the agents' CPU following a child that sleeps 200 us at a
 * time there (a switch out and in each time), the limit at 100 PMIs a
 * second (one per 10 ms window), a reader on the other CPU, for a
 * second: PMIs were deferred, and the PMIs the model raised stay within
 * the limit (plus two windows': the count starts at any time in one, and
 * the last service may raise one it does not serve).  Before: one PMI
 * per switch-out, 856 in a second at the limit of 100, never throttled.
 *
 * ptt-timeout: 30 (a few seconds)
 */
#include "coexist_common.h"
#include "follow_common.h"

#define RING	(64u << 10)
#define CAP	(16u << 20)
#define LIMIT	100

static void sleeper(void *arg)
{
	double t0 = st_now();

	ptt_pin_cpu((long)arg);
	while (st_now() - t0 < 1.5)
		usleep(200);
}

int main(void)
{
	unsigned char *out = malloc(CAP);
	long long raised0, raised, throttles, deferred;
	int cpu = cx_cpu();
	struct pt_trace_status st;
	size_t len = 0;
	double t0, dt;
	char val[16];
	pid_t pid;
	int fd, go;

	REQUIRE(out, "malloc");
	if (cpu == 0)
		SKIP("one CPU: the reader and the traced CPU must differ");
	if (!fc_has_topa())
		SKIP("no ToPA: no streaming");
	REQUIRE(ptt_pin_cpu(0) == 0, "pin");
	pid = fc_child(sleeper, (void *)(long)cpu, &go);
	fd = fc_open(cpu, PT_MODE_STREAM, RING);
	REQUIRE(!fcntl(fd, F_SETFL, O_NONBLOCK), "O_NONBLOCK");
	REQUIRE(!fc_follow(fd, pid, 0), "FOLLOW: %s", strerror(errno));
	snprintf(val, sizeof(val), "%u", LIMIT);
	REQUIRE(!ptt_write_str(DRV_PARAM_DIR "stream_pmi_max", val),
		"stream_pmi_max");
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_START), "START: %s", strerror(errno));
	raised0 = st_model("late_pmis_raised");
	cx_agent("late_pmi", cpu, "every");
	fc_go(go);
	t0 = st_now();
	do {
		usleep(20000);
		while (st_read(fd, out, &len, CAP) > 0)
			;
		if (len >= CAP - RING)
			len = 0;
		dt = st_now() - t0;
	} while (dt < 1.0);
	raised = st_model("late_pmis_raised") - raised0;
	cx_agent("late_pmi", cpu, "none");
	fc_kill(pid);
	REQUIRE(!ioctl(fd, PT_TRACE_IOC_STOP), "STOP: %s", strerror(errno));
	st_status(fd, &st);
	throttles = st_stream_counter(cpu, "throttles");
	deferred = st_stream_counter(cpu, "deferred");
	printf("PTT-INFO %.2f s: %lld PMIs raised inside services, %llu served in NMI,",
	       dt, raised, (unsigned long long)st.pmis);
	printf(" %lld deferred to an IPI's service, throttles %lld, records %llu\n",
	       deferred, throttles, (unsigned long long)st.loss_records);
	/* The path under test (-1: a driver without the column). */
	CHECK(deferred != 0, "no PMI deferred to a service (%lld raised, %llu in NMI)",
	      raised, (unsigned long long)st.pmis);
	CHECK(raised <= LIMIT * dt + 2 * (LIMIT / 100) + 1,
	      "%lld PMIs in %.2f s over a limit of %u a second", raised, dt,
	      LIMIT);
	ptt_write_str(DRV_PARAM_DIR "stream_pmi_max", "10000");
	close(fd);
	return ptt_done();
}
