# SPDX-License-Identifier: GPL-2.0
#
# pt_trace: an Intel Processor Trace driver (pt_trace.ko) and its tools.
#
#   make            build pt_trace.ko (and the test backend
#                   pt_trace_model.ko) for one kernel, and the tools
#   make install    install the driver, the tools, their man pages, the
#                   udev rule and a modprobe.d example (as root; DESTDIR=
#                   and PREFIX= honoured; DKMS=1: the driver through DKMS);
#                   make uninstall undoes it
#   make deb        the Debian packages pt-trace-dkms and pt-trace, in
#                   .cache/work/deb/ (lintian-checked)
#   make deps       install/fetch what the others need (idempotent)
#   make check      every test: builds for 6.1, 6.12 and the debug kernel,
#                   checkpatch, the tools, the tests in QEMU on 3 kernels
#   make demo       the demo, in a QEMU VM with the software model
#   make bench      the benchmarks (VM and host); they print ratios
#   make clean
#
# The kernel: KDIR=/path/to/build (its release is KVER), or
# KVER=RELEASE (KDIR=/lib/modules/KVER/build, which every distribution's
# headers package provides), else the running kernel when its headers are
# installed, else the newest kernel under /lib/modules that has them.
# The kernel build itself reads Kbuild (this file is not used by Kbuild).

ifdef KDIR
# UTS_RELEASE: Debian's 6.1 headers have another name in kernel.release.
KVER ?= $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
else
KVER ?= $(or $(if $(wildcard /lib/modules/$(shell uname -r)/build/Makefile),$(shell uname -r)),\
	$(patsubst /lib/modules/%/build/Makefile,%,$(lastword $(shell \
	ls -d /lib/modules/*/build/Makefile 2>/dev/null | sort -V))))
KDIR := /lib/modules/$(KVER)/build
endif

PREFIX		?= /usr/local
MODDIR		?= /lib/modules/$(KVER)/updates
UDEVRULESDIR	?= /etc/udev/rules.d
MODPROBEDIR	?= /etc/modprobe.d
VERSION		:= $(strip $(file <VERSION))

all: modules tools

modules:
	@test -f "$(KDIR)/Makefile" || { echo "no kernel headers in '$(KDIR)': install them (Debian/Ubuntu: apt install linux-headers-$(or $(KVER),\$$(uname -r)); Fedora: dnf install kernel-devel-$(or $(KVER),\$$(uname -r))) or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; fi

# The driver only: the test backend pt_trace_model.ko is never installed.
# DKMS=1: its sources into /usr/src/pt-trace-VERSION and `dkms install`,
# which rebuilds (and signs) it for every kernel installed later, instead
# of this build into MODDIR.  depmod, dkms and the group only for a real
# install (no DESTDIR): packages do theirs in their maintainer scripts.
DKMSSRC		:= /usr/src/pt-trace-$(VERSION)

install: $(if $(DKMS),install-dkms,install-module)
	$(MAKE) -C tools install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	install -D -m644 packaging/60-pt-trace.rules $(DESTDIR)$(UDEVRULESDIR)/60-pt-trace.rules
	install -D -m644 packaging/pt_trace.conf $(DESTDIR)$(MODPROBEDIR)/pt_trace.conf
	@if [ -z "$(DESTDIR)" ]; then \
		set -x; getent group pttrace >/dev/null || groupadd --system pttrace; \
		! command -v udevadm >/dev/null || udevadm control --reload; \
	fi

install-module: modules
	install -D -m644 pt_trace.ko $(DESTDIR)$(MODDIR)/pt_trace.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

install-dkms:
	install -d $(DESTDIR)$(DKMSSRC)
	cp -r Kbuild VERSION dkms.conf drivers include $(DESTDIR)$(DKMSSRC)/
	if [ -z "$(DESTDIR)" ]; then dkms install -m pt-trace -v $(VERSION) -k $(KVER); fi

uninstall:
	rm -f $(DESTDIR)$(MODDIR)/pt_trace.ko $(DESTDIR)$(UDEVRULESDIR)/60-pt-trace.rules \
		$(DESTDIR)$(MODPROBEDIR)/pt_trace.conf
	$(MAKE) -C tools uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	@if [ -z "$(DESTDIR)" ]; then \
		set -x; ! dkms status -m pt-trace 2>/dev/null | grep -q . || \
			dkms remove -m pt-trace -v $(VERSION) --all; \
		depmod -a $(KVER); \
	fi
	rm -rf $(DESTDIR)$(DKMSSRC)

deb:
	scripts/make-deb.sh

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

.PHONY: all modules tools install install-module install-dkms uninstall deb deps check demo bench clean
