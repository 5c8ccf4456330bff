#!/bin/sh
# Who gets what: mail.subscriptions (a person or a list Cc'd on the reports
# of changes in their paths, MAINTAINERS entries or trees, for regressions
# only or improvements too) and mail.opt_out (never mailed, whoever names
# them), through `lkprobot recipients` and reports delivered to a real SMTP
# server (python3-aiosmtpd, tests/fixtures/smtp/smtpd.py); the outbox leaves
# an opted-out address out of a mail queued before it opted out.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3

PY=/usr/bin/python3
FIX="$SRC/tests/fixtures"
port=$((21000 + $$ % 20000))
B="$TMP/r/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6"

. "$(dirname "$0")/smtplib.sh"
test_at_exit stop_smtpd
test_log "$TMP/smtpd.log"

conf() {	# conf FILE live [extra yaml lines of mail:]
	f=$1 live=$2
	shift 2
	{
		printf "mail:\n  live: %s\n  operator: Robot Operator <ops@example.org>\n" "$live"
		printf "  from: kernel test robot <lkp@example.org>\n  domain: lkp.example.org\n  retry: 1\n"
		printf "  smtp:\n    url: smtp://localhost:%s\n    tls: none\n    timeout: 20\n" $port
		printf "  subscriptions:\n"
		printf "    - address: Pmem Watch <pmem-watch@example.org>\n      paths: [drivers/nvdimm/]\n"
		printf "    - address: perf-all@lists.example.org\n      maintainers: [\"libnvdimm*\"]\n      improvements: true\n"
		printf "    - address: Tree Watch <tree-watch@example.org>\n      trees: [linux]\n"
		printf "    - address: mm-watch@example.org\n      paths: [mm/]\n"
		for l in "$@"; do echo "$l"; done
	} >"$f"
}

