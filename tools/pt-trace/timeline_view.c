// SPDX-License-Identifier: GPL-2.0
/*
 * decode --open: show the --timeline file just written in a viewer on
 * this machine.  speedscope (an npm package: it serves the file to the
 * browser from this machine, nothing is uploaded) when it is on PATH;
 * else what to do, said on stderr: install it, or load the file into
 * ui.perfetto.dev or chrome://tracing by hand (both read it locally).
 * Nothing here touches the network by itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decode_out.h"
#include "tool.h"

/* The first executable @name in $PATH, into @out: 0 or -ENOENT. */
static int tv_which(const char *name, char *out, size_t len)
{
	const char *p = getenv("PATH");

	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name);
		if (!access(out, X_OK))
			return 0;
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

int tl_view(const char *path)
{
	char exe[PATH_MAX];
	int status;
	pid_t pid;

	if (tv_which("speedscope", exe, sizeof(exe))) {
		fprintf(stderr,
			"pt-trace decode: --open: no speedscope on PATH; to view %s:\n"
			"  npm install -g speedscope && speedscope %s\n"
			"  (or without installing: npx speedscope %s)\n"
			"  or open https://ui.perfetto.dev (or chrome://tracing) in a browser\n"
			"  and load the file there (\"Open trace file\"; it is read locally)\n",
			path, path, path);
		return 0;
	}
	fprintf(stderr, "pt-trace decode: --open: %s %s\n", exe, path);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ptt_err("--open: cannot start %s: %s", exe, strerror(errno));
		return PTT_EXIT_INTERNAL;
	}
	if (!pid) {
		execl(exe, "speedscope", path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		ptt_warn("--open: %s %s failed; open the file in ui.perfetto.dev instead",
			 exe, path);
	}
	return 0;
}
