// SPDX-License-Identifier: GPL-2.0
/*
 * The CR3 filter on top of following (issue 13: "CR3 filtering and IP
 * filters still apply on top"): both CPUs' devices follow a process
 * spinning on CPUs 0 and 1 while another process spins beside it.  With
 * the CR3 filter on the other process's address space (PT_CR3_BY_PID)
 * the followed threads run with TraceEn 1 (the witness says so) but the
 * CPU drops their context, so the trace has no packet with an IP (TNT,
 * TIP, TIP.PGE/PGD, FUP).  With the filter on the followed process's own
 * address space (the control: the same recording can show them) both
 * CPUs' traces have them.  icl only (min has no CR3 filter; bdw's only
 * differs below the hw ops), 2 x 200 ms of spinning.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "follow_common.h"

/* Packets with an IP of the traced code in @fd's flight buffer. */
static unsigned long long ip_packets(int fd, const char *what, int cpu)
{
	struct pt_trace_status st = { .size = sizeof(st) };
	struct ptt_packet_stats ps;
	unsigned long long n, first, i;
	unsigned char *map, *lin;

	REQUIRE(!ioctl(fd, PT_TRACE_IOC_GET_STATUS, &st), "GET_STATUS: %s",
		strerror(errno));
	CHECK(!(st.flags & PT_STATUS_HW_ERROR), "%s CPU %d: HW error", what,
	      cpu);
	if (!st.head)
		return 0;
	map = mmap(NULL, 4096 + st.buffer_size, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	/* Oldest first: [head - size, head) modulo size. */
	n = st.head < st.buffer_size ? st.head : st.buffer_size;
	first = (st.head - n) % st.buffer_size;
	lin = malloc(n);
	REQUIRE(lin, "malloc");
	for (i = 0; i < n; i++)
		lin[i] = map[4096 + (first + i) % st.buffer_size];
	munmap(map, 4096 + st.buffer_size);
	memset(&ps, 0, sizeof(ps));
	if (ptt_decode_packets(lin, n, &ps))
		memset(&ps, 0, sizeof(ps));	/* no PSB: no packet */
	free(lin);
	CHECK(!ps.errors, "%s CPU %d: %llu decode errors", what, cpu,
	      (unsigned long long)ps.errors);
	fprintf(stderr,
		"PTT-INFO %s CPU %d: %llu bytes, %llu packets, %llu TNT, %llu TIP, %llu TIP.PGE, %llu FUP\n",
		what, cpu, (unsigned long long)st.head,
		(unsigned long long)ps.packets, (unsigned long long)ps.tnt,
		(unsigned long long)ps.tip, (unsigned long long)ps.tip_pge,
		(unsigned long long)ps.fup);
	return ps.tnt + ps.tip + ps.tip_pge + ps.tip_pgd + ps.fup;
}

/* Follow @fol on both CPUs with the CR3 filter on @cr3_of's. */
static void phase(const char *what, pid_t fol, pid_t other, pid_t cr3_of)
{
	struct fc_row rows[FC_MAX_ROWS];
	unsigned long long traced[FC_NCPU], ips;
	int fd[FC_NCPU], cpu, n;

	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		struct pt_trace_cr3 c = { .size = sizeof(c) };

		fd[cpu] = fc_open(cpu, PT_MODE_FLIGHT, 1 << 20);
		REQUIRE(!fc_follow(fd[cpu], fol, 0), "FOLLOW %d on CPU %d: %s",
			fol, cpu, strerror(errno));
		c.how = PT_CR3_BY_PID;
		c.pid = cr3_of;
		REQUIRE(!ioctl(fd[cpu], PT_TRACE_IOC_SET_CR3, &c),
			"SET_CR3 of %d on CPU %d: %s", cr3_of, cpu,
			strerror(errno));
		REQUIRE(!ioctl(fd[cpu], PT_TRACE_IOC_START), "START %d: %s",
			cpu, strerror(errno));
	}
	fc_witness_start();
	fc_sleep_ms(200);
	n = fc_witness_stop(rows);
	for (cpu = 0; cpu < FC_NCPU; cpu++)
		REQUIRE(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP: %s",
			strerror(errno));
	/* Following itself worked: TraceEn exactly while @fol ran. */
	fc_judge(what, rows, n, (int[]){ fol, 0 }, (int[]){ other, 0 },
		 traced);
	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		CHECK(traced[cpu], "%s: the followed thread on CPU %d never traced",
		      what, cpu);
		ips = ip_packets(fd[cpu], what, cpu);
		if (cr3_of == fol)
			CHECK(ips, "%s CPU %d: no packet with an IP", what, cpu);
		else
			CHECK(!ips,
			      "%s CPU %d: %llu packets with an IP of a followed process outside the CR3 filter",
			      what, cpu, ips);
		close(fd[cpu]);
	}
}

int main(void)
{
	pid_t fol, other;
	const char *p = getenv("PTT_PROFILE");

	if (p && strcmp(p, "icl"))
		SKIP("the CR3 filter under following is tested on icl");
	fol = fc_spinner(0x3, NULL);
	other = fc_spinner(0x3, NULL);
	phase("cr3 of another process", fol, other, other);
	phase("cr3 of the followed process", fol, other, fol);
	fc_kill(fol);
	fc_kill(other);
	return ptt_done();
}
