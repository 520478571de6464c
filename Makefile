# SPDX-License-Identifier: GPL-2.0
#
# pt_trace: an Intel Processor Trace driver (pt_trace.ko) and its tools.
#
#   make            build pt_trace.ko against the newest installed Debian
#                   headers (KVER=... or KDIR=... to choose) and the tools
#   make deps       install/fetch what the others need (idempotent)
#   make check      every test: builds for 6.1, 6.12 and the debug kernel,
#                   checkpatch, the tools, the tests in QEMU on 3 kernels
#   make demo       the demo, in a QEMU VM with the software model
#   make bench      the benchmarks (VM and host); they print ratios
#   make clean
#
# The kernel build itself reads Kbuild (this file is not used by Kbuild).

# Never `uname -r`: the running kernel need not be a Debian one.
KVER ?= $(patsubst /usr/src/linux-headers-%,%,$(lastword $(shell \
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)))
KDIR ?= /usr/src/linux-headers-$(KVER)

all: modules tools

modules:
	@test -f "$(KDIR)/Makefile" || { echo "no kernel headers in '$(KDIR)': run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; fi

deps:
	scripts/deps.sh

check: deps
	scripts/check.sh

demo: deps
	scripts/demo.sh

bench: deps
	scripts/bench.sh

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	rm -rf .cache/work

.PHONY: all modules tools deps check demo bench clean
