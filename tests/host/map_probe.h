/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTT_HOST_MAP_PROBE_H
#define PTT_HOST_MAP_PROBE_H

/* map_probe_code.S: getppid() by a syscall, after a call and a jz. */
long map_probe(void);

#endif
