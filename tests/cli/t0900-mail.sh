#!/bin/sh
# Report mails delivered: recipients from commits of a test repository with
# a small MAINTAINERS file, the dry run, a real SMTP server (Debian's
# python3-aiosmtpd, tests/fixtures/smtp/smtpd.py) plain and with STARTTLS
# (a certificate made here), DKIM checked offline with python3-dkim, the
# outbox across a server that is down and a sender that dies.
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"
test_need_cmd openssl openssl

PY=/usr/bin/python3
FIX="$SRC/tests/fixtures"
port=$((20000 + $$ % 20000))

# a commit whose report the mails are about: example 1's samples, a run with its job.yaml
B="$TMP/r/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6"

. "$(dirname "$0")/smtplib.sh"
test_need_cmd python3 python3
test_at_exit stop_smtpd
test_log "$TMP/smtpd.log"

conf() {	# conf FILE live(true|false) tls [extra yaml lines]
	f=$1 live=$2 tls=$3
	shift 3
	{
		echo "mail:"
		echo "  live: $live"
		echo "  operator: Robot Operator <ops@example.org>"
		echo "  from: kernel test robot <lkp@example.org>"
		echo "  lists: [lkp@lists.example.org]"
		echo "  domain: lkp.example.org"
		echo "  retry: 1"
		echo "  smtp:"
		echo "    url: smtp://localhost:$port"
		echo "    tls: $tls"
		echo "    ca_file: $TMP/cert.pem"
		echo "    timeout: 20"
		for l in "$@"; do echo "$l"; done
	} >"$f"
}

