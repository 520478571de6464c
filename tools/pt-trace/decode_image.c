// SPDX-License-Identifier: GPL-2.0
/*
 * decode's use of the address spaces: das_use() (building a process's
 * image on first use) under a lock in decode --jobs workers, and each
 * worker's own copies of the images, since one libipt image is not for
 * several decoders at once.
 */
#include <pthread.h>
#include <stdlib.h>

#include "decode_image.h"
#include "tool.h"

/*
 * decode --jobs: das_use() builds images in the shared address spaces.
 * Its warnings (a binary missing or changed) come once, from the first
 * piece that uses the image: they go to stderr at once, not with that
 * piece's messages (decode_par.c), which are dropped when it is decoded
 * again (and the image is built then).
 */
static pthread_mutex_t decode_das_lock = PTHREAD_MUTEX_INITIALIZER;

struct das_proc *decode_use(struct decode_ctx *c, struct das_proc *p)
{
	struct ptt_msgs *m;

	if (!c->worker)
		return das_use(c->asp, p);
	pthread_mutex_lock(&decode_das_lock);
	m = ptt_msgs_to(NULL);
	p = das_use(c->asp, p);
	ptt_msgs_to(m);
	pthread_mutex_unlock(&decode_das_lock);
	return p;
}

/* das_find_at() and decode_use() at once (under the lock in a worker). */
struct das_proc *decode_use_at(struct decode_ctx *c, int pid,
			       uint64_t tsc)
{
	struct das_proc *p;

	struct ptt_msgs *m;

	if (!c->worker)
		return das_use(c->asp, das_find_at(c->asp, pid, tsc));
	pthread_mutex_lock(&decode_das_lock);
	m = ptt_msgs_to(NULL);
	p = das_use(c->asp, das_find_at(c->asp, pid, tsc));
	ptt_msgs_to(m);
	pthread_mutex_unlock(&decode_das_lock);
	return p;
}

/*
 * The image to decode @p's code with: its own, or in a --jobs worker a
 * copy of it (libipt's image is not for several decoders at once), made
 * on first use.  NULL (libipt's empty image) when out of memory.
 */
struct pt_image *decode_image(struct decode_ctx *c,
			      const struct das_proc *p)
{
	struct decode_img *n;
	struct pt_image *img;
	size_t i;

	if (!c->worker)
		return p->image;
	for (i = 0; i < c->nimgs; i++)
		if (c->imgs[i].p == p)
			return c->imgs[i].image;
	n = realloc(c->imgs, (c->nimgs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	c->imgs = n;
	img = pt_image_alloc(NULL);
	pthread_mutex_lock(&decode_das_lock);
	if (img && pt_image_copy(img, p->image) < 0) {
		pt_image_free(img);
		img = NULL;
	}
	pthread_mutex_unlock(&decode_das_lock);
	if (!img)
		return NULL;
	c->imgs[c->nimgs].p = p;
	c->imgs[c->nimgs++].image = img;
	return img;
}

void decode_images_free(struct decode_ctx *c)
{
	while (c->nimgs)
		pt_image_free(c->imgs[--c->nimgs].image);
	free(c->imgs);
	c->imgs = NULL;
}
