// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files for decoding, through elfutils: libelf for the PT_LOAD
 * segments that go into the libipt image, libdwfl for names and lines
 * (it finds .gnu_debugdata and separate debug info by build-id, and
 * debuginfod when the user allows it), libiberty for C++ names.
 *
 * Every decoded instruction asks for its symbol, so lookups are cached:
 * an exact-IP cache in front of libdwfl (hot code repeats its IPs), then
 * libdwfl's answer by span of addresses where it cannot change (struct
 * ei_spans: it reads all the module's symbols each time), and each
 * symbol is made once (demangled) and kept until the table is freed, so
 * names may be kept by callers (the timeline's call stack).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <libiberty/demangle.h>

#include "elf_image.h"
#include "elf_plt.h"
#include "kernel_syms.h"
#include "tool.h"
#include "zstd_unpack.h"

#define EI_CACHE_SLOTS	65536u
#define EI_SYMS_MIN	1024u

/*
 * elfutils' types, named by the functions that return them: their own
 * names are CamelCase, which checkpatch --strict refuses in this tree.
 */
#define ei_elf		__typeof__(elf_begin(0, ELF_C_NULL, NULL))
#define ei_ehdr		__typeof__(*gelf_getehdr(NULL, NULL))
#define ei_phdr		__typeof__(*gelf_getphdr(NULL, 0, NULL))
#define ei_sym		__typeof__(*gelf_getsym(NULL, 0, NULL))
#define ei_dwfl		__typeof__(dwfl_begin((void *)1))
#define ei_module	__typeof__(dwfl_addrmodule(NULL, 0))
#define ei_line		__typeof__(dwfl_module_getsrc(NULL, 0))
#define ei_die		__typeof__(*dwfl_module_addrdie(NULL, 0, (void *)1))
#define ei_data		__typeof__(*elf_getdata_rawchunk(NULL, 0, 0, ELF_T_BYTE))
#define ei_attr		__typeof__(*dwarf_attr_integrate((void *)1, 0, (void *)1))
#define ei_shdr		__typeof__(*gelf_getshdr(NULL, NULL))
#define ei_scn		__typeof__(elf_nextscn(NULL, NULL))

/* One ELF file open with libelf, with its size for range checks. */
struct ei_file {
	int fd;
	ei_elf elf;
	void *mem;		/* the unpacked bytes of a .ko.zst, or NULL */
	size_t phnum;
	uint64_t size;
};

struct ei_cache_slot {
	uint64_t ip;
	const struct elf_sym *sym;	/* &ei_nosym: no symbol there */
};

/*
 * elf_symtab_line()'s answers by exact IP: a hot loop's lines are asked
 * for again and again, and the inlined function's lookup walks the CU's
 * DIEs (dwarf_getscopes), slow on a kernel module's large CUs.
 */
#define EI_LINE_SLOTS	4096u

struct ei_line_slot {
	uint64_t ip;
	const char *file;	/* libdw's, lives as long as the session */
	char *inlined;		/* own copy, or NULL */
	int line;
	int used;
};

/*
 * A module's answers by span.  dwfl_module_addrinfo() reads every symbol
 * of the module each time (1500 symbols of a static libc program: ~0.5 M
 * instructions a call, ~25 ms a call under QEMU TCG), and a trace meets
 * thousands of IPs.  Its answer for an address depends only on which
 * symbols start at or below it, which of those still cover it
 * (st_size), whether it is some symbol's own address (SHN_ABS and
 * sizeless ones may match only there), and which section it lies in: it
 * changes only at a symbol's address, its end, a sizeless or SHN_ABS
 * (etc.) symbol's address plus 1, or a section's start or end.
 * Between two such points (a span) it is the same, and it is asked once
 * per span.  @at: the points, sorted and distinct; @sym[i]: the answer
 * for [@at[i], @at[i + 1]) once asked (NULL: not yet; &ei_nosym: none).
 */
struct ei_spans {
	ei_module mod;
	uint64_t *at;
	const struct elf_sym **sym;
	size_t n;
	int usable;		/* 0: ET_REL or no memory, ask libdwfl */
	struct elf_plt_ent *plt;	/* its PLT entries (elf_plt.h) */
	size_t nplt;
	struct ei_spans *next;
};

struct elf_symcache {
	struct ei_cache_slot slot[EI_CACHE_SLOTS];
	struct ei_line_slot lines[EI_LINE_SLOTS];
	/* symbols made so far, open addressing by start address */
	struct elf_sym **syms;
	size_t nsyms, cap;
	struct ei_spans *spans;	/* one per module asked about */
};

static const struct elf_sym ei_nosym;

/*
 * decode's threads (decode --jobs) share the tables: libdwfl is not
 * thread-safe and the caches are shared, so every lookup that goes past
 * a thread's own exact-IP cache takes this lock.  Uncontended with one
 * thread; with several, hot code is answered from each thread's cache.
 */
static pthread_mutex_t ei_lock = PTHREAD_MUTEX_INITIALIZER;
#define EI_TLS_SLOTS	4096u

struct ei_tls_slot {
	const struct elf_symtab *st;
	uint64_t ip;
	const struct elf_sym *sym;
};

static __thread struct ei_tls_slot ei_tls[EI_TLS_SLOTS];

/*
 * The zstd-compressed ELF file open on @fd, unpacked into *@mem (NULL
 * when it is not one): for elfutils older than 0.189, which cannot.
 */
static ei_elf ei_elf_zstd(int fd, void **mem)
{
	ei_elf e = NULL;
	size_t len;

	*mem = NULL;
	if (zstd_unpack(fd, mem, &len))
		return NULL;
	e = elf_memory(*mem, len);
	if (!e) {
		free(*mem);
		*mem = NULL;
	}
	return e;
}

/*
 * @path's ELF.  With @unpack a compressed file too (Debian's modules are
 * .ko.xz, Ubuntu's .ko.zst): elfutils' dwelf_elf_begin() unpacks it into
 * memory, with the formats its build supports (Debian's 0.188: gzip,
 * bzip2, xz), and zstd_unpack() what is left.  Then f->fd and f->size
 * are the compressed file's: for its sections only, not for offsets
 * into the file.
 */
static int ei_open_elf(struct ei_file *f, const char *path, int unpack)
{
	struct stat sb;
	ei_ehdr eh;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(f->fd);
		f->fd = -1;
		return S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
	}
	f->size = (uint64_t)sb.st_size;
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (unpack && f->elf && elf_kind(f->elf) != ELF_K_ELF) {
		elf_end(f->elf);
		f->elf = dwelf_elf_begin(f->fd);
		if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
			elf_end(f->elf);
			f->elf = ei_elf_zstd(f->fd, &f->mem);
		}
	}
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    elf_getphdrnum(f->elf, &f->phnum))
		return -ENOEXEC;	/* f->fd and f->size stay usable */
	return 0;
}

