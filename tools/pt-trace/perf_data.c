// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer (see perf_data.h).  The layout: the file header, the
 * attribute with the file section of its ids, the ids, then the data
 * section; after the data the feature sections, of which only
 * HEADER_BUILD_ID (perf reads a file without the others).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "perf_data.h"

#define PDW_MAGIC	0x32454c4946524550ULL	/* "PERFILE2" */

/* perf's feature bit numbers (tools/perf/util/header.h) */
#define PDW_HEADER_BUILD_ID	2
/* perf_event_header.misc: the entry's build-id size byte is valid */
#define PDW_MISC_BUILD_ID_SIZE	BIT(15)
/* perf pads a build-id entry's file name to this */
#define PDW_NAME_ALIGN		64
/* perf's HOST_KERNEL_ID: the entry is the host machine's */
#define PDW_HOST_PID		UINT32_MAX

/*
 * perf's struct perf_record_header_build_id (36 bytes, no padding), then
 * the NUL-padded name
 */
struct pdw_build_id {
	struct perf_event_header h;
	uint32_t pid;
	uint8_t id[20];
	uint8_t size;
	uint8_t reserved[3];
};

struct pdw_section {
	uint64_t offset, size;
};

struct pdw_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct pdw_section attrs;
	struct pdw_section data;
	struct pdw_section event_types;
	uint64_t features[4];
};

struct pdw_file_attr {
	struct perf_event_attr attr;
	struct pdw_section ids;
};

static void pdw_write(struct pdw *w, const void *p, size_t len)
{
	if (!w->error && len && fwrite(p, len, 1, w->f) != 1)
		w->error = errno ? errno : EIO;
}

int pdw_open(struct pdw *w, const char *path,
	     const struct perf_event_attr *attr, uint64_t id)
{
	struct pdw_file_header h;
	struct pdw_file_attr fa;

	memset(w, 0, sizeof(*w));
	w->path = path;
	w->id = id;
	w->f = fopen(path, "wb");
	if (!w->f)
		return -errno;
	memset(&h, 0, sizeof(h));
	memset(&fa, 0, sizeof(fa));
	fa.attr = *attr;
	fa.attr.size = sizeof(fa.attr);
	fa.ids.offset = sizeof(h) + sizeof(fa);
	fa.ids.size = sizeof(id);
	/* The header is written again at the end, with the data's size. */
	pdw_write(w, &h, sizeof(h));
	pdw_write(w, &fa, sizeof(fa));
	pdw_write(w, &id, sizeof(id));
	w->data_offset = fa.ids.offset + sizeof(id);
	return -w->error;
}

void pdw_record(struct pdw *w, uint32_t type, uint16_t misc,
		const void *body, size_t len, const struct pdw_who *who)
{
	struct perf_event_header h = {
		.type = type,
		.misc = misc,
		.size = (uint16_t)(sizeof(h) + len + (who ? PDW_TRAILER_SIZE : 0)),
	};

	pdw_write(w, &h, sizeof(h));
	pdw_write(w, body, len);
	w->data_size += sizeof(h) + len;
	if (who) {
		/* PERF_SAMPLE_TID, TIME, CPU (and its reserved half), IDENTIFIER */
		uint64_t t[4] = {
			who->pid | (uint64_t)who->tid << 32,
			who->time,
			who->cpu,
			w->id,
		};

		pdw_write(w, t, sizeof(t));
		w->data_size += sizeof(t);
	}
}

void pdw_bytes(struct pdw *w, const void *data, size_t len)
{
	static const uint8_t zero[8];

	pdw_write(w, data, len);
	pdw_write(w, zero, (8 - (len & 7)) & 7);
	w->data_size += (len + 7) & ~(size_t)7;
}

void pdw_build_id(struct pdw *w, uint16_t misc, const uint8_t *id,
		  size_t size, const char *name)
{
	size_t nlen = strlen(name), len, at;
	struct pdw_build_id e;
	uint8_t *p;

	/* one entry per file: the first one given */
	for (at = 0; at < w->build_ids_len; at += e.h.size) {
		memcpy(&e, w->build_ids + at, sizeof(e));
		if (!strcmp((const char *)w->build_ids + at + sizeof(e), name))
			return;
	}
	len = (nlen + PDW_NAME_ALIGN) & ~(size_t)(PDW_NAME_ALIGN - 1);
	if (!size || size > sizeof(e.id) || sizeof(e) + len > UINT16_MAX)
		return;
	p = realloc(w->build_ids, w->build_ids_len + sizeof(e) + len);
	if (!p) {
		if (!w->error)
			w->error = ENOMEM;
		return;
	}
	w->build_ids = p;
	memset(&e, 0, sizeof(e));
	e.h.type = 0;
	e.h.misc = misc | PDW_MISC_BUILD_ID_SIZE;
	e.h.size = (uint16_t)(sizeof(e) + len);
	e.pid = PDW_HOST_PID;
	memcpy(e.id, id, size);
	e.size = (uint8_t)size;
	p += w->build_ids_len;
	memcpy(p, &e, sizeof(e));
	memset(p + sizeof(e), 0, len);
	memcpy(p + sizeof(e), name, nlen);
	w->build_ids_len += sizeof(e) + len;
}

/*
 * The feature sections start right after the data: a table of one
 * (offset, size) per feature bit set, in bit order, then their bytes.
 */
static void pdw_features(struct pdw *w, uint64_t *features)
{
	struct pdw_section s;

	if (!w->build_ids_len)
		return;
	features[0] |= BIT_ULL(PDW_HEADER_BUILD_ID);
	s.offset = w->data_offset + w->data_size + sizeof(s);
	s.size = w->build_ids_len;
	pdw_write(w, &s, sizeof(s));
	pdw_write(w, w->build_ids, w->build_ids_len);
}

int pdw_close(struct pdw *w)
{
	struct pdw_file_header h = {
		.magic = PDW_MAGIC,
		.size = sizeof(h),
		.attr_size = sizeof(struct pdw_file_attr),
		.attrs = { sizeof(h), sizeof(struct pdw_file_attr) },
		.data = { w->data_offset, w->data_size },
	};

	pdw_features(w, h.features);
	free(w->build_ids);
	w->build_ids = NULL;
	if (!w->error && fseek(w->f, 0, SEEK_SET))
		w->error = errno;
	pdw_write(w, &h, sizeof(h));
	if (fclose(w->f) && !w->error)
		w->error = errno ? errno : EIO;
	return -w->error;
}
