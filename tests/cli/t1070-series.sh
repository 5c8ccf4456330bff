#!/bin/sh
# Patch series from a mailing list: a real public-inbox v2 archive (made by
# public-inbox-init -V2, fed by public-inbox-mda) holding a 3-patch series
# with a cover letter and base-commit: made by git format-patch, a reply, a
# series that does not apply to the tree, and hostile mails (a path out of
# the tree, a control character in a subject, a 10,000-patch "series", a
# 50 MB mail). `lkprobot series` lists them; --apply applies as git am
# would into the robot's own repository, on a branch named as 0-day does.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
test_need_cmd public-inbox-mda public-inbox
test_need_cmd python3 python3

# libgit2's fetch leaks inside libpcre2 (tests/lsan.supp, as make check runs it)
LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS HOME="$TMP/home" PI_CONFIG="$TMP/pi-config"
A="$TMP/nvdimm"
expect_code() {	# expect_code CODE COMMAND...
	want=$1
	shift
	rc=0
	"$@" || rc=$?
	test "$rc" = "$want"
}
deliver() {	# deliver FILE...
	for f in "$@"; do
		ORIGINAL_RECIPIENT=nvdimm@lists.example.org public-inbox-mda --no-precheck <"$f" || return 1
	done
}

test_expect_success 'setup: a tree, its 3-patch series, a reply, a patch for another tree, hostile mails' '
	mkdir -p "$HOME" && git init -q -b master "$TMP/tree" && cd "$TMP/tree" &&
	git config user.name "Dan Williams" && git config user.email dan.j.williams@intel.com &&
	printf "one\n" >a.c && git add a.c && git commit -qm "a: the first line" &&
	git checkout -qb topic &&
	printf "one\ntwo\n" >a.c && git commit -qam "a: add two" &&
	printf "three\n" >b.c && git add b.c && git commit -qm "b: add three" &&
	printf "one\ntwo\nfour\n" >a.c && git commit -qam "a: add four" &&
	git format-patch -q --thread --cover-letter --base=master -3 -o "$TMP/s1" --to=nvdimm@lists.example.org &&
	sed -i "s/\*\*\* SUBJECT HERE \*\*\*/dax, pmem: move cpu cache maintenance to libnvdimm/" "$TMP/s1/0000-cover-letter.patch" &&
	git checkout -q master && cd "$SRC" &&
	git init -q -b master "$TMP/other" && cd "$TMP/other" &&
	git config user.name "Jane Doe" && git config user.email jane@example.org &&
	printf "uno\n" >a.c && git add a.c && git commit -qm base &&
	printf "UNO\n" >a.c && git commit -qam "a: shout" &&
	git format-patch -q -1 -o "$TMP/s2" --to=nvdimm@lists.example.org &&
	printf "x\n" >c.c && git add c.c && git commit -qm "c: escape" &&
	git format-patch -q -1 -o "$TMP/s3" --to=nvdimm@lists.example.org && cd "$SRC" &&
	sed -i "s|a/c.c|a/../../escaped|g; s|b/c.c|b/../../escaped|g; s|\[PATCH\] c: escape|[PATCH] c: escape the tree|" "$TMP"/s3/*.patch &&
	sed "s|^Subject: \[PATCH\] c: escape the tree|Subject: [PATCH 1/10000] a long one|; s|^Message-ID: <|Message-ID: <long.|" "$TMP"/s3/*.patch >"$TMP/long.eml" &&
	python3 -c "
import email.message, sys
m = email.message.EmailMessage()
m[\"From\"] = \"Reviewer <rev@example.org>\"
m[\"To\"] = \"nvdimm@lists.example.org\"
m[\"Subject\"] = \"Re: [PATCH 2/3] b: add three\"
m[\"Message-ID\"] = \"<reply.1@example.org>\"
m[\"In-Reply-To\"] = \"<cover@x>\"
m[\"Date\"] = \"Sat, 21 Jan 2017 04:00:00 +0000\"
m.set_content(\"Looks good.\n\")
open(sys.argv[1], \"w\").write(m.as_string())
e = email.message.EmailMessage()
e[\"From\"] = \"Mallory <m@example.org>\"
e[\"To\"] = \"nvdimm@lists.example.org\"
e[\"Subject\"] = \"[PATCH] evil \x1b[2J subject\"
e[\"Message-ID\"] = \"<evil.1@example.org>\"
e[\"Date\"] = \"Sat, 21 Jan 2017 04:00:00 +0000\"
e.set_content(open(sys.argv[3]).read().split(\"\n\n\", 1)[1])
open(sys.argv[2], \"w\").write(e.as_string())
" "$TMP/reply.eml" "$TMP/evil.eml" "$TMP"/s2/*.patch &&
	public-inbox-init -V2 nvdimm "$A" http://example.org/nvdimm nvdimm@lists.example.org &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none &&
	deliver "$TMP"/s1/*.patch "$TMP/reply.eml" "$TMP"/s2/*.patch "$TMP"/s3/*.patch "$TMP/long.eml" "$TMP/evil.eml" &&
	test "$(git -C "$A/git/0.git" rev-list --count HEAD)" = 9
'

test_expect_success 'series lists the series, their states, the ignored and the refused mails' '
	lkprobot series "$A" >"$TMP/out" &&
	cat "$TMP/out" &&
	grep -q "^9 mails: 2 series, 1 ignored (replies, not patches), 3 refused$" "$TMP/out" &&
	grep -q "^complete   v1 3/3 Dan Williams: dax, pmem: move cpu cache maintenance to libnvdimm$" "$TMP/out" &&
	grep -q "^complete   v1 1/1 Jane Doe: a: shout$" "$TMP/out" &&
	grep -q "^refused    <.*>: its diff names the path .a/\.\./\.\./escaped., which leaves the tree (absolute, .\.\.. or .\.git.)$" "$TMP/out" &&
	grep -q "^refused    <.*>: patch 1/10000: lkprobot applies series of 500 patches at most$" "$TMP/out" &&
	grep -q "^refused    <evil.1@example.org>: a control character in its header$" "$TMP/out"
'

test_expect_success '--apply: the series on its base-commit, as git am would, on 0-day'"'"'s branch' '
	expect_code 1 lkprobot series --apply --tree "$TMP/tree" --repo "$TMP/robot.git" "$A" >"$TMP/out" &&
	cat "$TMP/out" &&
	b=$(sed -n "s/^    applied: \(Dan-Williams[^ ]*\) (3 commits on \([0-9a-f]*\), its base-commit:)$/\1/p" "$TMP/out") &&
	case $b in Dan-Williams/dax-pmem-move-cpu-cache-maintenance-to-libnvdimm/[0-9]*-[0-9]*) ;; *) false ;; esac &&
	test "$(git -C "$TMP/robot.git" rev-parse "$b^{tree}")" = "$(git -C "$TMP/tree" rev-parse "topic^{tree}")" &&
	test "$(git -C "$TMP/robot.git" rev-parse "$b~3")" = "$(git -C "$TMP/tree" rev-parse master)" &&
	git -C "$TMP/robot.git" log --format="%an <%ae>|%s" "$b~3..$b" >"$TMP/log" &&
	printf "%s\n" "Dan Williams <dan.j.williams@intel.com>|a: add four" \
		"Dan Williams <dan.j.williams@intel.com>|b: add three" \
		"Dan Williams <dan.j.williams@intel.com>|a: add two" | diff - "$TMP/log" &&
	git clone -q --branch "$b" "$TMP/robot.git" "$TMP/clone" && test -f "$TMP/clone/b.c"
'

test_expect_success '--apply: a series that does not apply is said with its first failing patch' '
	grep -A1 "^complete   v1 1/1 Jane Doe: a: shout$" "$TMP/out" | tail -1 >"$TMP/shout" &&
	grep -q "^    not applied: patch 1/1 (a: shout) does not apply: a.c: hunk #1 (@@ -1 +1 @@) does not apply on [0-9a-f]\{12\}$" "$TMP/shout" &&
	test "$(git -C "$TMP/robot.git" for-each-ref refs/heads | wc -l)" = 1
'

test_expect_success '--apply: the first hunk that fails is named, its file and header, when the ones before it apply' '
	cd "$TMP/tree" && seq 1 30 >long.c && git add long.c && git commit -qm "long: thirty lines" &&
	git branch h && sed -i "s/^25$/twenty-five/" long.c && git commit -qam "long: spell 25" &&
	git checkout -q h && sed -i "s/^2$/two/; s/^25$/25 and more/" long.c && git commit -qam "long: two changes" &&
	git format-patch -q -1 -o "$TMP/s7" --to=nvdimm@lists.example.org && git checkout -q master && cd "$SRC" &&
	grep -c "^@@ " "$TMP"/s7/*.patch | grep -qx 2 &&
	deliver "$TMP"/s7/*.patch &&
	expect_code 1 lkprobot series --apply --tree "$TMP/tree" --repo "$TMP/robot.git" "$A" >"$TMP/out7" &&
	grep -A1 "^complete   v1 1/1 Dan Williams: long: two changes$" "$TMP/out7" | tail -1 >"$TMP/hunk" && cat "$TMP/hunk" &&
	grep -q "^    not applied: patch 1/1 (long: two changes) does not apply: long.c: hunk #2 (@@ -22,7 +22,7 @@) does not apply on $(git -C "$TMP/tree" rev-parse --short=12 master)$" "$TMP/hunk"
'

test_expect_success 'diff headers out of the tree (..\/, absolute, .git), read directly: exit 2, one line; nothing written outside' '
	sed "1a Message-ID: <escape.1@example.org>" "$TMP"/s3/*.patch >"$TMP/up.eml" && p="$TMP/up.eml" &&
	sed "s|a/\.\./\.\./escaped|/tmp/abs-escaped|g; s|b/\.\./\.\./escaped|/tmp/abs-escaped|g" "$p" >"$TMP/abs.eml" &&
	sed "s|a/\.\./\.\./escaped|a/.git/hooks/pre-commit|g; s|b/\.\./\.\./escaped|b/.git/hooks/pre-commit|g" "$p" >"$TMP/hook.eml" &&
	grep -q "^+++ /tmp/abs-escaped$" "$TMP/abs.eml" && grep -q "^+++ b/.git/hooks/pre-commit$" "$TMP/hook.eml" &&
	for f in "$p" "$TMP/abs.eml" "$TMP/hook.eml"; do
		expect_code 2 lkprobot series --mail "$f" 2>"$TMP/err" && cat "$TMP/err" &&
		test "$(wc -l <"$TMP/err")" = 1 && grep -q "refused: its diff names the path .* which leaves the tree" "$TMP/err" || return 1
	done &&
	test ! -e "$TMP/escaped" && test ! -e "$TMP/../escaped" && test ! -e escaped && test ! -e /tmp/abs-escaped &&
	test ! -e "$TMP/robot.git/hooks/pre-commit" && test ! -e "$TMP/tree/.git/hooks/pre-commit"
'

test_expect_success '--mail: one mail read directly; a 50 MB one refused with exit 2, one line' '
	lkprobot series --mail "$TMP/s1/0002-b-add-three.patch" >"$TMP/one" &&
	grep -q "0002-b-add-three.patch: patch v1 2/3 b: add three$" "$TMP/one" &&
	head -c 52428800 /dev/zero | tr "\0" "a" >"$TMP/big.eml" &&
	expect_code 2 lkprobot series --mail "$TMP/big.eml" 2>"$TMP/err" &&
	test "$(wc -l <"$TMP/err")" = 1 && grep -q "refused: a mail of .* bytes: lkprobot reads mails of 10 MiB at most" "$TMP/err" &&
	expect_code 2 lkprobot series --mail "$TMP/evil.eml" 2>"$TMP/err" &&
	grep -q "refused: a control character in its header" "$TMP/err"
'

test_expect_success 'an archive that is none: exit 2, one line saying what to give' '
	expect_code 2 lkprobot series "$TMP/tree" 2>"$TMP/err" &&
	test "$(wc -l <"$TMP/err")" = 1 && grep -q "not a public-inbox v2 archive" "$TMP/err" &&
	expect_code 2 lkprobot series --apply "$A" 2>"$TMP/err" && grep -q "needs --tree DIR and --repo DIR" "$TMP/err"
'

test_expect_success 'a base64 patch applies; a binary diff, a symlink: refused with the reason, exit 2 read directly' '
	cd "$TMP/tree" && git checkout -qb d master && echo d >d.c && git add d.c && git commit -qm "d: add d" &&
	git format-patch -q -1 -o "$TMP/s4" --to=nvdimm@lists.example.org && git checkout -q master &&
	cd "$TMP/other" && git checkout -qb bin HEAD~2 && printf "\000\001\002" >blob.bin && git add blob.bin &&
	git commit -qm "bin: a binary file" && git format-patch -q --binary -1 -o "$TMP/s5" --to=nvdimm@lists.example.org &&
	git checkout -qb link HEAD~1 && ln -s /etc/passwd pw && git add pw && git commit -qm "pw: a symlink" &&
	git format-patch -q -1 -o "$TMP/s6" --to=nvdimm@lists.example.org && cd "$SRC" &&
	python3 -c "
import email, email.policy, sys
m = email.message_from_string(open(sys.argv[1]).read(), policy=email.policy.default)
body = m.get_content()
del m[\"Content-Transfer-Encoding\"]
m.set_content(body, cte=\"base64\")
open(sys.argv[2], \"w\").write(m.as_string())
" "$TMP"/s4/*.patch "$TMP/b64.eml" &&
	grep -q "^Content-Transfer-Encoding: base64" "$TMP/b64.eml" &&
	deliver "$TMP/b64.eml" "$TMP"/s5/*.patch "$TMP"/s6/*.patch &&
	expect_code 1 lkprobot series --apply --tree "$TMP/tree" --repo "$TMP/robot.git" "$A" >"$TMP/out4" &&
	cat "$TMP/out4" &&
	grep -A1 "^complete   v1 1/1 Dan Williams: d: add d$" "$TMP/out4" |
		grep -q "^    applied: Dan-Williams/d-add-d/[0-9]*-[0-9]* (1 commit on [0-9a-f]*, the head of its branch at its date)$" &&
	grep -q "^refused    <.*>: its diff is binary, which lkprobot does not apply$" "$TMP/out4" &&
	grep -q "^refused    <.*>: its diff makes a symlink (mode 120000), which lkprobot does not apply$" "$TMP/out4" &&
	for f in "$TMP"/s5/*.patch "$TMP"/s6/*.patch; do
		sed "1a Message-ID: <direct.1@example.org>" "$f" >"$TMP/direct.eml" &&
		expect_code 2 lkprobot series --mail "$TMP/direct.eml" 2>"$TMP/err" && test "$(wc -l <"$TMP/err")" = 1 || return 1
	done &&
	grep -q "refused: its diff makes a symlink (mode 120000)" "$TMP/err"
'

test_expect_success 'MIME as git sends it: quoted-printable, --attach, --inline and a mode change apply as git am would' '
	cd "$TMP/tree" && git checkout -qb e master &&
	printf "x = \"%s\"; /* caf\303\251 */\n" "$(seq -s= 1 40)" >e.c && chmod +x a.c && git add e.c a.c &&
	git commit -qm "e: quoted-printable, a.c executable" -m "$(printf "Un caf\303\251.")" && git format-patch -q --thread -1 -o "$TMP/s8" --to=nvdimm@lists.example.org &&
	git checkout -qb f master && echo f >f.c && git add f.c && git commit -qm "f: attached" &&
	git format-patch -q --thread --attach -1 -o "$TMP/s9" --to=nvdimm@lists.example.org &&
	git checkout -qb g master && echo g >g.c && git add g.c && git commit -qm "g: inline" &&
	git format-patch -q --thread --inline -1 -o "$TMP/s10" --to=nvdimm@lists.example.org && git checkout -q master && cd "$SRC" &&
	python3 -c "