static int ei_open(struct ei_file *f, const char *path)
{
	return ei_open_elf(f, path, 0);
}

static void ei_close(struct ei_file *f)
{
	elf_end(f->elf);
	free(f->mem);
	if (f->fd >= 0)
		close(f->fd);
}

/* The i-th program header if it is a PT_LOAD with bytes in the file. */
static int ei_load(const struct ei_file *f, size_t i, ei_phdr *ph)
{
	return gelf_getphdr(f->elf, (int)i, ph) && ph->p_type == PT_LOAD &&
	       ph->p_filesz;
}

int elf_image_build_id(const char *path, uint8_t *id, size_t max)
{
	struct ei_file f;
	const void *p;
	ssize_t n;
	int err = ei_open_elf(&f, path, 1);

	if (err) {
		if (f.fd >= 0)		/* -ENOEXEC: the file stays open */
			ei_close(&f);
		return err;
	}
	n = dwelf_elf_gnu_build_id(f.elf, &p);
	if (n <= 0)
		err = -ENODATA;
	else
		err = (int)((size_t)n < max ? (size_t)n : max);
	if (err > 0)
		memcpy(id, p, (size_t)err);
	ei_close(&f);
	return err;
}

int elf_image_min_vaddr(const char *path, uint64_t *vaddr)
{
	struct ei_file f;
	ei_phdr ph;
	size_t i;
	int err = ei_open(&f, path);

	*vaddr = UINT64_MAX;
	for (i = 0; !err && i < f.phnum; i++)
		if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < *vaddr)
			*vaddr = ph.p_vaddr & ~0xfffULL;
	if (f.fd >= 0)
		ei_close(&f);
	if (err)
		return err;
	return *vaddr == UINT64_MAX ? -ENOEXEC : 0;
}

#define ei_scn		__typeof__(elf_nextscn(NULL, NULL))
#define ei_shdr		__typeof__(*gelf_getshdr(NULL, NULL))

int elf_image_symbol(const char *path, const char *name, uint64_t *addr)
{
	struct ei_file f;
	int err = ei_open(&f, path), found = 0;
	ei_scn scn = NULL;

	while (!err && !found && (scn = elf_nextscn(f.elf, scn))) {
		ei_data *d = elf_getdata(scn, NULL);
		ei_shdr sh;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !d || !sh.sh_entsize)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n && !found; i++) {
			ei_sym sym;
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			s = elf_strptr(f.elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name) && sym.st_shndx != SHN_UNDEF) {
				*addr = sym.st_value;
				found = 1;
			}
		}
	}
	if (f.fd >= 0)
		ei_close(&f);
	return err ? err : found ? 0 : -ENOENT;
}

