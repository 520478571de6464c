// SPDX-License-Identifier: GPL-2.0
/*
 * The model's rate generator (model_rate, with the burst generator, as
 * the bench's lossless-rate search drives it) makes the rate it is asked
 * for, up to what the model makes unbounded.  CPU 0 is traced in flight
 * mode (no reader, no PMI to pace anything) for half a second twice:
 * unbounded (model_rate=0, model_tick_bytes=65536, model_period_us=10),
 * then at 0.8 of the rate that run made; the second must make at least
 * half of what it asked, and not more than 1.25 times plus one 64 KiB
 * stage.  Both rates are measured in the same boot, so a slow or loaded
 * host moves both.  Under TCG the guest's timer fires about once a
 * millisecond whatever period it asks: before the generator owed a late
 * tick up to 5 ms, a rate with a shorter period than that made about an
 * eighth of the unbounded rate (two 4 KiB quanta a tick), and the bench
 * searched "lossless" rates below a ceiling that was the model's.
 */
#include <stdlib.h>

#include "model_common.h"

#define RUN_SECS	0.5

static struct mc_pace pace;

static void restore(void)
{
	mc_param("model_rate", "0");
	mc_param("model_burst", "0");
	mc_pace_restore(&pace);
}

/* Bytes per second the model wrote while tracing CPU 0. */
static double run(int fd, const char *what)
{
	struct mc_window w = { .secs = RUN_SECS };
	struct mc_trace t;

	mc_run(fd, mc_idle, &w, &t);
	free(t.buf);
	REQUIRE(w.w0 >= 0 && w.w1 >= w.w0 && w.t1 > w.t0, "%s: bytes_written",
		what);
	CHECK(!(t.st.flags & (PT_STATUS_HW_ERROR | PT_STATUS_HW_STOPPED)),
	      "%s: hw flags %#x", what, t.st.flags);
	return (w.w1 - w.w0) / (w.t1 - w.t0);
}

int main(void)
{
	struct pt_trace_caps caps;
	double ceiling, made, asked;
	char val[32];
	int fd;

	if (getenv("PTT_PROFILE") && strcmp(getenv("PTT_PROFILE"), "icl"))
		SKIP("the rate path is the same on every profile: icl only");
	mc_pace_save(&pace);
	atexit(restore);
	fd = mc_open(&caps);
	mc_set_ctl(fd, PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS);
	REQUIRE(mc_param("model_period_us", "10") == 0, "model_period_us");
	REQUIRE(mc_param("model_tick_bytes", "65536") == 0, "model_tick_bytes");
	REQUIRE(mc_param("model_burst", "1") == 0, "model_burst");
	ceiling = run(fd, "unbounded");
	asked = 0.8 * ceiling;
	snprintf(val, sizeof(val), "%.0f", asked);
	REQUIRE(mc_param("model_rate", val) == 0, "model_rate=%s", val);
	made = run(fd, "rate");
	printf("PTT-INFO unbounded %.1f MB/s; asked %.1f MB/s, made %.1f MB/s (%.2f)\n",
	       ceiling / 1e6, asked / 1e6, made / 1e6, made / asked);
	CHECK(made >= 0.5 * asked,
	      "model_rate=%s made %.1f MB/s, under half the rate", val,
	      made / 1e6);
	CHECK(made <= 1.25 * asked + 65536 / RUN_SECS,
	      "model_rate=%s made %.1f MB/s, over the rate", val, made / 1e6);
	close(fd);
	return ptt_done();
}
