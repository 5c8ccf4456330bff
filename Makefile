# lkprobot — build, test and install.
#   make deps     install the Debian packages needed to build and test (apt-get)
#   make          build ./lkprobot
#   make check    build with ASan/UBSan and run every test
#   make demo     the README's main command
#   make install  PREFIX=/usr/local (DESTDIR supported; man pages when pandoc is here)
#   make docs     docs/' --help blocks and configuration reference, made again
#   make bench    build and run the benchmarks in bench/
#   make fuzz     build the libFuzzer harnesses (clang) and fuzz each for FUZZ_SECONDS

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DATADIR ?= $(PREFIX)/share/lkprobot
MANDIR ?= $(PREFIX)/share/man
VERSION := 0.1.0

# Libraries with a .pc file in Debian 12, and the ones without one. DYN_LIBS
# are not linked: the one file that uses each loads it on first use
# (lib/sys/dynlib.h), by the soname of the library found here at build time.
PKGS := yaml-0.1 libcurl libgit2 libpmem sqlite3 libmicrohttpd
LINK_PKGS := yaml-0.1 sqlite3
DYN_LIBS := git2 curl microhttpd pmem
NOPC_LIBS := -lpfm -lmbedtls -lmbedx509 -lmbedcrypto -lm -ldl -lpthread

# Debian packages: to build, to test, and the tools lkprobot drives.
DEB_BUILD := build-essential pkg-config libyaml-dev libcurl4-openssl-dev \
	libgit2-dev libpmem-dev libsqlite3-dev libmicrohttpd-dev libpfm4-dev \
	libmbedtls-dev
DEB_TEST := libcmocka-dev clang libclang-rt-14-dev clang-format python3 sqlite3 python3-aiosmtpd python3-dkim openssl curl chromium python3-websocket \
	slurm-wlm munge dropbear-bin kexec-tools openssh-client public-inbox
DEB_SERVICE := slurm-client git ca-certificates openssh-client
DEB_TOOLS := fio xfsprogs e2fsprogs procps time util-linux kmod sysstat linux-perf \
	qemu-system-x86 busybox-static xz-utils ndctl linux-cpupower

# `make demo` and `make check` work from nothing: each runs `deps` first and
# then make again for the build, so the libraries are looked for (below)
# only once they are installed. The goals listed here do not need them.
NOLIB_GOALS := deps deps-image help clean distclean demo check check-fresh
ifneq ($(filter-out $(NOLIB_GOALS),$(MAKECMDGOALS))$(if $(MAKECMDGOALS),,all),)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null)
ifneq ($(shell $(PKG_CONFIG) --exists $(PKGS) && echo ok),ok)
$(error libraries not found with pkg-config ($(PKGS)); run 'make deps' first)
endif
soname = $(shell objdump -p $$($(CC) -print-file-name=lib$(1).so) 2>/dev/null | sed -n 's/^ *SONAME *//p')
DYN_SONAMES := $(foreach l,$(DYN_LIBS),$(l)=$(call soname,$(l)))
ifneq ($(filter %=,$(DYN_SONAMES)),)
$(error no soname found for $(filter %=,$(DYN_SONAMES)); run 'make deps' first)
endif
DYN_DEFS := $(foreach d,$(DYN_SONAMES),-DLKP_SONAME_$(subst =,='",$(d))"')
endif

V ?= 0
ifeq ($(V),0)
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2)
else
Q :=
msg =
endif

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
	-Wmissing-prototypes -Wstrict-prototypes
# lib/util/banned.h first in every file: strcpy, sprintf, strtok, gmtime ... are compile errors
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(PKG_CFLAGS) $(DYN_DEFS) -include lib/util/banned.h \
	-DLKPROBOT_VERSION='"$(VERSION)"' -DLKPROBOT_DATADIR='"$(DATADIR)"' $(CFLAGS)