/*
 * libdwfl asks for the file of a module by the name it was reported
 * with: its path.
 */
static int ei_find_elf(ei_module mod, void **user, const char *name,
		       uint64_t base, char **file_name, ei_elf *elfp)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	void *mem;

	(void)mod;
	(void)user;
	(void)base;
	*elfp = NULL;
	if (fd < 0)
		return fd;
	*file_name = strdup(name);
	/*
	 * A .ko.zst: libdwfl takes the Elf of its unpacked bytes and ends
	 * it with the session; the bytes stay until exit (a few modules).
	 */
	*elfp = ei_elf_zstd(fd, &mem);
	return fd;
}

/*
 * Kernel modules (.ko, ET_REL) reported with elf_image_add_kmod(): where
 * each of their sections was loaded, by the path they were reported
 * under (libdwfl's module name).  Shared by every table: there is one
 * kernel.
 */
struct ei_kmod {
	char *path;
	char *sections;		/* " SECTION ADDR" ..., as recorded */
};

static struct ei_kmod *ei_kmods;
static size_t ei_nkmods;

/* The recorded address of section @sec in @sections: 0 or -ENOENT. */
static int ei_kmod_section(const char *sections, const char *sec,
			   uint64_t *addr)
{
	size_t n = strlen(sec);
	const char *p = sections;

	while ((p = strstr(p, sec))) {
		if (p > sections && p[-1] == ' ' && p[n] == ' ') {
			*addr = strtoull(p + n + 1, NULL, 16);
			return 0;
		}
		p += n;
	}
	return -ENOENT;
}

/*
 * libdwfl asks where an ET_REL file's section was put: a module's from
 * its recorded sections (one not recorded was not loaded: -1), any other
 * file's as libdwfl lays out offline files.
 */
static int ei_section_address(ei_module mod, void **user, const char *name,
			      uint64_t base, const char *secname,
			      uint32_t shndx, const void *shdr, uint64_t *addr)
{
	size_t i;

	for (i = 0; i < ei_nkmods; i++) {
		if (strcmp(ei_kmods[i].path, name))
			continue;
		if (ei_kmod_section(ei_kmods[i].sections, secname, addr))
			*addr = (uint64_t)-1;
		return 0;
	}
	return dwfl_offline_section_address(mod, user, name, base, secname,
					    shndx, shdr, addr);
}

/* The libdwfl session of @st, made at the first file. */
static ei_dwfl ei_session(struct elf_symtab *st)
{
	/*
	 * libdwfl's callbacks (Dwfl_Callbacks, member for member): files
	 * by path, their debug info in the standard places.
	 */
	static const struct {
		void *find_elf, *find_debuginfo, *section_address;
		char **debuginfo_path;
	} callbacks = {
		.find_elf = (void *)ei_find_elf,
		.find_debuginfo = (void *)dwfl_standard_find_debuginfo,
		.section_address = (void *)ei_section_address,
	};

	if (st->dwfl)
		return st->dwfl;
	/*
	 * libdwfl asks the servers in DEBUGINFOD_URLS (Debian sets it for
	 * every login shell) for what is not on disk: network traffic and
	 * waits the user did not ask for.
	 */
	if (!st->debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	st->dwfl = dwfl_begin((const void *)&callbacks);
	if (st->dwfl)
		dwfl_report_begin(st->dwfl);
	return st->dwfl;
}

/*
 * @f's symbols and lines at load bias @bias: a module over its PT_LOAD
 * segments moved by @bias.  Reported by address range, not with
 * dwfl_report_elf(), which keeps an ET_EXEC file where it was linked:
 * --elf FILE:BASE may move any file (a kernel image, a copy of code).
 */
static void ei_report(struct elf_symtab *st, const struct ei_file *f,
		      const char *path, uint64_t bias, const char *as)
{
	uint64_t low = UINT64_MAX, high = 0;
	ei_dwfl dwfl = ei_session(st);
	ei_module mod;
	void **user;
	ei_phdr ph;
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_vaddr & ~0xfffULL) < low)
			low = ph.p_vaddr & ~0xfffULL;
		if (ph.p_vaddr + ph.p_memsz > high)
			high = ph.p_vaddr + ph.p_memsz;
	}
	/* Without it (no memory, a clash) addresses there stay unnamed. */
	if (!dwfl || low >= high)
		return;
	mod = dwfl_report_module(dwfl, path, low + bias, high + bias);
	/*
	 * The name its symbols give as their file, when not the path's
	 * (libdwfl opens the module by its name, the path): the module's
	 * user data, which only ET_REL files' section callback reads.
	 */
	if (mod && as &&
	    dwfl_module_info(mod, &user, NULL, NULL, NULL, NULL, NULL, NULL))
		*user = (void *)as;
}

