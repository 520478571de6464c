// SPDX-License-Identifier: GPL-2.0
/*
 * The checker of tests/vm/decode_kernel.sh (not traced):
 *   decode_kernel_check KALLSYMS < 'pt-trace decode --format=raw' output
 * Every distinct kernel IP of the listing must carry a name kallsyms
 * gives there: one of the names of the last kallsyms address at or below
 * it (symbols of every type: the check does not share pt-trace's idea of
 * which types are code); an IP listed without <SYM> fails (its name is
 * "[unknown]").
 * Exits 1 if any differs or none is listed; prints the first few.
 *
 * In C, not busybox awk and sort: the VM's 7 MB kallsyms through those
 * took over a minute under TCG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ent {
	unsigned long long addr;
	char *name;
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void push(struct ent **v, size_t *n, size_t *cap, unsigned long long addr,
		 char *name)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		*v = realloc(*v, *cap * sizeof(**v));
		if (!*v) {
			perror("decode_kernel_check");
			exit(2);
		}
	}
	(*v)[*n].addr = addr;
	(*v)[*n].name = name;
	(*n)++;
}

/* "ffffXXXXXXXXXXXX  bytes  <SYM+0xOFF>": kernel IP and symbol. */
static int parse_listing(const char *line, unsigned long long *ip, const char **sym,
			 size_t *len)
{
	const char *lt, *end;
	char *e;

	if (strncmp(line, "ffff", 4) || strspn(line, "0123456789abcdef") != 16 ||
	    line[16] != ' ')
		return 0;
	*ip = strtoull(line, &e, 16);
	lt = strchr(line, '<');
	if (!lt) {
		*sym = "[unknown]";
		*len = strlen(*sym);
		return 1;
	}
	*sym = lt + 1;
	end = strchr(*sym, '>');
	if (!end)
		end = *sym + strlen(*sym);
	*len = (size_t)(end - *sym);
	lt = strstr(*sym, "+0x");
	if (lt && lt < end)
		*len = (size_t)(lt - *sym);
	return 1;
}

/*
 * Whether (@ip, @sym) was seen before: the listing repeats the few
 * hundred kernel IPs of a system call thousands of times.
 */
#define SEEN_SLOTS 65536
static int seen(unsigned long long ip, const char *sym, size_t len)
{
	static struct {
		unsigned long long ip, h;
	} slot[SEEN_SLOTS];
	static size_t used;
	unsigned long long h = 1469598103934665603ull;
	size_t i, k;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)sym[i]) * 1099511628211ull;
	h |= 1;
	for (k = (size_t)((ip ^ h) * 0x9e3779b97f4a7c15ull >> 48);; k = (k + 1) % SEEN_SLOTS) {
		if (slot[k].ip == ip && slot[k].h == h)
			return 1;
		if (!slot[k].h)
			break;
	}
	if (++used > SEEN_SLOTS / 2)
		return 0;	/* full: keep all, the sort drops repeats */
	slot[k].ip = ip;
	slot[k].h = h;
	return 0;
}

int main(int argc, char **argv)
{
	struct ent *ips = NULL, *ks = NULL;
	size_t nips = 0, capips = 0, nks = 0, capks = 0, i, j, n = 0, bad = 0;
	size_t nlines = 0;
	char line[4096], *buf = NULL, *p, *nl;
	size_t len = 0, cap = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: decode_kernel_check KALLSYMS < LISTING\n");
		return 2;
	}
	/*
	 * kallsyms first (while pt-trace, piped in, starts), read whole,
	 * its names ended in place: no copy each
	 */
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		buf = realloc(buf, cap = cap ? 2 * cap : 1 << 23);
		if (!buf) {
			perror("decode_kernel_check");
			return 2;
		}
		len += fread(buf + len, 1, cap - len - 1, f);
		if (len < cap - 1)
			break;
	}
	fclose(f);
	buf[len] = 0;
	for (p = buf; *p; p = nl ? nl + 1 : p + strlen(p)) {
		char *e, *name;
		unsigned long long a = strtoull(p, &e, 16);

		nl = strchr(p, '\n');
		/* "ADDR TYPE NAME[\t[MODULE]]" */
		if (e == p || !a || e[0] != ' ' || !e[1] || e[2] != ' ')
			continue;
		name = e + 3;
		name[strcspn(name, " \t\n")] = 0;
		push(&ks, &nks, &capks, a, name);
	}
	while (fgets(line, sizeof(line), stdin)) {
		const char *sym;
		unsigned long long ip;
		size_t len;

		if (!parse_listing(line, &ip, &sym, &len))
			continue;
		nlines++;
		if (!seen(ip, sym, len)) {
			char *name = strndup(sym, len);

			if (!name) {
				perror("decode_kernel_check");
				return 2;
			}
			push(&ips, &nips, &capips, ip, name);
		}
	}
	if (!nks) {
		printf("FAIL: no symbol in %s\n", argv[1]);
		return 1;
	}
	qsort(ips, nips, sizeof(*ips), ent_cmp);
	qsort(ks, nks, sizeof(*ks), ent_cmp);
	for (i = 0; i < nips; i++) {
		size_t lo = 0, hi = nks, k;
		int ok = 0;

		if (i && !ent_cmp(&ips[i], &ips[i - 1]))
			continue;
		n++;
		/* the last address at or below the IP, and all its names */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ks[mid].addr <= ips[i].addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k-- > 0 && ks[k].addr == ks[lo - 1].addr;)
			ok |= !strcmp(ks[k].name, ips[i].name);
		if (ok)
			continue;
		if (++bad > 5)
			continue;
		printf("FAIL: %016llx is <%s>, kallsyms:", ips[i].addr,
		       ips[i].name);
		for (j = lo; lo && j-- > 0 && ks[j].addr == ks[lo - 1].addr;)
			printf(" %s", ks[j].name);
		printf("\n");
	}
	printf("PTT-INFO decode_kernel: %zu kernel instructions, %zu distinct IPs, ",
	       nlines, n);
	printf("%zu with another symbol than kallsyms (%zu symbols in it)\n", bad, nks);
	return bad || !n;
}
