// SPDX-License-Identifier: GPL-2.0
/*
 * A followed thread that moves itself between CPU 0 and CPU 1 every
 * 3 ms (sched_setaffinity) for a second, beside an unfollowed process
 * spinning on both CPUs: each move switches it out on one CPU and in on
 * the other.  The witness must see it traced on both CPUs and never
 * untraced, and the other process never traced; both devices count
 * switches.
 */
#include "follow_common.h"

static long long elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000LL +
	       (b->tv_nsec - a->tv_nsec) / 1000;
}

/*
 * Each visit lasts 3 ms from the arrival, not until a fixed schedule: a
 * mover held up by a loaded host would otherwise catch up by moving at
 * once, and spend too little time on a CPU for the witness to see it.
 */
static void migrate(void *arg)
{
	struct timespec t0, arrived, t;
	unsigned long n = 0;
	int cpu = 0;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ptt_pin_cpu(cpu);
		cpu ^= 1;
		for (int i = 0; i < 20000; i++)
			__asm__ __volatile__("" : "+r"(n) : : "memory");
		fc_sleep_ms(0);
		clock_gettime(CLOCK_MONOTONIC, &arrived);
		do {
			__asm__ __volatile__("" : "+r"(n) : : "memory");
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (elapsed_us(&arrived, &t) < 3000);
	} while (elapsed_us(&t0, &t) < 1000000);
}

int main(void)
{
	struct fc_row rows[FC_MAX_ROWS];
	unsigned long long traced[FC_NCPU];
	struct pt_trace_follow_status fs;
	int fd[FC_NCPU], go, cpu, n;
	pid_t mover, other;

	fc_icl_only();
	other = fc_spinner(0x3, NULL);
	mover = fc_child(migrate, NULL, &go);
	fc_start_all(fd, PT_MODE_STREAM, 4 << 20, mover, 0);
	fc_witness_start();
	fc_go(go);
	fc_sleep_ms(900);
	n = fc_witness_stop(rows);
	waitpid(mover, NULL, 0);
	for (cpu = 0; cpu < FC_NCPU; cpu++) {
		fs = fc_status(fd[cpu]);
		fprintf(stderr, "PTT-INFO CPU %d: %llu switches in, %llu out\n",
			cpu, (unsigned long long)fs.switches_in,
			(unsigned long long)fs.switches_out);
		CHECK(fs.switches_in >= 5, "CPU %d: %llu switches in", cpu,
		      (unsigned long long)fs.switches_in);
		CHECK(!ioctl(fd[cpu], PT_TRACE_IOC_STOP), "STOP");
		close(fd[cpu]);
	}
	fc_judge("migrate", rows, n, (int[]){ mover, 0 }, (int[]){ other, 0 },
		 traced);
	for (cpu = 0; cpu < FC_NCPU; cpu++)
		CHECK(traced[cpu], "the mover never traced on CPU %d", cpu);
	fc_kill(other);
	return ptt_done();
}