/* The file @mod's symbols name: its own name (ei_report()'s @as) or base name. */
static const char *ei_dso_name(ei_module mod, uint64_t *lo, uint64_t *hi)
{
	const char *name, *slash;
	void **user = NULL;

	name = dwfl_module_info(mod, &user, lo, hi, NULL, NULL, NULL, NULL);
	if (user && *user)
		return *user;
	if (!name)
		return NULL;
	slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

int elf_image_add_kmod(struct elf_symtab *st, const char *path,
		       const char *sections)
{
	uint64_t low = UINT64_MAX, high = 0, a;
	struct ei_kmod *k;
	struct ei_file f;
	ei_scn scn = NULL;
	size_t shstrndx;
	ei_dwfl dwfl;
	int err = ei_open_elf(&f, path, 1);

	if (!err && elf_getshdrstrndx(f.elf, &shstrndx))
		err = -ENOEXEC;
	/* its code's range: the executable sections where they were put */
	while (!err && (scn = elf_nextscn(f.elf, scn))) {
		const char *sec;
		ei_shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR) || !sh.sh_size)
			continue;
		sec = elf_strptr(f.elf, shstrndx, sh.sh_name);
		if (!sec || ei_kmod_section(sections, sec, &a))
			continue;
		if (a < low)
			low = a;
		if (a + sh.sh_size > high)
			high = a + sh.sh_size;
	}
	if (f.fd >= 0)
		ei_close(&f);
	if (err)
		return err;
	if (low >= high)
		return -ENOENT;
	k = realloc(ei_kmods, (ei_nkmods + 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	ei_kmods = k;
	k += ei_nkmods;
	k->path = strdup(path);
	if (asprintf(&k->sections, " %s ", sections) < 0)
		k->sections = NULL;
	if (!k->path || !k->sections) {
		free(k->path);
		free(k->sections);
		return -ENOMEM;
	}
	ei_nkmods++;
	dwfl = ei_session(st);
	if (!dwfl || !dwfl_report_module(dwfl, path, low, high))
		return -ENOMEM;
	return 0;
}

int elf_image_add(struct pt_image *image, struct elf_symtab *st,
		  const char *path, uint64_t bias)
{
	struct ei_file f;
	int added = 0, err = ei_open(&f, path);
	ei_phdr ph;
	size_t i;

	for (i = 0; !err && i < f.phnum; i++) {
		if (!ei_load(&f, i, &ph))
			continue;
		if (ph.p_offset > f.size || ph.p_filesz > f.size - ph.p_offset) {
			err = -ENOEXEC;
			break;
		}
		if (pt_image_add_file(image, path, ph.p_offset, ph.p_filesz,
				      NULL, ph.p_vaddr + bias) < 0) {
			err = -EINVAL;
			break;
		}
		added++;
	}
	if (!err && st)
		ei_report(st, &f, path, bias, NULL);
	if (f.fd >= 0)
		ei_close(&f);
	return err ? err : added;
}

/*
 * The load bias a mapping of file offset @pgoff at @start implies: the
 * PT_LOAD segment that holds @pgoff says which p_vaddr that offset has.
 */
static int ei_map_bias(const struct ei_file *f, uint64_t start,
		       uint64_t pgoff, uint64_t *bias)
{
	ei_phdr ph;
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		if (!ei_load(f, i, &ph) ||
		    pgoff < (ph.p_offset & ~0xfffULL) ||
		    pgoff - ph.p_offset >= ph.p_filesz)
			continue;
		*bias = start - (ph.p_vaddr - ph.p_offset + pgoff);
		return 0;
	}
	return -ENOENT;
}

int elf_image_add_map(struct pt_image *image, struct elf_symtab *st,
		      const char *path, uint64_t start, uint64_t end,
		      uint64_t pgoff)
{
	return elf_image_add_map_as(image, st, path, NULL, start, end, pgoff);
}