import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
body = m.get_content()
del m[\"Content-Transfer-Encoding\"]
m.set_content(body, cte=\"quoted-printable\")
open(sys.argv[2], \"w\").write(m.as_string())
" "$TMP"/s8/*.patch "$TMP/qp.eml" &&
	grep -q "^Content-Transfer-Encoding: quoted-printable" "$TMP/qp.eml" && grep -q "=3D" "$TMP/qp.eml" && grep -q "caf=C3=A9" "$TMP/qp.eml" &&
	grep -q "^Content-Disposition: attachment" "$TMP"/s9/*.patch && grep -q "^Content-Disposition: inline" "$TMP"/s10/*.patch &&
	deliver "$TMP/qp.eml" "$TMP"/s9/*.patch "$TMP"/s10/*.patch &&
	expect_code 1 lkprobot series --apply --tree "$TMP/tree" --repo "$TMP/robot.git" "$A" >"$TMP/out8" && cat "$TMP/out8" &&
	for t in "e-quoted-printable-a-c-executable" f-attached g-inline; do
		b=$(sed -n "s|^    applied: \(Dan-Williams/$t/[0-9-]*\) (1 commit on .*|\1|p" "$TMP/out8") &&
		test "$(git -C "$TMP/robot.git" rev-parse "$b^{tree}")" = "$(git -C "$TMP/tree" rev-parse "${t%%-*}^{tree}")" || return 1
	done &&
	be=$(sed -n "s|^    applied: \(Dan-Williams/e-quoted-printable-a-c-executable/[0-9-]*\) .*|\1|p" "$TMP/out8") &&
	git -C "$TMP/robot.git" ls-tree "$be" a.c | grep -q "^100755 blob " &&
	test "$(git -C "$TMP/robot.git" rev-parse "$be:e.c")" = "$(git -C "$TMP/tree" rev-parse e:e.c)"
'

test_expect_success 'malformed MIME: each refused with its reason (exit 2 read directly) or read as it says, never a crash' '
	p=$(echo "$TMP"/s10/*.patch) && q=$(echo "$TMP"/s9/*.patch) &&
	sed "/^--------------2/d; s/^Message-I[dD]: </Message-ID: <m1./" "$p" >"$TMP/m1.eml" &&
	sed "s/; boundary=\"[^\"]*\"//; s/^Message-I[dD]: </Message-ID: <m2./" "$q" >"$TMP/m2.eml" &&
	sed "/^Subject: /a Content-Transfer-Encoding: base64" "$TMP"/s4/*.patch | sed "1a Message-ID: <m3.1@example.org>" >"$TMP/m3.eml" &&
	printf "%s\n" "From: Jane Doe <jane@example.org>" "Subject: [PATCH] h: a header and no body" "Message-ID: <m4.1@example.org>" \
		"Content-Type: multipart/mixed; boundary=x" >"$TMP/m4.eml" &&
	for m in m1 m2 m3 m4; do
		expect_code 2 lkprobot series --mail "$TMP/$m.eml" 2>"$TMP/err" && cat "$TMP/err" &&
		test "$(wc -l <"$TMP/err")" = 1 || return 1
	done &&
	grep -q "m4.eml: refused: no text body$" "$TMP/err" &&
	lkprobot series --mail "$TMP/m2.eml" 2>&1 | grep -q "refused: no text body$" &&
	lkprobot series --mail "$TMP/m3.eml" 2>&1 | grep -q "refused: patch .* has no diff (diff --git ...) in its text$" &&
	deliver "$TMP/m1.eml" "$TMP/m2.eml" "$TMP/m3.eml" "$TMP/m4.eml" &&
	lkprobot series "$A" >"$TMP/out9" && cat "$TMP/out9" &&
	test "$(grep -c "^refused    <m[1-4]\." "$TMP/out9")" = 4
'

conf() {	# conf FILE ARCHIVE TREE: a serve: section with one tree and one list
	cat >"$1" <<-EOF
	serve:
	  result_root: $TMP/res
	  cache: $TMP/cache
	  trees:
	    - name: demo
	      path: $TMP/tree
	      branches: [master]
	      jobs: [$TMP/job.yaml]
	  lists:
	    - name: nvdimm
	      archive: $2
	      tree: $3
	EOF
}

test_expect_success 'check-config: serve.lists checked (the archive, the tree), series_repo said' '
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	conf "$TMP/c.yaml" "$A" demo &&
	lkprobot check-config -c "$TMP/c.yaml" >"$TMP/out" &&
	grep -q "1 tree, 1 mailing list (series into $TMP/cache/series.git), mail" "$TMP/out" &&
	conf "$TMP/c.yaml" "$TMP/tree" demo &&
	expect_code 2 lkprobot check-config -c "$TMP/c.yaml" 2>"$TMP/err" &&
	test "$(wc -l <"$TMP/err")" = 1 &&
	grep -q "c.yaml:11:[0-9]*: serve.lists.archive: .*not a public-inbox v2 archive" "$TMP/err" &&
	conf "$TMP/c.yaml" "$A" linux &&
	expect_code 2 lkprobot check-config -c "$TMP/c.yaml" 2>"$TMP/err" &&
	grep -q "c.yaml:12:[0-9]*: serve.lists.tree: names no tree of serve.trees" "$TMP/err"
'

test_done