LDLIBS_ALL = -Wl,--as-needed $(PKG_LIBS) $(NOPC_LIBS)
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# lib/ is layered, lowest first: a layer uses only itself and the layers
# before it (tests/layers.sh checks includes and calls at every build). Each
# layer is an archive, linked after the outer ring (providers, mail, web).
LIB_LAYERS := util sys stats store run results job kernel
APP_SRC := $(sort $(wildcard providers/*.c mail/*.c web/*.c))
# flow/: the flows, between the commands (robot/) and the outer ring
FLOW_SRC := $(sort $(wildcard flow/*.c))
layer_objs = $(patsubst %.c,build/$(1)/%.o,$(sort $(wildcard lib/$(2)/*.c lib/$(2)/*/*.c)))
# archives in link order: the flows, the outer ring, then lib/'s layers from the top down
link_archives = build/$(1)/libflow.a build/$(1)/libapp.a $(foreach l,$(call reverse,$(LIB_LAYERS)),build/$(1)/lib$(l).a)
reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
ROBOT_SRC := $(sort $(wildcard robot/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))

# libFuzzer harnesses (tests/fuzz/), built with clang: the one compiler here
# whose UBSan has float-cast-overflow (a double too big for its integer)
CLANG ?= clang
HAVE_CLANG := $(shell command -v $(CLANG) >/dev/null 2>&1 && echo yes)
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_SECONDS ?= 60

REL_ROBOT_OBJ := $(ROBOT_SRC:%.c=build/rel/%.o)
SAN_ROBOT_OBJ := $(ROBOT_SRC:%.c=build/san/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/san/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=build/rel/bench/%)

.PHONY: all deps deps-image check check-build unit cli demo install bench clean help fuzz docs
all: lkprobot

help:
	@sed -n '2,8p' Makefile | sed 's/^# *//'

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

build/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -MMD -MP -c -o $@ $<

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CLANG,$@)
	$(Q)$(CLANG) $(ALL_CFLAGS) -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

define archives
build/$(1)/lib$(2).a: $(call layer_objs,$(1),$(2))
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$^
endef
$(foreach b,rel san fuzz,$(foreach l,$(LIB_LAYERS),$(eval $(call archives,$(b),$(l)))))
build/rel/libapp.a: $(APP_SRC:%.c=build/rel/%.o)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
build/san/libapp.a: $(APP_SRC:%.c=build/san/%.o)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
build/fuzz/libapp.a: $(APP_SRC:%.c=build/fuzz/%.o)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
build/rel/libflow.a: $(FLOW_SRC:%.c=build/rel/%.o)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
build/san/libflow.a: $(FLOW_SRC:%.c=build/san/%.o)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
build/fuzz/libflow.a: $(FLOW_SRC:%.c=build/fuzz/%.o)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# a wrong-way include or call between lib/'s layers fails the build
define layers_ok
build/$(1)/layers.ok: $(call link_archives,$(1)) $(ROBOT_SRC:%.c=build/$(1)/%.o) tests/layers.sh
	$$(call msg,LAYERS,build/$(1))
	$$(Q)sh tests/layers.sh "$$(LIB_LAYERS)" build/$(1) && touch $$@
endef
$(foreach b,rel san,$(eval $(call layers_ok,$(b))))

lkprobot: $(REL_ROBOT_OBJ) $(call link_archives,rel) build/rel/layers.ok
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(REL_ROBOT_OBJ) $(call link_archives,rel) $(LDLIBS_ALL)

build/san/lkprobot: $(SAN_ROBOT_OBJ) $(call link_archives,san) build/san/layers.ok
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN) -o $@ $(SAN_ROBOT_OBJ) $(call link_archives,san) $(LDLIBS_ALL)

build/san/tests/%: tests/unit/%.c $(call link_archives,san)
	@mkdir -p $(dir $@)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Wno-missing-prototypes -o $@ $< $(call link_archives,san) \
		$(LDLIBS_ALL) $(shell $(PKG_CONFIG) --libs cmocka)

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzzlib.h $(call link_archives,fuzz)
	@mkdir -p $(dir $@)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(ALL_CFLAGS) -O1 $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(call link_archives,fuzz) $(LDLIBS_ALL)

