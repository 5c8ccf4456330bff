#!/bin/sh
# Hostile input (issue 21's reproductions, each a regression test): an alias
# bomb, deep nesting, NUL bytes, a FIFO where a file should be, control
# characters and path-unsafe names in a job, forged message lines; raw files
# that are FIFOs, /dev/zero or garbage; a job.yaml that is a list; numbers
# past any range; text in other encodings and signatures libgit2 refuses;
# 300 Cc trailers; stats --reindex under concurrent readers. Each ends as one
# clear exit-2 line or a recorded result, in bounded time (every command
# runs under timeout: a hang fails the test instead of stopping it).
. "$(dirname "$0")/lib.sh"

T="timeout 60"
RUNDIR="$TMP/r/vm-scalability/p/tb/debian/k/gcc-12/aaaa"

test_expect_success 'a YAML alias bomb (7 levels of 9 aliases, 350 bytes): exit 2, one line, for every job command' '
	python3 -c "
lines = [\"a0: &a0 [x,x,x,x,x,x,x,x,x]\"]
for i in range(1, 8):
    lines.append(\"a%d: &a%d [%s]\" % (i, i, \",\".join([\"*a%d\" % (i - 1)] * 9)))
open(\"$TMP/bomb.yaml\", \"w\").write(\"\\n\".join(lines) + \"\\n\")" &&
	for c in "split-job -n" show-job job-path; do
		expect_exit 2 $T "$LKPROBOT" $c "$TMP/bomb.yaml" &&
		one_line_error "bomb.yaml:[0-9]+:[0-9]+: the aliases expand to more than 100000 values" || return 1
	done
'

test_expect_success '[ nested 50,000 deep: exit 2, one line (it crashed the parser)' '
	python3 -c "open(\"$TMP/deep.yaml\", \"w\").write(\"testcase: x\\nfio: \" + \"[\" * 50000 + \"\\n\")" &&
	expect_exit 2 $T "$LKPROBOT" split-job -n "$TMP/deep.yaml" &&
	one_line_error "deep.yaml:2:[0-9]+: lists and mappings nested more than 64 deep"
'

test_expect_success 'a NUL byte in a job file: an error at its line and column, not a silent cut' '
	printf "suite: fio\ntestcase: x\000y\nfio:\n" >"$TMP/nul.yaml" &&
	expect_exit 2 $T "$LKPROBOT" show-job "$TMP/nul.yaml" &&
	one_line_error "nul.yaml:2:12: a NUL byte: a job file is text"
'

test_expect_success 'a FIFO given as the job file: refused, no hang' '
	mkfifo "$TMP/fifo.yaml" &&
	expect_exit 2 $T "$LKPROBOT" split-job -n "$TMP/fifo.yaml" &&
	one_line_error "fifo.yaml: not a regular file"
'

test_expect_success "path-unsafe and control-character names: exit 2 with file:line by split-job, show-job, job-path and run; nothing written" '
	for v in "a/b" ".." "\"x\\ny\"" "\"x\\e[31mred\""; do
		printf "suite: fio\ntestcase: %s\nfio:\n  rw: read\n" "$v" >"$TMP/name.yaml" &&
		for c in "split-job -n" show-job job-path "run --no-store -o $TMP/nothing"; do
			expect_exit 2 $T "$LKPROBOT" $c "$TMP/name.yaml" &&
			one_line_error "name.yaml:2:11: testcase: " || return 1
		done || return 1
	done &&
	[ ! -e "$TMP/nothing" ] &&
	printf "suite: fio\ntestcase: x\ncommit: ../../etc\nfio:\n" >"$TMP/commit.yaml" &&
	expect_exit 2 $T "$LKPROBOT" job-path "$TMP/commit.yaml" &&
	one_line_error "commit.yaml:3:9: commit: .* names a directory of the result root"
'

test_expect_success 'a key with a line break cannot forge a second "lkprobot:" line' '
	printf "suite: fio\ntestcase: x\nfio:\n  \"bs\\\\nlkprobot: all is well\": 4k\n" >"$TMP/forge.yaml" &&
	expect_exit 2 $T "$LKPROBOT" split-job -n "$TMP/forge.yaml" &&
	one_line_error "forge.yaml:4:[0-9]+: key: a key has a control character \\(0x0a\\)" &&
	! grep -q "^lkprobot: all is well" "$TMP/err"
'

# a run directory of vm-scalability with the given raw file
vms_run() {
	rm -rf "$RUNDIR" && mkdir -p "$RUNDIR/0" &&
	printf "suite: vm-scalability\ntestcase: vm-scalability\nvm-scalability:\n  test: anon-w-seq\n" >"$RUNDIR/0/job.yaml"
}

test_expect_success 'raw files that are a FIFO or a symlink to /dev/zero: recorded as problems, no hang, no endless read' '
	vms_run && mkfifo "$RUNDIR/0/vm-scalability" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	one_line_error "vm-scalability.: not a regular file" &&
	grep -q "^stats_problems:" "$RUNDIR/0/job.yaml" &&
	rm "$RUNDIR/0/vm-scalability" && ln -s /dev/zero "$RUNDIR/0/vm-scalability" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	one_line_error "not a regular file"
'

test_expect_success 'vm-scalability: a 40,000-digit line is refused, a throughput past 2^63 is out of range (it wrote -9.2e18)' '
	vms_run && cp tests/fixtures/vm-scalability/anon-w-seq.out "$RUNDIR/0/vm-scalability" &&
	python3 -c "print(\"37748736 bytes / 96538 usecs = \" + \"7\" * 40000 + \" KB/s\")" >>"$RUNDIR/0/vm-scalability" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	one_line_error "vm-scalability: line [0-9]+ is longer than 4096 bytes" &&
	vms_run && cp tests/fixtures/vm-scalability/anon-w-seq.out "$RUNDIR/0/vm-scalability" &&
	echo "37748736 bytes / 96538 usecs = 15714598783538575434 KB/s" >>"$RUNDIR/0/vm-scalability" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	one_line_error "a throughput of 1.57146e\\+19 KB/s is out of range" &&
	! grep -q "e+18" "$RUNDIR/0/stats.json"
'

test_expect_success 'a garbled raw file (0xff in a vmstat number): the problem is kept in job.yaml as readable text' '
	rm -rf "$RUNDIR" && mkdir -p "$RUNDIR/0" &&
	printf "suite: vm-scalability\ntestcase: vm-scalability\nvmstat:\n" >"$RUNDIR/0/job.yaml" &&
	sed "3s/^ 1 / \xff\xfe /" tests/fixtures/tools/vmstat.txt >"$RUNDIR/0/vmstat" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	grep -q "^stats_problems:" "$RUNDIR/0/job.yaml" &&
	grep -q "\\\\xff\\\\xfe" "$RUNDIR/0/job.yaml" &&
	python3 -c "open(\"$RUNDIR/0/job.yaml\", encoding=\"utf-8\").read()" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	one_line_error "vmstat: "
'

test_expect_success 'a run whose job.yaml is a YAML list: stats says so in one line (it crashed)' '
	vms_run && printf -- "- a\n- b\n" >"$RUNDIR/0/job.yaml" &&
	expect_exit 1 $T "$LKPROBOT" stats --no-store "$RUNDIR/0" &&
	one_line_error "job.yaml: not a job \\(a mapping of keys\\)"
'

test_expect_success 'metric names that are not UTF-8 (an interrupt named with 0xff): stats.json stays valid JSON' '
	rm -rf "$RUNDIR" && mkdir -p "$RUNDIR/0" &&
	printf "suite: vm-scalability\ntestcase: vm-scalability\ninterrupts:\n" >"$RUNDIR/0/job.yaml" &&
	sed "s/Local timer interrupts/Local tim\xffer interrupts/" tests/fixtures/tools/interrupts >"$RUNDIR/0/interrupts" &&
	$T "$LKPROBOT" stats --no-store "$RUNDIR/0" >/dev/null &&
	python3 -c "
import json, sys
for f in (\"stats.json\", \"interrupts.json\"):
    d = json.load(open(\"$RUNDIR/0/\" + f, encoding=\"utf-8\"))
    assert any(\"\\ufffd\" in k for k in d), f
"
'

test_expect_success 'commits the world made: ISO-8859-1 text re-encoded, a signature libgit2 refuses still read' '
	git init -q "$TMP/repo" && cd "$TMP/repo" && git config user.email a@example.org && git config user.name A &&
	echo 1 >f && git add f && git commit -qm base && t=$(git rev-parse HEAD^{tree}) && p=$(git rev-parse HEAD) &&
	printf "tree %s\nparent %s\nauthor J\366rg M\374ller <j@example.org> 1700000000 +0100\ncommitter C <c@example.org> 1700000000 +0000\nencoding ISO-8859-1\n\nFix f\374r \344 thing\n\nSigned-off-by: J\366rg M\374ller <j@example.org>\n" "$t" "$p" >"$TMP/latin1" &&
	latin1=$(git hash-object -t commit -w "$TMP/latin1") && echo "$latin1" >"$TMP/latin1.id" &&
	printf "tree %s\nparent %s\nauthor Broken <b@example.org> notatime +0000\ncommitter C <c@example.org> 1700000000 +0000\n\nbroken\n" "$t" "$p" >"$TMP/broken" &&
	broken=$(git hash-object -t commit -w --literally "$TMP/broken") && echo "$broken" >"$TMP/broken.id" && cd "$SRC" &&
	$T "$LKPROBOT" recipients --tree "$TMP/repo" "$latin1" >"$TMP/r1" 2>"$TMP/err" &&
	grep -q "^To: Jörg Müller <j@example.org> *# author, Signed-off-by$" "$TMP/r1" && [ ! -s "$TMP/err" ] &&
	$T "$LKPROBOT" recipients --tree "$TMP/repo" "$broken" >"$TMP/r2" &&
	grep -q "^To: Broken <b@example.org>" "$TMP/r2"
'

test_expect_success 'report on those commits: exit 0, the message in UTF-8 (it was "body is not valid UTF-8" and exit 2)' '
	B="$TMP/rep/fio-basic/pp/lkp-hsw-ep6/debian/kc/gcc-6" && latin1=$(cat "$TMP/latin1.id") && broken=$(cat "$TMP/broken.id") &&
	python3 tests/fixtures/compare/gen-samples.py tests/fixtures/compare/example-000.rows "$B/base" "$B/new" &&
	for c in "$latin1" "$broken"; do cp -r "$B/new" "$B/$c" || return 1; done &&
	$T "$LKPROBOT" report --base "$B/base" --commit "$B/$latin1" --tree "$TMP/repo" --date 1485000000 -o "$TMP/l.eml" &&
	grep -q "^commit: $latin1 (\"Fix für ä thing\")$" "$TMP/l.eml" &&
	grep -q "^To: =?UTF-8?Q?J=C3=B6rg_M=C3=BCller?= <j@example.org>" "$TMP/l.eml" &&
	$T "$LKPROBOT" report --base "$B/base" --commit "$B/$broken" --tree "$TMP/repo" --date 1485000000 -o "$TMP/b.eml" &&
	grep -q "^commit: $broken (\"broken\")$" "$TMP/b.eml"
'

test_expect_success '300 Cc trailers: at most mail.max_recipients (100 by default) recipients, and a warning' '
	cd "$TMP/repo" && echo 2 >f &&
	{ echo "many"; echo; for i in $(seq 1 300); do echo "Cc: Person $i <p$i@example.org>"; done; } >"$TMP/msg" &&
	git commit -q -a -F "$TMP/msg" && cd "$SRC" &&
	$T "$LKPROBOT" recipients --tree "$TMP/repo" HEAD >"$TMP/r3" 2>"$TMP/err" &&
	[ "$(grep -c "^To:\|^Cc:" "$TMP/r3")" = 100 ] &&
	one_line_error "warning: [0-9]+ more recipients dropped \\(p[0-9]+@example.org and after\\): at most 100 \\(mail.max_recipients\\)" &&
	printf "mail:\n  max_recipients: 5\n" >"$TMP/five.yaml" &&
	$T "$LKPROBOT" recipients --tree "$TMP/repo" --config "$TMP/five.yaml" HEAD >"$TMP/r4" 2>/dev/null &&
	[ "$(grep -c "^To:\|^Cc:" "$TMP/r4")" = 5 ] &&
	printf "mail:\n  max_recipients: none\n" >"$TMP/bad.yaml" &&
	expect_exit 2 $T "$LKPROBOT" recipients --tree "$TMP/repo" --config "$TMP/bad.yaml" HEAD &&
	one_line_error "bad.yaml:2:[0-9]+: .*max_recipients: must be a positive number"
'

test_expect_success 'stats --reindex while 40 compare --db readers run: no reader sees the rows half made' '
	for c in aaaa1111 bbbb2222; do for r in $(seq 0 29); do
		d="$TMP/rd/fio-basic/pp/tb/debian/kc/gcc-12/$c/$r"; mkdir -p "$d"
		printf "testcase: fio-basic\ntbox_group: tb\ncommit: %s\nkconfig: kc\ncompiler: gcc-12\nrootfs: debian\njob_state: finished\n" $c >"$d/job.yaml"
		echo "{\"fio.write_bw_MBps\": $((100 + r)), \"vmstat.cpu.us\": 3}" >"$d/stats.json"
	done; done &&
	"$LKPROBOT" stats --reindex "$TMP/rd" --db "$TMP/st.db" >/dev/null &&
	{ for i in 1 2 3 4 5 6; do "$LKPROBOT" stats --reindex "$TMP/rd" --db "$TMP/st.db" >/dev/null || echo reindex-failed; done >"$TMP/writer" 2>&1 & echo $! >"$TMP/writer.pid"; } &&
	fails=0 &&
	for i in $(seq 1 40); do
		$T "$LKPROBOT" compare --db "$TMP/st.db" aaaa bbbb >/dev/null 2>"$TMP/cmp.err" || { fails=$((fails + 1)); cat "$TMP/cmp.err"; }
	done &&
	wait "$(cat "$TMP/writer.pid")" &&
	echo "readers that failed: $fails of 40" && [ "$fails" = 0 ] && [ ! -s "$TMP/writer" ]
'

test_expect_success 'a test printing an escape sequence as a metric name: refused by the parser, its reason shown escaped, nothing raw on any output' '
	printf "printf \"\\\\033[2Jx: 5\\\\nthroughput: 5\\\\n\"\n" >"$TMP/evil.sh" &&
	sh "$TMP/evil.sh" | od -c | grep -q "033   \[   2   J   x" &&
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: sh %s\n" "$TMP/evil.sh" >"$TMP/evil.yaml" &&
	$T "$LKPROBOT" run --no-store -o "$TMP/evil-res" "$TMP/evil.yaml" >"$TMP/evil.out" 2>&1 &&
	j=$(find "$TMP/evil-res" -name job.yaml) && [ -n "$j" ] &&
	grep -q "command: stats key .\\\\x1b\[2Jx. has a character that is not printable ASCII (0x1b)" "$j" &&
	! grep -q "x1b\|2Jx" "$(dirname "$j")/stats.json" &&
	! grep -q "$(printf "\033")" "$TMP/evil.out" "$j" "$(dirname "$j")/stats.json"
'

test_expect_success 'compare of sides whose stats name metrics with escapes and line breaks: one row each, the names escaped' '
	python3 - "$TMP/cmp/c/p/g/r/k/c" <<-\EOF &&
	import json, os, sys
	for side, base in (("base0000", 100), ("new00000", 60)):
	    d = os.path.join(sys.argv[1], side)
	    m = {}
	    for run in range(3):
	        os.makedirs(os.path.join(d, str(run)))
	        st = {"command.x\u001b[2J\u001b]0;owned\u0007y": base + run, "command.a\nb\rc": 2 * base + run}
	        json.dump(st, open(os.path.join(d, str(run), "stats.json"), "w"))
	        for k, v in st.items():
	            m.setdefault(k, []).append(v)
	    json.dump(m, open(os.path.join(d, "matrix.json"), "w"))
	EOF
	$T "$LKPROBOT" compare "$TMP/cmp/c/p/g/r/k/c/base0000" "$TMP/cmp/c/p/g/r/k/c/new00000" >"$TMP/cmp.n" &&
	$T "$LKPROBOT" compare --classic "$TMP/cmp/c/p/g/r/k/c/base0000" "$TMP/cmp/c/p/g/r/k/c/new00000" >"$TMP/cmp.c" &&
	cat "$TMP/cmp.n" "$TMP/cmp.c" &&
	! grep -q "$(printf "\033")" "$TMP/cmp.n" "$TMP/cmp.c" && ! grep -q "$(printf "\r")" "$TMP/cmp.n" "$TMP/cmp.c" &&
	! grep -q "^b" "$TMP/cmp.n" "$TMP/cmp.c" &&
	grep -q "command\.x\\\\x1b\[2J\\\\x1b\]0;owned\\\\x07y$" "$TMP/cmp.n" "$TMP/cmp.c" &&
	grep -q "command\.a\\\\nb\\\\rc$" "$TMP/cmp.n"
'

test_done