test_expect_success 'setup: a repository with trailers and MAINTAINERS, the samples of example 1, a key and a certificate' '
	git init -q "$TMP/linux" && cd "$TMP/linux" &&
	git config user.email committer@example.org && git config user.name "The Committer" &&
	mkdir -p drivers/nvdimm fs/xfs &&
	printf "int pmem;\n" >drivers/nvdimm/pmem.c && printf "int xfs;\n" >fs/xfs/xfs_file.c &&
	cat >MAINTAINERS <<-\EOF &&
	Descriptions of the sections follow.

	LIBNVDIMM PMEM: PERSISTENT MEMORY DRIVER
	M:	Dan Williams <dan.j.williams@intel.com>
	R:	Vishal Verma <vishal.l.verma@intel.com>
	L:	nvdimm@lists.linux.dev (moderated for non-subscribers)
	S:	Supported
	F:	drivers/nvdimm/pmem*

	XFS FILESYSTEM
	M:	Darrick J. Wong <djwong@kernel.org>
	L:	linux-xfs@vger.kernel.org
	F:	fs/xfs/
	X:	fs/xfs/xfs_file.c

	THE REST
	M:	Linus Torvalds <torvalds@linux-foundation.org>
	L:	linux-kernel@vger.kernel.org
	F:	*
	F:	*/
	EOF
	git add -A && git commit -qm "base" &&
	printf "int pmem_slow;\n" >>drivers/nvdimm/pmem.c && printf "int xfs2;\n" >>fs/xfs/xfs_file.c &&
	git add -A &&
	GIT_AUTHOR_NAME="Jörg Rödel" GIT_AUTHOR_EMAIL=joro@8bytes.org git commit -q -F - <<-\EOF &&
	x86, dax, pmem: introduce copy_from_iter dax operation

	Some words.

	Signed-off-by: Jörg Rödel <joro@8bytes.org>
	Reviewed-by: "H. Peter Anvin" <hpa@zytor.com>
	Acked-by: DAN WILLIAMS <Dan.J.Williams@intel.com>
	Cc: <stable@vger.kernel.org> # 5.4+
	Cc: not an address
	Tested-by: Broken <broken@@example.org>
	EOF
	cd "$SRC" &&
	ID=$(git -C "$TMP/linux" rev-parse HEAD) && echo "$ID" >"$TMP/id" &&
	python3 "$FIX/compare/gen-samples.py" "$FIX/compare/example-000.rows" "$B/base" "$B/$ID" &&
	mkdir -p "$B/$ID/0" &&
	lkprobot split-job -t lkp-hsw-ep6 -o "$TMP/sj" jobs/fio-basic/fio-basic-2pmem-xfs-dax-randwrite-2M-sync.yaml >/dev/null &&
	cp "$TMP"/sj/*.yaml "$B/$ID/0/job.yaml" &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 \
		-subj /CN=localhost -addext subjectAltName=DNS:localhost 2>/dev/null &&
	openssl genrsa -out "$TMP/dkim.pem" 2048 2>/dev/null &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'recipients: author To, committer and trailers Cc, MAINTAINERS by F:/X:, lists; once each, bad ones dropped' '
	conf "$TMP/dry.yaml" false required &&
	lkprobot recipients --config "$TMP/dry.yaml" --tree "$TMP/linux" HEAD >"$TMP/rc" 2>"$TMP/rc.err" &&
	cat "$TMP/rc" &&
	grep -q "^To: Jörg Rödel <joro@8bytes.org> *# author, Signed-off-by$" "$TMP/rc" &&
	grep -q "^Cc: The Committer <committer@example.org> *# committer$" "$TMP/rc" &&
	grep -q "^Cc: H. Peter Anvin <hpa@zytor.com> *# Reviewed-by$" "$TMP/rc" &&
	grep -q "^Cc: DAN WILLIAMS <Dan.J.Williams@intel.com> *# Acked-by, maintainer of LIBNVDIMM PMEM: PERSISTENT MEMORY DRIVER (M:)$" "$TMP/rc" &&
	[ $(grep -ci "dan.j.williams@intel.com" "$TMP/rc") = 1 ] &&
	grep -q "^Cc: Vishal Verma <vishal.l.verma@intel.com> *# reviewer of LIBNVDIMM PMEM" "$TMP/rc" &&
	grep -q "^Cc: nvdimm@lists.linux.dev *# list of LIBNVDIMM PMEM" "$TMP/rc" &&
	grep -q "^Cc: stable@vger.kernel.org *# Cc$" "$TMP/rc" &&
	grep -q "^Cc: linux-kernel@vger.kernel.org *# list of THE REST (L:)$" "$TMP/rc" &&
	grep -q "^Cc: lkp@lists.example.org *# configured list$" "$TMP/rc" &&
	! grep -q "djwong\|linux-xfs" "$TMP/rc" &&
	grep -q "dropped .not an address. (Cc)" "$TMP/rc.err" &&
	grep -q "dropped .Broken <broken@@example.org>. (Tested-by)" "$TMP/rc.err" &&
	grep -q "^# a dry run" "$TMP/rc"
'

test_expect_success SETUP 'dry run (the default): delivered to the operator only, and it says so' '
	start_smtpd "$TMP/spool1" &&
	conf "$TMP/dry-plain.yaml" false none &&
	lkprobot report --send --config "$TMP/dry-plain.yaml" --db "$TMP/out1.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 >"$TMP/s1" &&
	cat "$TMP/s1" && stop_smtpd &&
	grep -q "^queued 1 <201701211200\.[0-9a-f]*-lkprobot@lkp.example.org> for 1 envelope recipient (a dry run: the operator)" "$TMP/s1" &&
	grep -q "^sent 1 " "$TMP/s1" &&
	[ "$(cat "$TMP/spool1/1/rcpt")" = "ops@example.org" ] &&
	[ "$(cat "$TMP/spool1/1/from")" = "lkp@example.org" ] &&
	grep -q "^X-lkprobot-Dry-Run: mail.live is not true" "$TMP/spool1/1/data" &&
	grep -q "^To: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joro@8bytes.org>" "$TMP/spool1/1/data"
'

test_expect_success SETUP 'live, STARTTLS required: the computed recipients, over TLS, the message as built, DKIM that verifies' '
	start_smtpd "$TMP/spool2" --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem" --require-tls &&
	conf "$TMP/live.yaml" true required "  dkim:" "    key: $TMP/dkim.pem" "    selector: lkp" "    domain: example.org" &&
	lkprobot report --send --config "$TMP/live.yaml" --db "$TMP/out2.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 >"$TMP/s2" &&
	cat "$TMP/s2" && stop_smtpd &&
	[ "$(cat "$TMP/spool2/1/tls")" = 1 ] &&
	lkprobot recipients --config "$TMP/live.yaml" --tree "$TMP/linux" HEAD 2>/dev/null |
		sed -n "s/^\(To\|Cc\): .*<\([^>]*\)>.*/\2/p; s/^\(To\|Cc\): \([^ <]*@[^ ]*\) .*/\2/p" | tr A-Z a-z | sort >"$TMP/want-rcpt" &&
	tr A-Z a-z <"$TMP/spool2/1/rcpt" | sort >"$TMP/got-rcpt" &&
	diff "$TMP/want-rcpt" "$TMP/got-rcpt" &&
	lkprobot outbox --db "$TMP/out2.db" show 1 | tail -n +2 >"$TMP/built" &&
	cmp "$TMP/built" "$TMP/spool2/1/data" &&
	openssl rsa -in "$TMP/dkim.pem" -pubout -outform DER 2>/dev/null | base64 -w0 >"$TMP/dkim.pub" &&
	"$PY" -c "import dkim, sys
