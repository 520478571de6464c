/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/string.h> for the model's pure files compiled on the host
 * (model/packets.c in tests/host/exact_enc_check.c).
 */
#ifndef _PTT_HOST_SHIM_LINUX_STRING_H
#define _PTT_HOST_SHIM_LINUX_STRING_H

#include <string.h>

#endif
