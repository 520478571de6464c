// SPDX-License-Identifier: GPL-2.0
/*
 * SDM Table 36-48 and the system-wide VM entry/exit packets, from the
 * model's own encoder (drivers/pt_trace/model/vmx_enc.c, compiled here as
 * it is), decoded by `pt-trace decode` (tests/host/run, vmx-table).
 *
 * The host code (vmx_table.S at 0x401000) loops: vmptrld, vmresume, and
 * after the VM exit mov, jmp.  Two guests run at the host's addresses,
 * so only the packets tell them apart: VM A (64-bit, the host's CR3) and
 * VM B (32-bit, CS.L=0).  Each row of the table is one VM visit, encoded
 * by vmx_enc.c between the host's vmresume and its next instruction.
 * Writes into DIR:
 *   system.pt, host-only.pt     the traces (system-wide, Table 36-48);
 *   nopip.pt                    system-wide with the model's quirk
 *                               vmx_entry_no_pip: no PIP at VM entries;
 *   nopip.warn                  for each entry into a traced guest there,
 *       the offsets the visit's packets span, entry to exit ("FIRST
 *       END"): decode must warn naming an offset in it (libipt's
 *       position, which reads ahead of the entry) and still split the
 *       contexts as in system.pt (it knows the entry from the vmresume);
 *   noexit.pt                   system-wide with no PIP at VM exits
 *                               (vmx_enc.h's no_exit_pip);
 *   noexit.warn                 for each exit out of a guest context
 *       (one its entry's PIP opened), the offsets from the exit's first
 *       packet to the end of the host's next instruction's packets
 *       ("FIRST END"): decode must warn naming an offset in it (it finds
 *       the host's code where the guest's image has none) and split the
 *       contexts as in system.pt;
 *   guest-a.bin, guest-b.bin    the guests' code, at 0x401000;
 *   T.all, T.host, T.guest, T.a, T.b   for each trace T, the instruction
 *       addresses `pt-trace decode --format=ip` must print with no
 *       filter, --host-only, --guest-only, --vmcs A, --vmcs B.
 *
 * Usage: vmx_table DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmx_enc.h"

#define HOST_CR3	0xabcde000ULL
#define VMCS_A		0x12345000ULL
#define VMCS_B		0x6789a000ULL
#define CR3_B		0x76543000ULL
#define VMCS_NONE	0x000ffffffffff000ULL

enum { L_ALL, L_HOST, L_GUEST, L_A, L_B, L_NR };
static const char *const lname[L_NR] = { "all", "host", "guest", "a", "b" };

static u8 tbuf[1 << 16];
static struct pt_pkt_buf b;
static FILE *exp_f[L_NR];
static struct pt_vmx_enc e;
static FILE *warn_f;

static const struct pt_ctx host_at_exit = {
	.ip = 0x401006, .cr3 = HOST_CR3, .csl = true,
};

/* Instructions that will run: @vm 0 (host), 'A' or 'B'. */
static void ran(int vm, const u64 *ip, int n)
{
	int i, l;

	for (i = 0; i < n; i++)
		for (l = 0; l < L_NR; l++)
			if (l == L_ALL || (l == L_HOST && !vm) ||
			    (l == L_GUEST && vm) || (l == L_A && vm == 'A') ||
			    (l == L_B && vm == 'B'))
				fprintf(exp_f[l], "%016llx\n", ip[i]);
}

static void host_to_vmresume(bool first)
{
	static const u64 loop[] = { 0x401006, 0x401009, 0x401000, 0x401003 };

	ran(0, first ? loop + 2 : loop, first ? 2 : 4);
}

/*
 * One row: VMPTRLD of @vm's VMCS, the entry, the guest (two instructions
 * when it is traced, exit at its third), the exit.  @g_ctx_en and @g_pe:
 * ContextEn and PacketEn in the guest (a CR3 filter clears both, a
 * CPL filter only PacketEn).
 */
