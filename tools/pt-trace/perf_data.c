// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer (see perf_data.h).  The layout: the file header, the
 * attribute with the file section of its ids, the ids, then the data
 * section; no feature sections (perf reads a file without them).
 */
#include <errno.h>
#include <string.h>

#include "perf_data.h"

#define PDW_MAGIC	0x32454c4946524550ULL	/* "PERFILE2" */

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

int pdw_close(struct pdw *w)
{
	struct pdw_file_header h = {
		.magic = PDW_MAGIC,
		.size = sizeof(h),
		.attr_size = sizeof(struct pdw_file_attr),
		.attrs = { sizeof(h), sizeof(struct pdw_file_attr) },
		.data = { w->data_offset, w->data_size },
	};

	if (!w->error && fseek(w->f, 0, SEEK_SET))
		w->error = errno;
	pdw_write(w, &h, sizeof(h));
	if (fclose(w->f) && !w->error)
		w->error = errno ? errno : EIO;
	return -w->error;
}