int elf_image_add_map_as(struct pt_image *image, struct elf_symtab *st,
			 const char *path, const char *as, uint64_t start,
			 uint64_t end, uint64_t pgoff)
{
	struct ei_file f;
	uint64_t size, bias;
	int err = ei_open(&f, path), elf = !err;

	if (err == -ENOEXEC)	/* not ELF: its bytes, no symbols */
		err = 0;
	if (err)
		return err;
	if (end <= start || pgoff >= f.size) {
		err = -ERANGE;
		goto out;
	}
	/* The kernel maps whole pages; past the end of the file is SIGBUS. */
	size = end - start;
	if (size > f.size - pgoff)
		size = f.size - pgoff;
	if (pt_image_add_file(image, path, pgoff, size, NULL, start) < 0) {
		err = -EINVAL;
		goto out;
	}
	if (elf && st && !ei_map_bias(&f, start, pgoff, &bias))
		ei_report(st, &f, path, bias, as);
out:
	ei_close(&f);
	return err;
}

int elf_image_map_entry(const char *path, uint64_t start, uint64_t end,
			uint64_t pgoff, uint64_t *entry)
{
	struct ei_file f;
	uint64_t bias;
	ei_ehdr eh;
	int err = ei_open(&f, path);

	if (!err && (!gelf_getehdr(f.elf, &eh) ||
		     ei_map_bias(&f, start, pgoff, &bias)))
		err = -ENOENT;
	if (!err) {
		*entry = eh.e_entry + bias;
		if (*entry < start || *entry >= end)
			err = -ENOENT;
	}
	ei_close(&f);
	return err;
}

void elf_symtab_finish(struct elf_symtab *st)
{
	if (st->finished)
		return;
	st->finished = 1;
	if (st->dwfl)
		dwfl_report_end(st->dwfl, NULL, NULL);
	st->cache = calloc(1, sizeof(*st->cache));
	if (st->cache)
		memset(st->cache->slot, 0xff, sizeof(st->cache->slot));
}

static size_t ei_hash(uint64_t v, size_t mask)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 20) & mask;
}

/* Room for one more symbol in the open-addressed table. */
static int ei_syms_grow(struct elf_symcache *c)
{
	size_t cap = c->cap ? c->cap * 2 : EI_SYMS_MIN, i, j;
	struct elf_sym **n;

	if (2 * (c->nsyms + 1) <= c->cap)
		return 0;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++) {
		if (!c->syms[i])
			continue;
		for (j = ei_hash(c->syms[i]->addr, cap - 1); n[j];
		     j = (j + 1) & (cap - 1))
			;
		n[j] = c->syms[i];
	}
	free(c->syms);
	c->syms = n;
	c->cap = cap;
	return 0;
}

/* C++ names demangled, with their parameters as in perf and gdb. */
static char *ei_demangle(const char *name)
{
	char *d = NULL;

	if (name[0] == '_' && name[1] == 'Z')
		d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	return d ? d : strdup(name);
}

/* The symbol that starts at @start, made once. */
static const struct elf_sym *ei_sym_get(struct elf_symcache *c,
					ei_module mod, uint64_t start,
					uint64_t size, const char *name)
{
	const char *dso;
	struct elf_sym *s;
	size_t j;

	if (ei_syms_grow(c))
		return NULL;
	for (j = ei_hash(start, c->cap - 1); c->syms[j];
	     j = (j + 1) & (c->cap - 1))
		if (c->syms[j]->addr == start)
			return c->syms[j];
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->addr = start;
	s->size = size;
	s->name = ei_demangle(name);
	s->namelen = s->name ? strlen(s->name) : 0;
	dso = ei_dso_name(mod, NULL, NULL);
	s->dso = dso ? dso : "";
	if (!s->name) {
		free(s);
		return NULL;
	}
	c->syms[j] = s;
	c->nsyms++;
	return s;
}

static int ei_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Append @v to @sp->at (its capacity in *@cap); -ENOMEM. */
static int ei_spans_add(struct ei_spans *sp, size_t *cap, uint64_t v)
{
	uint64_t *n;

	if (sp->n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		n = realloc(sp->at, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sp->at = n;
	}
	sp->at[sp->n++] = v;
	return 0;
}

/*
 * Every section's start and end in @elf, at the addresses libdwfl gives
 * its symbols (@bias added), where dwfl_module_addrinfo()'s section
 * test changes.
 */
static int ei_spans_sections(struct ei_spans *sp, size_t *cap, ei_elf elf,
			     uint64_t bias)
{
	ei_scn scn = NULL;
	ei_shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (ei_spans_add(sp, cap, sh.sh_addr + bias) ||
		     ei_spans_add(sp, cap, sh.sh_addr + sh.sh_size + bias)))
			return -ENOMEM;
	return 0;
}