# the envelope (rcpt) and the To/Cc headers of spooled message DIR, one address a line, sorted
rcpts() { tr A-Z a-z <"$1/rcpt" | sort; }
headers() {
	"$PY" -c "import email, email.policy, email.utils, sys
m = email.message_from_bytes(open(sys.argv[1] + \"/data\", \"rb\").read(), policy=email.policy.default)
for n, a in email.utils.getaddresses(m.get_all(\"To\", []) + m.get_all(\"Cc\", [])):
    print(a.lower())
" "$1" | sort
}

test_expect_success 'setup: a repository with MAINTAINERS, a commit in drivers/nvdimm, the samples of example 1' '
	git init -q "$TMP/linux" && cd "$TMP/linux" &&
	git config user.email committer@example.org && git config user.name "The Committer" &&
	mkdir -p drivers/nvdimm && printf "int pmem;\n" >drivers/nvdimm/pmem.c &&
	printf "LIBNVDIMM PMEM: PERSISTENT MEMORY DRIVER\nM:\tDan Williams <dan.j.williams@intel.com>\nF:\tdrivers/nvdimm/pmem*\n" >MAINTAINERS &&
	git add -A && git commit -qm base &&
	printf "int pmem_slow;\n" >>drivers/nvdimm/pmem.c && git add -A &&
	GIT_AUTHOR_NAME="Quiet Author" GIT_AUTHOR_EMAIL=author@quiet.example.org \
		git commit -qm "pmem: slower" -m "Signed-off-by: Quiet Author <author@quiet.example.org>" -m "Cc: Loud <loud@example.org>" &&
	cd "$SRC" &&
	ID=$(git -C "$TMP/linux" rev-parse HEAD) && echo "$ID" >"$TMP/id" &&
	python3 "$FIX/compare/gen-samples.py" "$FIX/compare/example-000.rows" "$B/base" "$B/$ID" &&
	mkdir -p "$B/$ID/0" &&
	lkprobot split-job -t lkp-hsw-ep6 -o "$TMP/sj" jobs/fio-basic/fio-basic-2pmem-xfs-dax-randwrite-2M-sync.yaml >/dev/null &&
	cp "$TMP"/sj/*.yaml "$B/$ID/0/job.yaml" &&
	printf "int pmem;\n" >"$TMP/linux/drivers/nvdimm/pmem.c" &&
	git -C "$TMP/linux" commit -qam "pmem: faster again" && FAST=$(git -C "$TMP/linux" rev-parse HEAD) &&
	echo "$FAST" >"$TMP/fast" &&
	cp -r "$B/base" "$B/$FAST" && mkdir -p "$B/$FAST/0" && cp "$B/$ID/0/job.yaml" "$B/$FAST/0/" &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'recipients: each subscriber with the subscription that added it; the others not, and why' '
	conf "$TMP/dry.yaml" false &&
	lkprobot recipients --config "$TMP/dry.yaml" --tree "$TMP/linux" --tree-name linux HEAD~ >"$TMP/rc" &&
	cat "$TMP/rc" &&
	grep -q "^To: Quiet Author <author@quiet.example.org> *# author, Signed-off-by$" "$TMP/rc" &&
	grep -q "^Cc: Pmem Watch <pmem-watch@example.org> *# subscribed: path drivers/nvdimm/ (regressions only)$" "$TMP/rc" &&
	grep -q "^Cc: perf-all@lists.example.org *# subscribed: MAINTAINERS LIBNVDIMM PMEM: PERSISTENT MEMORY DRIVER (regressions and improvements)$" "$TMP/rc" &&
	grep -q "^Cc: Tree Watch <tree-watch@example.org> *# subscribed: tree linux (regressions only)$" "$TMP/rc" &&
	! grep -q "mm-watch" "$TMP/rc" &&
	lkprobot recipients --config "$TMP/dry.yaml" --tree "$TMP/linux" --improvement HEAD~ >"$TMP/rc2" &&
	cat "$TMP/rc2" &&
	grep -q "^Cc: perf-all@lists.example.org " "$TMP/rc2" &&
	! grep -q "^Cc: .*\(pmem-watch\|tree-watch\)" "$TMP/rc2" &&
	grep -q "^# not added: Pmem Watch <pmem-watch@example.org>, subscribed: path drivers/nvdimm/ (regressions only): the change is an improvement$" "$TMP/rc2"
'

test_expect_success SETUP 'recipients: an opted-out address is not listed, and the comment says who and by which entry' '
	conf "$TMP/opt.yaml" false "  opt_out: [\"*@quiet.example.org\", LOUD@example.org]" &&
	lkprobot recipients --config "$TMP/opt.yaml" --tree "$TMP/linux" HEAD~ >"$TMP/rc3" &&
	cat "$TMP/rc3" &&
	! grep -q "^\(To\|Cc\): .*\(quiet\|loud\)" "$TMP/rc3" &&
	grep -q "^Cc: Pmem Watch <pmem-watch@example.org> " "$TMP/rc3" &&
	grep -q "^# opted out, not mailed: Quiet Author <author@quiet.example.org> (author, Signed-off-by; mail.opt_out: \*@quiet.example.org)$" "$TMP/rc3" &&
	grep -q "^# opted out, not mailed: Loud <loud@example.org> (Cc; mail.opt_out: LOUD@example.org)$" "$TMP/rc3" &&
	conf "$TMP/both.yaml" false "  opt_out: [PMEM-WATCH@example.org]" &&
	expect_exit 2 lkprobot recipients --config "$TMP/both.yaml" --tree "$TMP/linux" HEAD~ &&
	one_line_error "both.yaml:[0-9]+:[0-9]+: mail.subscriptions.address: is in mail.opt_out too"
'

test_expect_success SETUP 'bad subscriptions and opt-outs: one line naming file:line:col and the key, exit 2' '
	printf "mail:\n  subscriptions:\n    - address: a@example.org\n" >"$TMP/bad1.yaml" &&
	expect_exit 2 lkprobot recipients --config "$TMP/bad1.yaml" --tree "$TMP/linux" HEAD &&
	one_line_error "bad1.yaml:3:7: mail.subscriptions: subscribes to nothing: give paths, maintainers or trees" &&
	printf "mail:\n  operator: ops@example.org\n  opt_out: [nobody]\n" >"$TMP/bad2.yaml" &&
	expect_exit 2 lkprobot recipients --config "$TMP/bad2.yaml" --tree "$TMP/linux" HEAD &&
	one_line_error "bad2.yaml:3:13: mail.opt_out: invalid address .nobody.: no .@.; give an address, or a glob" &&
	printf "mail:\n  operator: ops@example.org\n  opt_out: [\"*@example.org\"]\n" >"$TMP/bad3.yaml" &&
	expect_exit 2 lkprobot recipients --config "$TMP/bad3.yaml" --tree "$TMP/linux" HEAD &&
	one_line_error "bad3.yaml:2:13: mail.operator: is in mail.opt_out"
'

test_expect_success SETUP 'live: the subscribers of a regression get it, the opted-out author does not; the log says so' '
	conf "$TMP/live.yaml" true "  opt_out: [\"*@quiet.example.org\"]" &&
	start_smtpd "$TMP/spool1" &&
	lkprobot report --send --config "$TMP/live.yaml" --db "$TMP/o1.db" --tree "$TMP/linux" --tree-name linux \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 >"$TMP/s1" &&
	stop_smtpd && cat "$TMP/s1" &&
	grep -q "^opt-out: not to Quiet Author <author@quiet.example.org> (mail.opt_out: \*@quiet.example.org)$" "$TMP/s1" &&
	printf "committer@example.org\ndan.j.williams@intel.com\nloud@example.org\nperf-all@lists.example.org\npmem-watch@example.org\ntree-watch@example.org\n" >"$TMP/want1" &&
	rcpts "$TMP/spool1/1" >"$TMP/got1" && diff "$TMP/want1" "$TMP/got1" &&
	headers "$TMP/spool1/1" >"$TMP/hdr1" && diff "$TMP/want1" "$TMP/hdr1" &&
	grep -q "^Subject: .*regression" "$TMP/spool1/1/data"
'

test_expect_success SETUP 'an improvement: only the subscribers of improvements too' '
	start_smtpd "$TMP/spool2" &&
	lkprobot report --send --config "$TMP/live.yaml" --db "$TMP/o2.db" --tree "$TMP/linux" --tree-name linux \
		--base "$B/$(cat "$TMP/id")" --commit "$B/$(cat "$TMP/fast")" --to dev@example.org --date 1485000000 >"$TMP/s2" &&
	stop_smtpd && cat "$TMP/s2" &&
	grep -q "^Subject: .*improvement" "$TMP/spool2/1/data" &&
	printf "dev@example.org\nperf-all@lists.example.org\n" >"$TMP/want2" &&
	rcpts "$TMP/spool2/1" >"$TMP/got2" && diff "$TMP/want2" "$TMP/got2"
'

test_expect_success SETUP 'a dry run names who opted out, for the operator; everyone opted out: held, nothing queued (exit 1)' '
	conf "$TMP/dryopt.yaml" false "  opt_out: [\"*@quiet.example.org\", dev@example.org]" &&
	start_smtpd "$TMP/spool3" &&
	lkprobot report --send --config "$TMP/dryopt.yaml" --db "$TMP/o3.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 >"$TMP/s3" &&
	[ "$(cat "$TMP/spool3/1/rcpt")" = "ops@example.org" ] &&
	tr -d "\r" <"$TMP/spool3/1/data" | sed -n "/^X-lkprobot-Dry-Run:/,/^[^ ]/p" | tr -d "\n" >"$TMP/dry3" && cat "$TMP/dry3" &&
	grep -q "not to, by mail.opt_out: Quiet Author <author@quiet.example.org> (mail.opt_out: \*@quiet.example.org)" "$TMP/dry3" &&
	expect_exit 1 lkprobot report --send --config "$TMP/dryopt.yaml" --db "$TMP/o3.db" --to DEV@example.org \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000001 &&
	stop_smtpd &&
	one_line_error "every recipient is in mail.opt_out \(1\): recorded, not mailed" &&
	[ $(ls "$TMP/spool3" | wc -l) = 1 ] &&
	[ $(lkprobot outbox --db "$TMP/o3.db" list | grep -c "^[0-9]") = 1 ]
'

test_expect_success SETUP 'queued before the address opted out: the outbox leaves it out when it delivers' '
	conf "$TMP/before.yaml" true &&
	lkprobot report --send --config "$TMP/before.yaml" --db "$TMP/o4.db" --to a@example.org --cc b@example.org \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 >"$TMP/s4" &&
	grep -q "^deferred 1 " "$TMP/s4" &&
	conf "$TMP/after.yaml" true "  opt_out: [B@example.org]" &&
	start_smtpd "$TMP/spool4" &&
	lkprobot outbox --config "$TMP/after.yaml" --db "$TMP/o4.db" send --wait 20 >"$TMP/s4b" &&
	stop_smtpd && cat "$TMP/s4b" &&
	grep -q "^opt-out: 1 <[^>]*> not to b@example.org (mail.opt_out: B@example.org)$" "$TMP/s4b" &&
	[ "$(cat "$TMP/spool4/1/rcpt")" = "a@example.org" ]
'

test_done