pub = open(sys.argv[2]).read().strip().encode()
dns = lambda name, timeout=5: b\"v=DKIM1; k=rsa; p=\" + pub
msg = open(sys.argv[1], \"rb\").read()
assert dkim.verify(msg, dnsfunc=dns), \"signature does not verify\"
bad = msg.replace(b\"Greeting,\", b\"Greeting!\")
assert bad != msg and not dkim.verify(bad, dnsfunc=dns), \"a changed body still verifies\"
" "$TMP/spool2/1/data" "$TMP/dkim.pub"
'

test_expect_success SETUP 'TLS required and the server offers none: not delivered, failed with the reason (exit 1)' '
	start_smtpd "$TMP/spool3" &&
	conf "$TMP/live-tls.yaml" true required &&
	expect_exit 1 lkprobot report --send --config "$TMP/live-tls.yaml" --db "$TMP/out3.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 &&
	stop_smtpd &&
	[ -z "$(ls "$TMP/spool3")" ] &&
	lkprobot outbox --db "$TMP/out3.db" list | grep -q "^1 failed attempts 1 .*TLS"
'

test_expect_success SETUP 'the server is down: queued and deferred; up again: sent once by outbox send --wait' '
	conf "$TMP/live-plain.yaml" true none &&
	lkprobot report --send --config "$TMP/live-plain.yaml" --db "$TMP/out4.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 >"$TMP/s4" &&
	grep -q "^deferred 1 .*attempt 1, next in 1 s" "$TMP/s4" &&
	lkprobot outbox --db "$TMP/out4.db" list | grep -q "^1 queued attempts 1 " &&
	start_smtpd "$TMP/spool4" &&
	lkprobot outbox --config "$TMP/live-plain.yaml" --db "$TMP/out4.db" send --wait 30 >"$TMP/s4b" &&
	lkprobot outbox --config "$TMP/live-plain.yaml" --db "$TMP/out4.db" send >>"$TMP/s4b" &&
	stop_smtpd && cat "$TMP/s4b" &&
	[ $(ls "$TMP/spool4" | wc -l) = 1 ] &&
	lkprobot outbox --db "$TMP/out4.db" list | grep -q "^1 sent attempts 2 " &&
	lkprobot report --send --config "$TMP/live-plain.yaml" --db "$TMP/out4.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 | grep -q "^already queued"
'

test_expect_success SETUP 'a sender killed between queue and send: sent exactly once after the restart' '
	start_smtpd "$TMP/spool5" &&
	conf "$TMP/live5.yaml" true none &&
	expect_exit 137 env LKPROBOT_FAULT=after-queue "$LKPROBOT" report --send --config "$TMP/live5.yaml" --db "$TMP/out5.db" \
		--tree "$TMP/linux" --base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 &&
	[ -z "$(ls "$TMP/spool5")" ] &&
	lkprobot outbox --config "$TMP/live5.yaml" --db "$TMP/out5.db" send &&
	lkprobot outbox --config "$TMP/live5.yaml" --db "$TMP/out5.db" send &&
	stop_smtpd &&
	[ $(ls "$TMP/spool5" | wc -l) = 1 ]
'

test_expect_success SETUP 'a sender killed while connecting (the server never answers): queued again, sent once later' '
	conf "$TMP/live8.yaml" true none &&
	{ "$PY" -c "import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"127.0.0.1\", $port)); s.listen(5)
c = s.accept(); time.sleep(30)" & silent=$!; } &&
	listening &&
	expect_exit 137 env LKPROBOT_FAULT=after-queue "$LKPROBOT" report --send --config "$TMP/live8.yaml" --db "$TMP/out8.db" \
		--to a@example.org --base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 &&
	expect_exit 137 timeout -s KILL 3 "$LKPROBOT" outbox --config "$TMP/live8.yaml" --db "$TMP/out8.db" send &&
	stop_pid $silent &&
	lkprobot outbox --db "$TMP/out8.db" list | grep -q "^1 connecting " &&
	start_smtpd "$TMP/spool8" &&
	lkprobot outbox --config "$TMP/live8.yaml" --db "$TMP/out8.db" send &&
	stop_smtpd &&
	[ $(ls "$TMP/spool8" | wc -l) = 1 ] &&
	lkprobot outbox --db "$TMP/out8.db" list | grep -q "^1 sent attempts 2 "
'

test_expect_success SETUP 'killed after the server took it, before the store knew: in doubt, never sent twice on its own' '
	start_smtpd "$TMP/spool6" &&
	conf "$TMP/live6.yaml" true none &&
	expect_exit 137 env LKPROBOT_FAULT=after-smtp "$LKPROBOT" report --send --config "$TMP/live6.yaml" --db "$TMP/out6.db" \
		--tree "$TMP/linux" --base "$B/base" --commit "$B/$(cat "$TMP/id")" --date 1485000000 &&
	[ $(ls "$TMP/spool6" | wc -l) = 1 ] &&
	lkprobot outbox --config "$TMP/live6.yaml" --db "$TMP/out6.db" send >"$TMP/s6" &&
	grep -q "in doubt, not sent again" "$TMP/s6" &&
	[ $(ls "$TMP/spool6" | wc -l) = 1 ] &&
	lkprobot outbox --db "$TMP/out6.db" list | grep -q "^1 in-doubt " &&
	lkprobot outbox --db "$TMP/out6.db" retry 1 &&
	lkprobot outbox --config "$TMP/live6.yaml" --db "$TMP/out6.db" send &&
	stop_smtpd &&
	[ $(ls "$TMP/spool6" | wc -l) = 2 ]
'

test_expect_success SETUP 'a subject and an author with CR/LF cannot inject a header' '
	cd "$TMP/linux" && printf "x\n" >>fs/xfs/xfs_file.c && git add -A &&
	tree=$(git write-tree) && parent=$(git rev-parse HEAD) &&
	c=$(printf "tree %s\nparent %s\nauthor Evil\rBcc: victim@example.org <evil@example.org> 1485000000 +0000\ncommitter C <c@example.org> 1485000000 +0000\n\nxfs: a subject\r\nBcc: victim@example.org\n" "$tree" "$parent" |
		git hash-object -t commit -w --stdin --literally) &&
	cd "$SRC" &&
	cp -r "$B/$(cat "$TMP/id")" "$B/$c" &&
	start_smtpd "$TMP/spool7" &&
	conf "$TMP/live7.yaml" true none &&
	lkprobot report --send --config "$TMP/live7.yaml" --db "$TMP/out7.db" --tree "$TMP/linux" \
		--base "$B/base" --commit "$B/$c" --date 1485000000 >"$TMP/s7" &&
	stop_smtpd &&
	! grep -qi "victim" "$TMP/spool7/1/rcpt" &&
	"$PY" -c "import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
assert m[\"Bcc\"] is None, m[\"Bcc\"]
assert \"\\r\" not in m[\"Subject\"] and \"\\n\" not in m[\"Subject\"], repr(m[\"Subject\"])
for line in open(sys.argv[1], \"rb\").read().split(b\"\\r\\n\"):
    assert b\"\\r\" not in line and b\"\\n\" not in line and len(line) <= 998
" "$TMP/spool7/1/data"
'

# send1 CONF BASE COMMIT DATE [ARGS]: report --send of $B/COMMIT against $B/BASE with $TMP/CONF.yaml, into out1.db
send1() {
	s1_conf=$1 s1_base=$2 s1_commit=$3 s1_date=$4
	shift 4
	lkprobot report --send --config "$TMP/$s1_conf.yaml" --db "$TMP/out1.db" --tree "$TMP/linux" \
		--base "$B/$s1_base" --commit "$B/$s1_commit" --date "$s1_date" "$@"
}

test_expect_success SETUP 'a fix (Fixes: the reported commit): its report replies to the first report, a fix of the fix continues the thread' '
	ID=$(cat "$TMP/id") && first=$(sed -n "s/^Message-ID: //p" "$TMP/spool1/1/data" | tr -d "\r") && [ -n "$first" ] &&
	cd "$TMP/linux" && tree=$(git write-tree) &&
	fix=$(printf "x86, dax, pmem: fix the slowdown\n\nFixes: %.12s (\"x86, dax, pmem: introduce copy_from_iter dax operation\")\nLink: https://lore.kernel.org/r/20170122.1-1-joro@8bytes.org\nSigned-off-by: A <a@example.org>\n" "$ID" |
		git commit-tree "$tree" -p "$ID") && echo "$fix" >"$TMP/fix" &&
	fix2=$(printf "x86, dax, pmem: fix the fix\n\nFixes: %.7s (\"x86, dax, pmem: fix the slowdown\")\n" "$fix" | git commit-tree "$tree" -p "$fix") &&
	cd "$SRC" &&
	cp -r "$B/base" "$B/$fix" && mkdir -p "$B/$fix/0" && cp "$B/$ID/0/job.yaml" "$B/$fix/0/" &&
	cp -r "$B/$ID" "$B/$fix2" &&
	start_smtpd "$TMP/spool9" &&
	send1 dry-plain "$ID" "$fix" 1485100000 >"$TMP/s9" &&
	send1 dry-plain "$fix" "$fix2" 1485200000 >>"$TMP/s9" &&
	send1 dry-plain "base" "$ID" 1485300000 --to a@example.org >>"$TMP/s9" &&
	stop_smtpd && cat "$TMP/s9" &&
	"$PY" -c "import email, email.policy, sys
m = [email.message_from_bytes(open(sys.argv[1] + f\"/{i}/data\", \"rb\").read(), policy=email.policy.default) for i in (1, 2, 3)]
first = sys.argv[2]
print([(x[\"Subject\"], x[\"In-Reply-To\"], x[\"References\"]) for x in m])
assert m[0][\"Subject\"].endswith(\"improvement\"), m[0][\"Subject\"]
assert m[0][\"In-Reply-To\"] == first and m[0][\"References\"] == first
assert m[1][\"In-Reply-To\"] == m[0][\"Message-ID\"]
assert m[1][\"References\"].split() == [first, m[0][\"Message-ID\"]]
assert m[2][\"In-Reply-To\"] is None and m[2][\"References\"] is None
" "$TMP/spool9" "$first"
'

test_expect_success SETUP 'a live fix report replies only to a report its readers got: not to a dry run, to a live one' '
	ID=$(cat "$TMP/id") && fix=$(cat "$TMP/fix") &&
	start_smtpd "$TMP/spool10" &&
	send1 live7 "$ID" "$fix" 1485400000 >"$TMP/s10" &&
	send1 live7 "base" "$ID" 1485500000 >>"$TMP/s10" &&
	send1 live7 "$ID" "$fix" 1485600000 >>"$TMP/s10" &&
	stop_smtpd && cat "$TMP/s10" &&
	"$PY" -c "import email, email.policy, sys
m = [email.message_from_bytes(open(sys.argv[1] + f\"/{i}/data\", \"rb\").read(), policy=email.policy.default) for i in (1, 2, 3)]
print([(x[\"Subject\"], x[\"In-Reply-To\"]) for x in m])
assert all(x[\"X-lkprobot-Dry-Run\"] is None for x in m)
# the store holds a dry run of the regression first: the patch thread (Link:), not that one
assert m[0][\"In-Reply-To\"] == \"<20170122.1-1-joro@8bytes.org>\", m[0][\"In-Reply-To\"]
assert m[2][\"In-Reply-To\"] == m[1][\"Message-ID\"], (m[2][\"In-Reply-To\"], m[1][\"Message-ID\"])
" "$TMP/spool10"
'

test_expect_success 'bad configuration: an unknown key, live not a boolean (exit 2, one line naming file:line:col)' '
	printf "mail:\n  liev: true\n" >"$TMP/typo.yaml" &&
	expect_exit 2 lkprobot recipients --config "$TMP/typo.yaml" --tree "$TMP/linux" HEAD &&
	one_line_error "typo.yaml:2:[0-9]+: mail.liev: not a setting lkprobot knows" &&
	printf "mail:\n  live: maybe\n" >"$TMP/maybe.yaml" &&
	expect_exit 2 lkprobot recipients --config "$TMP/maybe.yaml" --tree "$TMP/linux" HEAD &&
	one_line_error "mail.live: must be true or false"
'

test_done