/* @sp's points, from every symbol and section of @mod. */
static void ei_spans_build(struct ei_spans *sp, ei_module mod)
{
	ei_elf elfs[4] = { NULL };
	uint64_t biases[4] = { 0 }, bias, addr, b;
	int i, j, nsyms, nelfs = 0;
	size_t cap = 0, k, n;
	ei_elf elf, main_elf;
	uint32_t shndx;
	ei_ehdr eh;
	ei_sym sym;

	main_elf = dwfl_module_getelf(mod, &b);
	nsyms = dwfl_module_getsymtab(mod);
	/*
	 * An ET_REL file's symbols are matched to sections another way
	 * (dwfl_module_relocate_address()): asked every time.
	 */
	if (!main_elf || !gelf_getehdr(main_elf, &eh) || eh.e_type == ET_REL ||
	    nsyms < 0)
		return;
	/* PLT entries: each its own span, named by ei_lookup() */
	if (elf_plt_entries(main_elf, b, &sp->plt, &sp->nplt))
		return;
	for (k = 0; k < sp->nplt; k++)
		if (ei_spans_add(sp, &cap, sp->plt[k].addr) ||
		    ei_spans_add(sp, &cap, sp->plt[k].addr + sp->plt[k].size))
			return;
	for (i = 0; i < nsyms; i++) {
		elf = NULL;
		b = 0;
		if (!dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf,
					     &b))
			continue;
		bias = b;
		if (ei_spans_add(sp, &cap, addr) ||
		    ((!sym.st_size || shndx >= SHN_LORESERVE) &&
		     ei_spans_add(sp, &cap, addr + 1)) ||
		    ei_spans_add(sp, &cap, addr + sym.st_size))
			return;
		for (j = 0; j < nelfs; j++)
			if (elfs[j] == elf && biases[j] == bias)
				break;
		if (j < nelfs)
			continue;
		if (nelfs == 4)	/* a module has at most two symbol files */
			return;
		elfs[nelfs] = elf;
		biases[nelfs++] = bias;
		if (elf && ei_spans_sections(sp, &cap, elf, bias))
			return;
	}
	if (ei_spans_sections(sp, &cap, main_elf, b))
		return;
	if (!sp->n)
		return;
	qsort(sp->at, sp->n, sizeof(*sp->at), ei_u64_cmp);
	for (k = 1, n = 1; k < sp->n; k++)
		if (sp->at[k] != sp->at[n - 1])
			sp->at[n++] = sp->at[k];
	sp->n = n;
	sp->sym = calloc(n, sizeof(*sp->sym));
	sp->usable = !!sp->sym;
}

/*
 * PLT entry @e's symbol, "NAME@plt" as objdump and perf print it (a C++
 * name demangled first).
 */
static const struct elf_sym *ei_plt_sym(struct elf_symcache *c, ei_module mod,
					const struct elf_plt_ent *e)
{
	const struct elf_sym *s;
	char *d = ei_demangle(e->name), *name;

	if (!d)
		return NULL;
	name = malloc(strlen(d) + sizeof("@plt"));
	if (name)
		sprintf(name, "%s@plt", d);
	free(d);
	if (!name)
		return NULL;
	s = ei_sym_get(c, mod, e->addr, e->size, name);
	free(name);
	return s;
}

/* @mod's spans, made the first time (NULL: out of memory). */
static struct ei_spans *ei_spans_get(struct elf_symcache *c, ei_module mod)
{
	struct ei_spans *sp;

	for (sp = c->spans; sp; sp = sp->next)
		if (sp->mod == mod)
			return sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->mod = mod;
	ei_spans_build(sp, mod);
	sp->next = c->spans;
	c->spans = sp;
	return sp;
}

/* The slot of @sp->sym for @addr's span, or NULL when none. */
static const struct elf_sym **ei_span_slot(struct ei_spans *sp, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!sp || !sp->usable || addr < sp->at[0])
		return NULL;
	hi = sp->n;
	while (hi - lo > 1) {	/* the last point at or below @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (sp->at[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &sp->sym[lo];
}

static const struct elf_sym *ei_lookup(const struct elf_symtab *st,
				       uint64_t addr)
{
	struct elf_symcache *c = st->cache;
	const struct elf_sym *s = &ei_nosym, **span;
	const struct elf_plt_ent *plt;
	struct ei_cache_slot *slot;
	struct ei_spans *sp;
	ei_module mod;
	const char *name;
	uint64_t off;
	ei_sym sym;

	if (!c || !st->dwfl)
		return NULL;
	slot = &c->slot[ei_hash(addr, EI_CACHE_SLOTS - 1)];
	if (slot->ip == addr)
		return slot->sym == &ei_nosym ? NULL : slot->sym;
	mod = dwfl_addrmodule(st->dwfl, addr);
	sp = mod ? ei_spans_get(c, mod) : NULL;
	span = ei_span_slot(sp, addr);
	plt = sp ? elf_plt_find(sp->plt, sp->nplt, addr) : NULL;
	if (span && *span) {
		s = *span;
	} else {
		name = mod && !plt ? dwfl_module_addrinfo(mod, addr, &off, &sym,
							  NULL, NULL, NULL) :
				     NULL;
		if (plt)
			s = ei_plt_sym(c, mod, plt);
		else if (name && name[0])
			s = ei_sym_get(c, mod, addr - off, sym.st_size, name);
		if (!s)
			return NULL;	/* out of memory: not cached */
		if (span)
			*span = s;
	}
	slot->ip = addr;
	slot->sym = s;
	return s == &ei_nosym ? NULL : s;
}

