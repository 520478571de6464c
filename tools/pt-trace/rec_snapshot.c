// SPDX-License-Identifier: GPL-2.0
/*
 * record -S: flight recorders whose newest data is written to
 * DIR/snapshot.K/ at each SIGUSR2 and at the end (rec_snapshot.h): each
 * CPU's cpuN.pt and, with --bts, its cpuN.bts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_ring.h"
#include "rec_snapshot.h"
#include "tool.h"
#include "vmx_info.h"

/* @n recorders' outputs: DIR/snapshot.K/cpuN.pt (or .bts). */
static int rec_snapshot_open(struct rec_cpu *rcs, int n, const char *dir)
{
	char path[4400];
	int i;

	for (i = 0; i < n; i++) {
		if (rcs[i].out >= 0)
			close(rcs[i].out);
		rcs[i].written = 0;
		snprintf(path, sizeof(path), "%s/cpu%d.%s", dir, rcs[i].cpu,
			 rcs[i].bts ? "bts" : "pt");
		rcs[i].out = open(path, O_WRONLY | O_CREAT | O_TRUNC |
				  O_CLOEXEC, 0644);
		if (rcs[i].out < 0) {
			ptt_err("cannot create %s: %s", path, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/*
 * Open DIR/snapshot.K/cpuN.pt (and --bts's cpuN.bts) as each CPU's
 * output, closing the last.
 */
int rec_snapshot_files(struct rec_cpu *rcs, int n, struct rec_run *run,
		       const struct rec_opts *o, int k)
{
	char dir[4096], path[4400];
	struct dirent *d;
	DIR *top;

	snprintf(dir, sizeof(dir), "%s/snapshot.%d", o->outdir, k);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ptt_err("cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	/* The recording's sideband files, for dump and decode there. */
	top = opendir(o->outdir);
	while (top && (d = readdir(top))) {
		char target[300];

		if (d->d_type != DT_REG || !strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(target, sizeof(target), "../%s", d->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (symlink(target, path) && errno != EEXIST)
			ptt_warn("%s: %s", path, strerror(errno));
	}
	if (top)
		closedir(top);
	return rec_snapshot_open(rcs, n, dir) ?:
	       rec_snapshot_open(run->bts, run->nbts, dir);
}

/*
 * @n recorders (PT's or --bts's) into the snapshot's files; @bytes
 * counts what they wrote.  Stopped already.
 */
static int rec_snapshot_read(struct rec_cpu *rcs, int n, struct rec_run *run,
			     const struct rec_opts *o, uint64_t *bytes)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = ptdev_get_status(rcs[i].fd, &rcs[i].status);
		if (err) {
			ptt_err("cpu %d: snapshot %d: %s GET_STATUS: %s; the recording ends here",
				rcs[i].cpu, run->snaps, rec_src(&rcs[i]),
				strerror(-err));
			return err;
		}
		err = rec_flight_read(&rcs[i]);
		if (err) {
			ptt_err("cpu %d: snapshot %d: writing the trace into %s/snapshot.%d/: %s; the recording ends here",
				rcs[i].cpu, run->snaps, o->outdir, run->snaps,
				strerror(err < 0 ? -err : EIO));
			return err;
		}
		*bytes += rcs[i].written;
	}
	return 0;
}

/* START again after a snapshot; 0 or the first error (said). */
static int rec_snapshot_start(struct rec_cpu *rcs, int n)
{
	int i, err;

	for (i = 0; i < n; i++) {
		const char *vmx;

		err = ptdev_start(rcs[i].fd);
		if (!err)
			continue;
		vmx = rcs[i].bts ? NULL :
		      vmx_info_start_why(rcs[i].fd, rcs[i].cpu, err);
		ptt_err("cpu %d: %s START after the snapshot: %s", rcs[i].cpu,
			rec_src(&rcs[i]), vmx ? vmx :
			ptdev_why(err, rcs[i].cpu, PTDEV_START));
		return err;
	}
	return 0;
}

/*
 * -S on SIGUSR2: the newest data of every CPU into DIR/snapshot.K/.  The
 * trace units stop while it is copied (a flight buffer read while it
 * runs could be overwritten under the copy) and start again after.
 */
int rec_snapshot(struct rec_cpu *rcs, int n, const struct rec_opts *o,
		 struct rec_run *run)
{
	uint64_t bytes = 0;
	int i, err;

	for (i = 0; i < n; i++)
		ptdev_stop(rcs[i].fd);
	for (i = 0; i < run->nbts; i++)
		ptdev_stop(run->bts[i].fd);
	err = rec_snapshot_files(rcs, n, run, o, ++run->snaps);
	err = err ?: rec_snapshot_read(rcs, n, run, o, &bytes);
	err = err ?: rec_snapshot_read(run->bts, run->nbts, run, o, &bytes);
	err = err ?: rec_snapshot_start(rcs, n);
	err = err ?: rec_snapshot_start(run->bts, run->nbts);
	if (!err)
		fprintf(stderr, "snapshot %d: %llu bytes on %d cpu(s) into %s/snapshot.%d/\n",
			run->snaps, (unsigned long long)bytes, n, o->outdir,
			run->snaps);
	return err;
}
