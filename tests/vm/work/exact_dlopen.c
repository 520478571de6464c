// SPDX-License-Identifier: GPL-2.0
/*
 * The program of exact_filter_dlopen: a second thread loads libipt.so.2
 * (a library the initramfs carries for the tests; not linked here) with
 * dlopen and calls its pt_library_version() DLOPEN_CALLS times, while
 * the first thread waits in pthread_join: only the second thread makes
 * system calls then.  With an argument it loads nothing.  Prints
 * "exact_dlopen N" at its end, N the sum of the versions' minor numbers.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <intel-pt.h>

#define DLOPEN_CALLS 3

static void *dl_thread(void *arg)
{
	struct pt_version (*version)(void);
	long *sum = arg;
	void *h;
	int i;

	h = dlopen("libipt.so.2", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "exact_dlopen: %s\n", dlerror());
		return NULL;
	}
	*(void **)&version = dlsym(h, "pt_library_version");
	for (i = 0; version && i < DLOPEN_CALLS; i++)
		*sum += version().minor + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long sum = 0;

	(void)argv;
	if (argc == 1 && pthread_create(&t, NULL, dl_thread, &sum) == 0)
		pthread_join(t, NULL);
	printf("exact_dlopen %ld\n", sum);
	return 0;
}