const struct elf_sym *elf_symtab_lookup(const struct elf_symtab *st,
					uint64_t addr)
{
	struct ei_tls_slot *t = &ei_tls[ei_hash(addr, EI_TLS_SLOTS - 1)];
	const struct elf_sym *s;

	if (st->ksyms && ksyms_kernel_ip(addr))
		return ksyms_lookup(st->ksyms, addr);	/* read-only */
	if (t->st == st && t->ip == addr)
		return t->sym;
	pthread_mutex_lock(&ei_lock);
	s = ei_lookup(st, addr);
	pthread_mutex_unlock(&ei_lock);
	t->st = st;
	t->ip = addr;
	t->sym = s;
	return s;
}

/*
 * elf_symtab_dso()'s last answer in this thread: the module's range and
 * its file's base name (libdwfl's string, as long as the session).
 */
static __thread struct {
	const struct elf_symtab *st;
	uint64_t lo, hi;
	const char *dso;
} ei_tls_dso;

const char *elf_symtab_dso(const struct elf_symtab *st, uint64_t addr)
{
	const char *name = NULL;
	uint64_t lo = 0, hi = 0;
	ei_module mod;

	if (st->ksyms && ksyms_kernel_ip(addr))
		return NULL;
	if (ei_tls_dso.st == st && addr >= ei_tls_dso.lo &&
	    addr < ei_tls_dso.hi)
		return ei_tls_dso.dso;
	if (!st->dwfl)
		return NULL;
	pthread_mutex_lock(&ei_lock);
	mod = dwfl_addrmodule(st->dwfl, addr);
	if (mod)
		name = ei_dso_name(mod, &lo, &hi);
	pthread_mutex_unlock(&ei_lock);
	if (!name || !name[0])
		return NULL;
	ei_tls_dso.st = st;
	ei_tls_dso.lo = lo;
	ei_tls_dso.hi = hi;
	ei_tls_dso.dso = name;
	return name;
}

/*
 * An inlined function's name as addr2line (LLVM's) and gdb give it: its
 * linkage name demangled ("ns::Counter::Counter(int)", not "Counter"),
 * found through DW_AT_abstract_origin; DW_AT_name when it has none (a
 * static function).  Kept in a per-thread buffer until the next call.
 */
static const char *ei_inlined_name(ei_die *die)
{
	static __thread char buf[256];
	const char *ln = NULL;
	ei_attr a;
	char *d;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		ln = dwarf_formstring(&a);
	if (!ln || ln[0] != '_' || ln[1] != 'Z')
		return dwarf_diename(die);
	d = cplus_demangle(ln, DMGL_PARAMS | DMGL_ANSI);
	if (!d)
		return dwarf_diename(die);
	snprintf(buf, sizeof(buf), "%s", d);
	free(d);
	return buf;
}

