/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address space and image a decoder decodes a process's code with:
 * the shared address spaces (decode_aspace.h) used under a lock in a
 * decode --jobs worker, which decodes with its own copies of the images.
 */
#ifndef PT_TRACE_DECODE_IMAGE_H
#define PT_TRACE_DECODE_IMAGE_H

#include <intel-pt.h>

#include "decode_ctx.h"

/* das_use(), under the lock in a --jobs worker. */
struct das_proc *decode_use(struct decode_ctx *c, struct das_proc *p);

/* das_find_at() and decode_use() at once. */
struct das_proc *decode_use_at(struct decode_ctx *c, int pid,
			       uint64_t tsc);

/*
 * The image to decode @p's code with: its own, or a --jobs worker's copy
 * (made on first use); NULL (libipt's empty image) when out of memory.
 */
struct pt_image *decode_image(struct decode_ctx *c,
			      const struct das_proc *p);

/* A worker's copies freed. */
void decode_images_free(struct decode_ctx *c);

#endif /* PT_TRACE_DECODE_IMAGE_H */
