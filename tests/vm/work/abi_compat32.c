// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI from an i386 process (tests/vm/abi_compat32.sh runs it): the
 * same ioctls through compat_ioctl (compat_ptr_ioctl(), no translation),
 * mmap2 of the control page and the data, read(2), bad pointers (EFAULT)
 * and sizes (EINVAL), an unknown ioctl (ENOTTY); every byte read once
 * (data_head) before end of file.  Freestanding (no i386 C library
 * here): int $0x80 system calls, built with gcc -m32 by mkinitramfs.sh
 * where gcc can, else the wrapper skips.
 */
#include <linux/pt_trace.h>

#define SYS_exit	1
#define SYS_read	3
#define SYS_write	4
#define SYS_open	5
#define SYS_close	6
#define SYS_ioctl	54
#define SYS_nanosleep	162
#define SYS_mmap2	192

long f6;	/* the sixth argument goes in %ebp, which may frame the stack */

static long sc(long n, long a, long b, long c, long d, long e, long f)
{
	long r;

	f6 = f;
	__asm__ volatile("push %%ebp; movl f6, %%ebp; int $0x80; pop %%ebp"
			 : "=a"(r)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return r;
}

static unsigned long slen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void out(const char *s)
{
	sc(SYS_write, 1, (long)s, slen(s), 0, 0, 0);
}

static void kv(const char *k, long v)
{
	char b[24];
	int i = 23, neg = v < 0;
	unsigned long u = neg ? -v : v;

	b[i] = 0;
	do {
		b[--i] = '0' + u % 10;
		u /= 10;
	} while (u);
	if (neg)
		b[--i] = '-';
	out(k);
	out(" ");
	out(b + i);
	out("\n");
}

static void zero(void *d, unsigned long n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = 0;
}

/* gcc may call it for a structure's initialisation */
void *memset(void *d, int c, unsigned long n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = c;
	return d;
}

static int fails;

#define EXPECT(c)						\
	do {							\
		if (!(c)) {					\
			out("FAIL " #c "\n");			\
			fails++;				\
		}						\
	} while (0)

static long ioc(long fd, unsigned long cmd, void *arg)
{
	return sc(SYS_ioctl, fd, cmd, (long)arg, 0, 0, 0);
}

/* A kernel return value that is an error (mmap2's address is not). */
static long err_of(long r)
{
	return r < 0 && r > -4096 ? r : 0;
}

static unsigned char buf[8192];

void _start(void)
{
	struct { long s, ns; } ts = { 0, 50000000 };
	const struct pt_trace_mmap_page *c;	/* read after system calls ("memory") */
	struct pt_trace_status st;
	struct pt_trace_config cfg;
	struct pt_trace_caps caps;
	struct pt_trace_cr3 cr3;
	long fd, r, total = 0;
	int i;

	fd = sc(SYS_open, (long)"/dev/pt0", 2, 0, 0, 0, 0);
	kv("open", fd);
	EXPECT(fd >= 0);
	if (fd < 0)
		goto end;
	zero(&caps, sizeof(caps));
	caps.size = sizeof(caps);
	r = ioc(fd, PT_TRACE_IOC_GET_CAPS, &caps);
	kv("GET_CAPS", r);
	EXPECT(!r && caps.abi_version == PT_TRACE_ABI_VERSION);

	zero(&cfg, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.ctl = PT_CTL_BRANCHEN | PT_CTL_USER | PT_CTL_OS;
	cfg.mode = PT_MODE_STREAM;
	cfg.buffer_size = 65536;
	r = ioc(fd, PT_TRACE_IOC_SET_CONFIG, &cfg);
	kv("SET_CONFIG", r);
	EXPECT(!r);
	cfg.size = 8;
	r = ioc(fd, PT_TRACE_IOC_SET_CONFIG, &cfg);
	kv("SET_CONFIG size 8", r);
	EXPECT(r == -22);

	zero(&cr3, sizeof(cr3));
	cr3.size = sizeof(cr3);
	cr3.how = PT_CR3_BY_PID;
	r = ioc(fd, PT_TRACE_IOC_SET_CR3, &cr3);
	kv("SET_CR3 by pid", r);
	EXPECT(!r);
	cr3.how = PT_CR3_OFF;
	r = ioc(fd, PT_TRACE_IOC_SET_CR3, &cr3);
	kv("SET_CR3 off", r);
	EXPECT(!r);
	r = ioc(fd, PT_TRACE_IOC_SET_CR3, (void *)0xfffff000);
	kv("SET_CR3 bad pointer", r);
	EXPECT(r == -14);

	c = (void *)sc(SYS_mmap2, 0, 4096, 1, 1, fd, 0);
	kv("mmap2 control", err_of((long)c));
	EXPECT(!err_of((long)c));
	r = sc(SYS_mmap2, 0, 65536, 1, 1, fd, 1);
	kv("mmap2 data", err_of(r));
	EXPECT(!err_of(r));
	if (err_of((long)c))
		goto end;

	r = ioc(fd, PT_TRACE_IOC_START, 0);
	kv("START", r);
	EXPECT(!r);
	for (i = 0; i < 10; i++) {
		sc(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
		r = sc(SYS_read, fd, (long)buf, sizeof(buf), 0, 0, 0);
		if (r > 0)
			total += r;
	}
	kv("read bytes", total);
	EXPECT(total > 0);
	r = sc(SYS_read, fd, 0xfffff000, 64, 0, 0, 0);
	kv("read bad pointer", r);
	EXPECT(r == -14);

	zero(&st, sizeof(st));
	st.size = sizeof(st);
	r = ioc(fd, PT_TRACE_IOC_GET_STATUS, &st);
	kv("GET_STATUS", r);
	EXPECT(!r && (st.flags & PT_STATUS_RUNNING) &&
	       st.buffer_size == 65536);
	EXPECT(c->version == PT_TRACE_ABI_VERSION && c->data_size == 65536);

	r = ioc(fd, PT_TRACE_IOC_STOP, 0);
	kv("STOP", r);
	EXPECT(!r);
	while ((r = sc(SYS_read, fd, (long)buf, sizeof(buf), 0, 0, 0)) > 0)
		total += r;
	kv("drained to", total);
	kv("data_head (low 32 bits)", (long)c->data_head);
	EXPECT(r == 0 && (unsigned long)total == (unsigned long)c->data_head);
	r = ioc(fd, _IO(PT_TRACE_IOC_MAGIC, 0xff), 0);
	kv("unknown ioctl", r);
	EXPECT(r == -25);
	sc(SYS_close, fd, 0, 0, 0, 0, 0);
end:
	out(fails ? "abi_compat32: FAILED\n" : "abi_compat32: all as expected\n");
	sc(SYS_exit, fails ? 1 : 0, 0, 0, 0, 0, 0);
}
