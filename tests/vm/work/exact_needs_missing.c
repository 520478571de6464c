// SPDX-License-Identifier: GPL-2.0
/*
 * The program of exact_filter_dlopen's loader-failure case: linked
 * (--no-as-needed) against libptt_missing.so, which scripts/mkinitramfs.sh
 * builds only to link it and the initramfs does not carry, so ld.so fails
 * at its start-up and exits (status 127) before any code of the program
 * runs.
 */
int main(void)
{
	return 0;
}