/* The innermost function inlined at @addr, from the DWARF scopes. */
static const char *ei_inlined(ei_module mod, uint64_t addr)
{
	ei_die *cu, *scopes = NULL;
	const char *name = NULL;
	uint64_t bias;
	int n, i;

	cu = dwfl_module_addrdie(mod, addr, &bias);
	if (!cu)
		return NULL;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (i = 0; i < n && !name; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			name = ei_inlined_name(&scopes[i]);
	free(scopes);
	return name;
}

int elf_symtab_line(const struct elf_symtab *st, uint64_t addr,
		    const char **file, int *line, const char **inlined)
{
	static __thread char buf[256];
	struct ei_line_slot *ls;
	ei_module mod;
	ei_line l;

	if (st->kernel && ksyms_kernel_ip(addr))
		return elf_symtab_line(st->kernel, addr, file, line, inlined);
	pthread_mutex_lock(&ei_lock);
	ls = st->cache ? &st->cache->lines[ei_hash(addr, EI_LINE_SLOTS - 1)] :
			 NULL;
	if (ls && ls->used && ls->ip == addr) {
		*file = ls->file;
		*line = ls->line;
		*inlined = NULL;
		if (ls->inlined) {
			snprintf(buf, sizeof(buf), "%s", ls->inlined);
			*inlined = buf;
		}
		pthread_mutex_unlock(&ei_lock);
		return *file ? 0 : -ENOENT;
	}
	mod = st->dwfl ? dwfl_addrmodule(st->dwfl, addr) : NULL;
	l = mod ? dwfl_module_getsrc(mod, addr) : NULL;
	*file = l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
	*inlined = *file ? ei_inlined(mod, addr) : NULL;
	if (ls) {
		free(ls->inlined);
		ls->ip = addr;
		ls->file = *file;
		ls->line = *file ? *line : 0;
		ls->inlined = *inlined ? strdup(*inlined) : NULL;
		ls->used = 1;
	}
	pthread_mutex_unlock(&ei_lock);
	return *file ? 0 : -ENOENT;
}

struct ei_find {
	const char *name;
	uint64_t start, end;
	int found;
};

/* One module of elf_symtab_find(): DWARF_CB_ABORT when found. */
static int ei_find_module(ei_module mod, void **user, const char *mname,
			  uint64_t base, void *arg)
{
	struct ei_find *f = arg;
	int i, n = dwfl_module_getsymtab(mod);
	uint64_t addr;
	ei_sym sym;

	(void)user;
	(void)mname;
	(void)base;
	for (i = 1; i < n && !f->found; i++) {
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr,
							   NULL, NULL, NULL);
		char *d;

		if (!name || !sym.st_size || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		d = strcmp(name, f->name) ? ei_demangle(name) : NULL;
		if (!d || !strcmp(d, f->name)) {
			f->start = addr;
			f->end = addr + sym.st_size;
			f->found = 1;
		}
		free(d);
	}
	return f->found ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int elf_symtab_find(struct elf_symtab *st, const char *name,
		    uint64_t *start, uint64_t *end)
{
	struct ei_find f = { name, 0, 0, 0 };

	elf_symtab_finish(st);
	if (st->dwfl)
		dwfl_getmodules(st->dwfl, ei_find_module, &f, 0);
	if (!f.found)
		return -ENOENT;
	*start = f.start;
	*end = f.end;
	return 0;
}

int elf_symtab_read(const struct elf_symtab *st, uint64_t addr,
		    uint8_t *buf, size_t len)
{
	uint64_t bias = 0, v;
	ei_module mod;
	ei_elf elf;
	ei_phdr ph;
	size_t i, phnum, n;
	int ret = -ENOENT;
	ei_data *d;

	if (!st->dwfl || !len)
		return -ENOENT;
	pthread_mutex_lock(&ei_lock);
	mod = dwfl_addrmodule(st->dwfl, addr);
	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || elf_getphdrnum(elf, &phnum))
		goto out;
	v = addr - bias;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    v < ph.p_vaddr || v - ph.p_vaddr >= ph.p_filesz)
			continue;
		n = ph.p_filesz - (v - ph.p_vaddr);
		if (n > len)
			n = len;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + v -
							ph.p_vaddr),
					 n, ELF_T_BYTE);
		if (d && d->d_buf) {
			memcpy(buf, d->d_buf, n);
			ret = (int)n;
		}
		break;
	}
out:
	pthread_mutex_unlock(&ei_lock);
	return ret;
}

void elf_symtab_free(struct elf_symtab *st)
{
	struct elf_symcache *c = st->cache;
	size_t i;

	/* this thread's answers may name the table: forget them */
	memset(ei_tls, 0, sizeof(ei_tls));
	memset(&ei_tls_dso, 0, sizeof(ei_tls_dso));
	for (i = 0; c && i < c->cap; i++) {
		if (!c->syms[i])
			continue;
		free((char *)c->syms[i]->name);
		free(c->syms[i]);
	}
	for (i = 0; c && i < EI_LINE_SLOTS; i++)
		free(c->lines[i].inlined);
	while (c && c->spans) {
		struct ei_spans *sp = c->spans;

		c->spans = sp->next;
		free(sp->at);
		free(sp->sym);
		elf_plt_free(sp->plt, sp->nplt);
		free(sp);
	}
	if (c)
		free(c->syms);
	free(c);
	if (st->dwfl)
		dwfl_end(st->dwfl);
	memset(st, 0, sizeof(*st));
}