build/rel/bench/%: bench/%.c $(call link_archives,rel)
	@mkdir -p $(dir $@)
	$(call msg,BENCH,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(call link_archives,rel) $(LDLIBS_ALL)

# apt-get install the packages of $(1) that are missing
define deb_install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	echo "deps: installing $$missing"; \
	SUDO=; if [ "$$(id -u)" != 0 ]; then SUDO=sudo; command -v sudo >/dev/null || \
		{ echo "deps: not root, and no sudo: run 'make deps' as root"; exit 1; }; fi; \
	$$SUDO apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing
endef

# everything: the tests run the image's build steps too (t1200)
deps:
	$(call deb_install,$(DEB_BUILD) $(DEB_TEST) $(DEB_TOOLS) $(DEB_SERVICE))

# what the service's image needs: build, the tools jobs drive, Slurm's client
deps-image:
	$(call deb_install,$(DEB_BUILD) $(DEB_TOOLS) $(DEB_SERVICE))

unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail

cli: build/san/lkprobot
	@LKPROBOT=$(CURDIR)/build/san/lkprobot sh tests/cli/run.sh

# the tests run from this make, not a sub-make: a failure adds one line of
# make's after the summary, not two. clang (for the fuzz harnesses) is looked
# for after deps; without it the harnesses are skipped, and check says so
check: deps
	@$(MAKE) --no-print-directory check-build
	@FUZZ_BIN="$$(command -v $(CLANG) >/dev/null 2>&1 && echo '$(FUZZ_BIN)')" sh tests/run-all.sh $(UNIT_BIN)

# make fuzz: each harness over its seeds, then FUZZ_SECONDS of fuzzing each
# (new inputs kept in build/fuzz/corpus/, crashes in build/fuzz/)
fuzz: $(FUZZ_BIN)
	@$(if $(HAVE_CLANG),,echo "fuzz: $(CLANG) is not installed; 'make deps' installs it"; exit 1;) \
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_KEEP=build/fuzz/corpus sh tests/fuzz/run.sh $(FUZZ_BIN)

check-build: $(UNIT_BIN) build/san/lkprobot $(if $(HAVE_CLANG),$(FUZZ_BIN))

# make check-kernel: a real kernel build, not part of `make check` (it takes
# 10-20 minutes on 2 cores and 1.5 GB of disk). Installs Debian's
# linux-source-6.1 and the kernel's build dependencies, unpacks the source
# into a scratch git repository (KERNEL_SCRATCH, made once), builds it with
# `lkprobot build --kconfig x86_64-pmem` in a fresh cache, commits a
# one-line change to one file, builds again (the same O= directory: only
# that file is recompiled), asks a third time (a cache hit), and prints the
# times.
KERNEL_SCRATCH ?= /var/tmp/lkprobot-linux
DEB_KERNEL := linux-source-6.1 bc bison flex libelf-dev libssl-dev
.PHONY: check-kernel
check-kernel: lkprobot
	@missing=$$(for p in $(DEB_KERNEL); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "check-kernel: installing $$missing"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing || exit 1; \
	fi
	@set -e; src=$(KERNEL_SCRATCH)/linux-source-6.1; cache=$(KERNEL_SCRATCH)/cache; \
	git="git -C $$src -c user.name=lkprobot -c user.email=lkprobot@localhost"; \
	if [ ! -d $$src/.git ]; then \
		echo "check-kernel: unpacking /usr/src/linux-source-6.1.tar.xz into $$src"; \
		rm -rf $$src; mkdir -p $(KERNEL_SCRATCH); \
		tar -C $(KERNEL_SCRATCH) -xf /usr/src/linux-source-6.1.tar.xz; \
		$$git init -q; $$git add -f -A .; $$git commit -q -m 'linux-source-6.1 (Debian)'; \
	fi; \
	rm -rf $$cache; \
	./lkprobot build --tree $$src --commit HEAD --kconfig x86_64-pmem --cache $$cache >$(KERNEL_SCRATCH)/clean.out; \
	echo "/* lkprobot check-kernel: $$(date -u +%FT%TZ) */" >>$$src/drivers/nvdimm/pmem.c; \
	$$git commit -q -a -m 'nvdimm/pmem: a comment (lkprobot check-kernel)'; \
	./lkprobot build --tree $$src --commit HEAD --kconfig x86_64-pmem --cache $$cache >$(KERNEL_SCRATCH)/change.out; \
	./lkprobot build --tree $$src --commit HEAD --kconfig x86_64-pmem --cache $$cache >$(KERNEL_SCRATCH)/again.out; \
	dir=$$(sed -n 1p $(KERNEL_SCRATCH)/change.out); \
	test -s $$dir/bzImage; \
	grep -q ' CC .*drivers/nvdimm/pmem.o' $$dir/build.log; \
	sed -n 2p $(KERNEL_SCRATCH)/again.out | grep -qx cached; \
	echo "check-kernel: clean build:      $$(sed -n 2p $(KERNEL_SCRATCH)/clean.out) ($$(sed -n 1p $(KERNEL_SCRATCH)/clean.out))"; \
	echo "check-kernel: one file changed: $$(sed -n 2p $(KERNEL_SCRATCH)/change.out), $$(grep -c '^  CC ' $$dir/build.log) object(s) compiled ($$dir)"; \
	echo "check-kernel: the same again:   cached"

# make check-bisect-kernel: lkprobot bisect --provider qemu over 16 real
# kernel commits, one of which slows pmem down (tests/bisect-kernel.sh; not
# in `make check`: it builds and boots kernels; needs `make check-kernel`'s tree).
.PHONY: check-bisect-kernel
check-bisect-kernel: lkprobot
	@sh tests/bisect-kernel.sh

# make check-bisect-box: the same with --provider ssh on a QEMU guest standing
# in for a real pmem box (lkprobot qemu-box): each kernel kexec'd into there.
.PHONY: check-bisect-box
check-bisect-box: lkprobot
	@PROVIDER=ssh sh tests/bisect-kernel.sh

# make check-fresh: the README's two commands (make demo, make check) in a
# fresh Debian 12 root made with debootstrap, as a user with sudo and as
# root (tests/fresh-root.sh; .ci/run runs it). Needs root and a mirror.
.PHONY: check-fresh
check-fresh:
	$(call deb_install,debootstrap)
	@sh tests/fresh-root.sh

demo: deps
	@$(MAKE) --no-print-directory lkprobot
	@sh tests/demo.sh

bench: $(BENCH_BIN) lkprobot
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# man pages: one a command, made from docs/lkprobot-<command>.md by pandoc
# when it is installed (not a dependency: without it they are skipped, said)
install: lkprobot
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DATADIR) $(DESTDIR)$(PREFIX)/share/doc/lkprobot/docs
	install -m 755 lkprobot $(DESTDIR)$(PREFIX)/bin/lkprobot
	cp -R jobs hosts kconfig lkp-etc $(DESTDIR)$(DATADIR)/
	install -m 644 README.md docker/lkprobot.service docker/config.yaml $(DESTDIR)$(PREFIX)/share/doc/lkprobot/
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/lkprobot/docs/
	@if command -v pandoc >/dev/null 2>&1; then \
		install -d $(DESTDIR)$(MANDIR)/man1 && \
		for p in docs/lkprobot-*.md; do \
			n=$$(basename $$p .md); \
			pandoc -s -f markdown-smart -t man --shift-heading-level-by=-1 -M section=1 \
				-M footer='lkprobot $(VERSION)' -M header='lkprobot manual' \
				-o $(DESTDIR)$(MANDIR)/man1/$$n.1 $$p || exit 1; \
		done && \
		echo "install: man pages $(DESTDIR)$(MANDIR)/man1/lkprobot-*.1 (pandoc, from docs/)"; \
	else \
		echo "install: no pandoc here: the man pages (made from docs/lkprobot-*.md) are skipped"; \
	fi

# make docs: the --help block of each docs/lkprobot-<command>.md and the
# reference part of docs/configuration.md made again from ./lkprobot
# (tests/docs.sh); tests/cli/t0002-docs.sh fails while they are stale
docs: lkprobot
	@sh tests/docs.sh ./lkprobot

clean:
	rm -rf build lkprobot

-include $(shell find build -name '*.d' 2>/dev/null)
