#!/bin/sh
# lkprobot build against a tiny git repository whose Makefile stands in for
# Kbuild (allnoconfig/defconfig/olddefconfig/bzImage honouring O= and
# KCONFIG_ALLCONFIG; every make run is counted): kernel directory and
# outputs, cache hits, incremental reuse of the O= directory, KCFLAGS,
# recorded failures, bad input.
. "$(dirname "$0")/lib.sh"

REPO=$TMP/repo
CACHE=$TMP/cache
FAKEKBUILD_COUNTER=$TMP/counter
export FAKEKBUILD_COUNTER
makes() { cat "$FAKEKBUILD_COUNTER" 2>/dev/null | wc -l; }
g() { git -C "$REPO" -c user.name="Ada Tester" -c user.email=ada@example.org "$@"; }
# the kernel directory is the first line, the outcome the second
build() { lkprobot build --tree "$REPO" --cache "$CACHE" -j 2 "$@"; }

mkdir -p "$REPO"
cat >"$REPO/Makefile" <<'EOF'
O ?= .
SRCS := $(sort $(wildcard *.c))
OBJS := $(SRCS:%.c=$(O)/%.o)
count = @echo $@ >> $(FAKEKBUILD_COUNTER)
.PHONY: allnoconfig defconfig olddefconfig bzImage
allnoconfig:
	$(count)
	@{ echo CONFIG_NO=y; if [ -n "$(KCONFIG_ALLCONFIG)" ]; then cat "$(KCONFIG_ALLCONFIG)"; fi; } | grep '^CONFIG_' | sort -u > $(O)/.config
defconfig:
	$(count)
	@echo CONFIG_DEF=y > $(O)/.config
olddefconfig:
	$(count)
	@grep '^CONFIG_' $(O)/.config | sort -u > $(O)/.config.new && mv $(O)/.config.new $(O)/.config
bzImage: $(O)/vmlinux
	$(count)
	@echo '  KCFLAGS $(KCFLAGS)'
	@mkdir -p $(O)/arch/x86/boot
	@cat $(O)/vmlinux > $(O)/arch/x86/boot/bzImage
	@[ -f $(O)/marker ] || echo first > $(O)/marker
$(O)/vmlinux: $(OBJS)
	@echo '  LD      vmlinux'
	@cat $(OBJS) > $@
$(O)/%.o: %.c
	@echo '  CC      $*.o'
	@echo $*.o >> $(O)/compiled
	@cat $< > $@
EOF
echo 'int a;' >"$REPO/a.c"
echo 'int b;' >"$REPO/b.c"
g init -q -b main
g add -A
g commit -q -m "first"
echo 'int b = 2;' >"$REPO/b.c"
g commit -q -a -m "second: change b.c"
cat >>"$REPO/Makefile" <<'EOF'
$(O)/bad.o: bad.c
	@echo '  CC      bad.o'
	@echo "bad.c:3:5: error: expected ';' before '}' token" >&2
	@false
EOF
echo 'int bad' >"$REPO/bad.c"
g add -A
g commit -q -m "third: broken"
C1=$(g rev-parse HEAD~2)
C2=$(g rev-parse HEAD~1)
C3=$(g rev-parse HEAD)
export REPO CACHE C1 C2 C3

test_expect_success 'build a commit: the kernel directory, then "built in N s"' '
	build --commit HEAD~2 >"$TMP/out" &&
	[ $(wc -l <"$TMP/out") = 2 ] &&
	dir=$(sed -n 1p "$TMP/out") &&
	case "$dir" in "$CACHE/kernels/$C1-"????????????) ;; *) echo "dir: $dir"; exit 1;; esac &&
	sed -n 2p "$TMP/out" | grep -Eqx "built in [0-9]+ s" &&
	for f in bzImage vmlinux .config build.log result; do
		[ -f "$dir/$f" ] || { echo "no $f"; exit 1; }
	done &&
	grep -qx "state: built" "$dir/result" &&
	grep -qx "commit: $C1" "$dir/result" &&
	grep -qx "kconfig: x86_64-pmem" "$dir/result" &&
	grep -qx "CONFIG_LIBNVDIMM=y" "$dir/.config" &&
	[ "$(git hash-object "$dir/.config" | cut -c1-12)" = "${dir##*-}" ] &&
	! grep -q "$(printf "\r")" "$TMP/out"
'

test_expect_success 'the same commit again: "cached", make not run' '
	before=$(makes) &&
	build --commit "$C1" >"$TMP/out" &&
	sed -n 2p "$TMP/out" | grep -qx cached &&
	[ "$(makes)" = "$before" ]
'