static void row(int vm, bool g_ctx_en, bool g_pe)
{
	struct pt_ctx host = { .ip = 0x401003, .cr3 = HOST_CR3, .csl = true };
	struct pt_ctx g = { .ip = 0x401000, .guest = true, .user = true };
	u64 gip[2];

	g.csl = vm == 'A';
	g.cr3 = vm == 'A' ? HOST_CR3 : CR3_B;
	u32 at, warn = 0, exit_at;

	pt_vmx_enc_vmptrld(&b, true, vm == 'A' ? VMCS_A : VMCS_B);
	at = b.len;
	if (pt_vmx_enc_entry(&e, &b, &host, &g, g_ctx_en, g_pe) && g_pe) {
		warn = warn_f && e.no_entry_pip;
		/* A: nop, nop; B: dec %eax, nop (32-bit) */
		gip[0] = 0x401000;
		gip[1] = 0x401001;
		ran(vm, gip, 2);
		g.ip = 0x401002;
	}
	exit_at = b.len;
	pt_vmx_enc_exit(&e, &b, &host_at_exit, &g, true, true);
	if (warn)
		fprintf(warn_f, "%u %u\n", at, b.len);
	/* The next row's VMPTRLD or the trace's end follow the exit. */
	if (warn_f && e.no_exit_pip && g_ctx_en && !e.host_only)
		fprintf(warn_f, "%u %u\n", exit_at, b.len + 8);
	host_to_vmresume(false);
}

static int trace(const char *dir, const char *name, bool host_only,
		 bool no_entry_pip, bool no_exit_pip)
{
	char path[4096];
	FILE *f;
	int l;

	for (l = 0; l < L_NR; l++) {
		snprintf(path, sizeof(path), "%s/%s.%s", dir, name, lname[l]);
		exp_f[l] = fopen(path, "w");
		if (!exp_f[l])
			return -1;
	}
	pt_pkt_init(&b, tbuf, sizeof(tbuf));
	memset(&e, 0, sizeof(e));
	e.os = true;
	e.branch_en = true;
	e.host_only = host_only;
	e.no_entry_pip = no_entry_pip;
	e.no_exit_pip = no_exit_pip;
	warn_f = NULL;
	if (no_entry_pip || no_exit_pip) {
		snprintf(path, sizeof(path), "%s/%s.warn", dir, name);
		warn_f = fopen(path, "w");
		if (!warn_f)
			return -1;
	}
	pt_pkt_psb(&b);
	pt_pkt_vmcs(&b, VMCS_NONE);
	pt_pkt_pip(&b, HOST_CR3, false);
	pt_pkt_mode_exec(&b, true, false);
	pt_pkt_psbend(&b);
	pt_pkt_ip(&b, PT_PKT_TIP_PGE, 0x401000, false);
	e.packet_en = true;
	e.last_cr3 = HOST_CR3;
	host_to_vmresume(true);
	row('A', true, true);		/* same CS.L */
	row('B', true, true);		/* CS.L changes both ways */
	row('B', false, false);		/* CR3 filter: no ContextEn */
	row('A', true, false);		/* CPL filter: ContextEn only */
	row('A', true, true);
	/* The end: tracing stops at the last vmresume. */
	pt_pkt_ip(&b, PT_PKT_TIP_PGD, 0, true);
	for (l = 0; l < L_NR; l++)
		fclose(exp_f[l]);
	if (warn_f)
		fclose(warn_f);
	snprintf(path, sizeof(path), "%s/%s.pt", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(b.buf, 1, b.len, f) != b.len || fclose(f))
		return -1;
	return 0;
}

static int put(const char *dir, const char *name, const u8 *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	return !f || fwrite(p, 1, n, f) != n || fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const u8 ga[] = { 0x90, 0x90, 0x90, 0x90 };
	static const u8 gb[] = { 0x48, 0x90, 0x90, 0x90 };

	if (argc != 2) {
		fprintf(stderr, "usage: vmx_table DIR\n");
		return 2;
	}
	if (trace(argv[1], "system", false, false, false) ||
	    trace(argv[1], "host-only", true, false, false) ||
	    trace(argv[1], "nopip", false, true, false) ||
	    trace(argv[1], "noexit", false, false, true) ||
	    put(argv[1], "guest-a.bin", ga, sizeof(ga)) ||
	    put(argv[1], "guest-b.bin", gb, sizeof(gb))) {
		perror(argv[1]);
		return 2;
	}
	return 0;
}