test_expect_success 'the next commit reuses the O= directory and makes only what changed' '
	bdir=$(ls -d "$CACHE"/build/*) &&
	[ $(echo "$bdir" | wc -l) = 1 ] &&
	[ "$(cat "$bdir/marker")" = first ] &&
	build --commit "$C2" >"$TMP/out" &&
	dir=$(sed -n 1p "$TMP/out") &&
	case "$dir" in "$CACHE/kernels/$C2-"*) ;; *) exit 1;; esac &&
	[ "$(cat "$bdir/marker")" = first ] &&
	[ "$(sort "$bdir/compiled" | tr "\n" " ")" = "a.o b.o b.o " ] &&
	grep -q "  CC      b.o" "$dir/build.log" &&
	! grep -q "  CC      a.o" "$dir/build.log"
'

test_expect_success 'another configuration is another key' '
	build --commit "$C1" --kconfig defconfig >"$TMP/out" &&
	dir=$(sed -n 1p "$TMP/out") &&
	sed -n 2p "$TMP/out" | grep -q "^built in" &&
	grep -qx CONFIG_DEF=y "$dir/.config" &&
	grep -qx CONFIG_LIBNVDIMM=y "$dir/.config" &&
	[ "$(ls -d "$CACHE"/kernels/$C1-* | wc -l)" = 2 ]
'

test_expect_success 'a user .config file gets the fragment merged' '
	printf "CONFIG_USER=y\n" >"$TMP/my.config" &&
	build --commit "$C1" --kconfig "$TMP/my.config" >"$TMP/out" &&
	dir=$(sed -n 1p "$TMP/out") &&
	grep -qx CONFIG_USER=y "$dir/.config" &&
	grep -qx CONFIG_LIBNVDIMM=y "$dir/.config" &&
	grep -qx "kconfig: my.config" "$dir/result"
'

test_expect_success 'KCFLAGS (the layout check.s aligned kernels): given to make, a kernel of its own, cached after' '
	plain=$(build --commit "$C1" | sed -n 1p) &&
	build --commit "$C1" --kcflags -falign-functions=32 >"$TMP/out" &&
	dir=$(sed -n 1p "$TMP/out") && [ "$dir" != "$plain" ] &&
	sed -n 2p "$TMP/out" | grep -q "^built in" &&
	grep -qx "  KCFLAGS -falign-functions=32" "$dir/build.log" &&
	grep -qx "  KCFLAGS " "$plain/build.log" &&
	before=$(makes) &&
	build --commit "$C1" --kcflags -falign-functions=32 >"$TMP/out2" &&
	sed -n 2p "$TMP/out2" | grep -qx cached && [ "$(sed -n 1p "$TMP/out2")" = "$dir" ] &&
	[ "$(makes)" = "$before" ] &&
	expect_exit 2 build --commit "$C1" --kcflags "-O2; rm -rf /" &&
	one_line_error "KCFLAGS .-O2; rm -rf /.: only letters, digits, spaces and"
'

test_expect_success 'a failing build: recorded with its first error line, exit 1' '
	expect_exit 1 build --commit "$C3" &&
	dir=$(sed -n 1p "$TMP/.stdout") &&
	sed -n 2p "$TMP/.stdout" | grep -qx "failed: bad.c:3:5: error: expected .;. before .}. token" &&
	one_line_error "build of ${C3%${C3#????????????}} failed; its log is .*/build.log" &&
	grep -qx "state: failed" "$dir/result" &&
	grep -q "^error: .*bad.c:3:5: error: expected" "$dir/result" &&
	[ ! -e "$dir/bzImage" ] &&
	grep -q "make.*Error" "$dir/build.log"
'

test_expect_success 'a recorded failure is not built again; --rebuild does' '
	before=$(makes) &&
	expect_exit 1 build --commit "$C3" &&
	sed -n 2p "$TMP/.stdout" | grep -q "^failed (cached; --rebuild tries again): bad.c:3:5" &&
	[ "$(makes)" = "$before" ] &&
	expect_exit 1 build --commit "$C3" --rebuild &&
	[ "$(makes)" -gt "$before" ]
'

test_expect_success 'LKPROBOT_CACHE chooses the cache; --cache overrides it' '
	LKPROBOT_CACHE=$TMP/envcache lkprobot build --tree "$REPO" --commit "$C1" >"$TMP/out" &&
	sed -n 1p "$TMP/out" | grep -q "^$TMP/envcache/kernels/$C1-" &&
	LKPROBOT_CACHE=$TMP/envcache lkprobot build --tree "$REPO" --commit "$C1" --cache "$CACHE" >"$TMP/out" &&
	sed -n 2p "$TMP/out" | grep -qx cached
'

test_expect_success 'bad revision: one line, exit 2' '
	expect_exit 2 build --commit no-such-rev &&
	one_line_error "cannot resolve .no-such-rev. in "
'

test_expect_success 'no such tree, not a repository: one line, exit 2' '
	expect_exit 2 lkprobot build --tree "$TMP/nowhere" --commit HEAD --cache "$CACHE" &&
	one_line_error "nowhere.: no such directory" &&
	expect_exit 2 lkprobot build --tree "$TMP" --commit HEAD --cache "$CACHE" &&
	one_line_error "not a git repository"
'

test_expect_success 'bad kconfig: one line, exit 2' '
	expect_exit 2 build --commit "$C1" --kconfig nonesuch &&
	one_line_error "nonesuch. is not a kconfig: give defconfig" &&
	printf "hello\n" >"$TMP/notconfig" &&
	expect_exit 2 build --commit "$C1" --kconfig "$TMP/notconfig" &&
	one_line_error "is not a kernel .config"
'

test_expect_success 'usage errors: exit 2' '
	expect_exit 2 lkprobot build --commit HEAD &&
	one_line_error "build: --tree DIR and --commit REV are both needed" &&
	expect_exit 2 lkprobot build --tree "$REPO" --commit HEAD -j x &&
	one_line_error "lkprobot: --jobs: .x. is not a number of jobs" &&
	lkprobot build --help | grep -q "^exit codes: 0 built or cached, 1 the build failed"
'

test_done
