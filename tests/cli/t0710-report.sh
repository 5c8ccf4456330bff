#!/bin/sh
# lkprobot report: the report mail of example 1 rendered from samples that
# reproduce its table (tests/fixtures/compare), checked as a reader and a
# mail parser (Python's email package) see it; the commit's subject and
# author from a git tree; other jobs that changed; nothing to report.
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3

FIX="$SRC/tests/fixtures/compare"
EX="$SRC/tests/fixtures/examples"
B="$TMP/r/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6"

test_expect_success 'setup: the two commits of example 1, a run with its job.yaml and reproduce.sh' '
	python3 "$FIX/gen-samples.py" "$FIX/example-000.rows" "$B/base" "$B/new" &&
	mkdir -p "$B/new/0" &&
	lkprobot split-job -t lkp-hsw-ep6 -o "$TMP/sj" jobs/fio-basic/fio-basic-2pmem-xfs-dax-randwrite-2M-sync.yaml >/dev/null &&
	cp "$TMP"/sj/*.yaml "$B/new/0/job.yaml" &&
	printf "#!/bin/sh\nmkfs.xfs -f -q -m reflink=0 /dev/pmem0 &\nwait\n" >"$B/new/0/reproduce.sh"
'

test_expect_success 'a complete message: headers, the body of the reports, plots, attachments' '
	lkprobot report --base "$B/base" --commit "$B/new" --date 1485000000 --domain lkp.example.org \
		--from "kernel test robot <lkp@example.org>" --to "Dan Williams <dan.j.williams@intel.com>" \
		-o "$TMP/r.eml" &&
	grep -qx "Subject: \[lkprobot\] new: fio.write_bw_MBps -74.7% regression" "$TMP/r.eml" &&
	grep -qx "Message-ID: <201701211200.[0-9a-f]\{8\}-lkprobot@lkp.example.org>" "$TMP/r.eml" &&
	grep -qx "FYI, we noticed a -74.7% regression of fio.write_bw_MBps due to commit:" "$TMP/r.eml" &&
	grep -qx "on test machine: 56 threads Intel(R) Xeon(R) CPU E5-2695 v3 @ 2.30GHz with 256G memory" "$TMP/r.eml" &&
	grep -qx "	mount_option: dax" "$TMP/r.eml" && grep -qx "	cpufreq_governor: performance" "$TMP/r.eml" &&
	grep -q "^test-description: Fio is a tool" "$TMP/r.eml" &&
	grep -qx "Details are as below:" "$TMP/r.eml" &&
	grep -qx -e "$(printf "%098d" 0 | tr 0 -)>" "$TMP/r.eml" &&
	grep -qx "        # in an empty directory, the job file attached in this email saved in it" "$TMP/r.eml" &&
	grep -qx "     68769 ±  3%     -74.7%      17370        fio.write_bw_MBps" "$TMP/r.eml" &&
	grep -q "^ *fio.write_bw_MBps$" "$TMP/r.eml" &&
	grep -qx "\[O\] bisect-bad  sample" "$TMP/r.eml" &&
	grep -qx "How sure lkprobot is:" "$TMP/r.eml" &&
	grep -qx "  change:  -74.7% regression of fio.write_bw_MBps, 99.8% confidence" "$TMP/r.eml" &&
	grep -qx "  runs:    3 and 3 runs, compared as two independent sets (Welch.s t on the" "$TMP/r.eml" &&
	grep -qx "Disclaimer:" "$TMP/r.eml" &&
	python3 -c "import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
assert not m.defects, m.defects
assert m[\"To\"] == \"Dan Williams <dan.j.williams@intel.com>\"
parts = list(m.iter_parts())
assert [p.get_filename() for p in parts] == [None, \"job.yaml\", \"reproduce\"], [p.get_filename() for p in parts]
assert parts[1].get_content() == open(sys.argv[2]).read()  # no key a run adds: the job as it is
assert \"mkfs.xfs\" in parts[2].get_content()
for line in open(sys.argv[1], \"rb\"):
    assert len(line) <= 1000
" "$TMP/r.eml" "$B/new/0/job.yaml"
'

test_expect_success 'the same input gives the same bytes (Message-ID and MIME boundary included)' '
	lkprobot report --base "$B/base" --commit "$B/new" --date 1485000000 --domain lkp.example.org \
		--from "kernel test robot <lkp@example.org>" --to "Dan Williams <dan.j.williams@intel.com>" \
		-o "$TMP/r2.eml" &&
	cmp "$TMP/r.eml" "$TMP/r2.eml"
'

test_expect_success '--tree: the subject prefix and the author (To:, RFC 2047 for a non-ASCII name) from the commit' '
	git init -q "$TMP/linux" &&
	echo x >"$TMP/linux/f" && git -C "$TMP/linux" add f &&
	GIT_AUTHOR_NAME="Jörg Rödel" GIT_AUTHOR_EMAIL=joro@8bytes.org GIT_COMMITTER_NAME=c GIT_COMMITTER_EMAIL=c@x.org \
		git -C "$TMP/linux" commit -qm "x86, dax, pmem: introduce copy_from_iter dax operation" &&
	id=$(git -C "$TMP/linux" rev-parse HEAD) &&
	cp -r "$B/new" "$B/$id" &&
	lkprobot report --base "$B/base" --commit "$B/$id" --tree "$TMP/linux" --date 1485000000 -o "$TMP/t.eml" &&
	grep -qx "Subject: \[x86, dax, pmem\] $(echo $id | cut -c1-10): fio.write_bw_MBps -74.7% regression" "$TMP/t.eml" &&
	grep -qx "To: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joro@8bytes.org>" "$TMP/t.eml" &&
	grep -qx "commit: $id (\"x86, dax, pmem: introduce copy_from_iter dax operation\")" "$TMP/t.eml"
'

test_expect_success 'examples 000 and 003: the headline leads the table, then the test.s metrics, its time, the monitors; their plots; their sections' '
	lkprobot report --body --base "$B/base" --commit "$B/new" --from "kernel test robot <lkp@example.org>" >"$TMP/o0.txt" &&
	python3 "$FIX/check-report.py" "$EX/000_3966eca57aaea84b.txt" "$TMP/o0.txt" fio.write_bw_MBps fio &&
	B3="$TMP/r3/vm-scalability/swap-w-seq-96G/lkp-hsw-ep2/debian/x86_64-rhel-7.2/gcc-6" &&
	python3 "$FIX/gen-samples.py" "$FIX/example-003.rows" "$B3/base" "$B3/new" &&
	mkdir -p "$B3/new/0" && printf "testcase: vm-scalability\nvm-scalability:\n  test: swap-w-seq\n" >"$B3/new/0/job.yaml" &&
	lkprobot report --body --base "$B3/base" --commit "$B3/new" >"$TMP/o3.txt" &&
	python3 "$FIX/check-report.py" "$EX/003_b3648eb161780cdd.txt" "$TMP/o3.txt" vm-scalability.throughput vm-scalability &&
	grep -q "^ *perf-stat.ipc$" "$TMP/o3.txt" && grep -q "^ *turbostat.RAMWatt$" "$TMP/o3.txt" &&
	grep -q "^ *vmstat.swap.so$" "$TMP/o3.txt" &&
	! grep -q "Reported-by" "$TMP/o3.txt"
'

# commit REPO SUBJECT: a repository with one commit of that subject; its id on stdout
commit_of() {
	git init -q "$1" && echo x >"$1/f" && git -C "$1" add f &&
	git -C "$1" -c user.name=A -c user.email=a@example.org commit -qm "$2" && git -C "$1" rev-parse HEAD
}

test_expect_success 'the three examples held against our rendering line by line, numbers aside: subject, head, parameters, blocks, the table.s columns and headline row' '
	id=$(commit_of "$TMP/x0" "x86, dax, pmem: introduce '"'"'copy_from_iter'"'"' dax operation") &&
	cp -r "$B/base" "$B/c42a4508649e40af0000" && cp -r "$B/new" "$B/$id" &&
	lkprobot report --base "$B/c42a4508649e40af0000" --commit "$B/$id" --tree "$TMP/x0" --date 1485000000 \
		--url https://github.com/0day-ci/linux/commits/Dan-Williams/dax-pmem-move-cpu-cache-maintenance-to-libnvdimm/20170121-031649 \
		-o "$TMP/x0.eml" &&
	python3 "$FIX/check-layout.py" "$EX/000_3966eca57aaea84b.txt" "$TMP/x0.eml" &&
	id2=$(commit_of "$TMP/x2" "x86/copy_mc: Introduce copy_mc_generic()") &&
	B2="$TMP/x2r/fio-basic/2M-performance-2pmem-xfs-libaio-dax-50%-200s-read-200G-tb-ucode=0x5002f01/lkp-csl-2sp6/debian/x86_64-rhel-8.3/gcc-9" &&
	echo "22103 -43% 12551 fio.read_iops" >"$TMP/rows2" &&
	python3 "$FIX/gen-samples.py" "$TMP/rows2" "$B2/7476b91d4db369d80000" "$B2/$id2" && mkdir -p "$B2/$id2/0" &&
	lkprobot split-job -t lkp-csl-2sp6 -o "$TMP/sj2" jobs/fio-basic/fio-basic-2pmem-xfs-dax-read-2M-libaio.yaml >/dev/null &&
	cp "$TMP"/sj2/*.yaml "$B2/$id2/0/job.yaml" &&
	lkprobot report --base "$B2/7476b91d4db369d80000" --commit "$B2/$id2" --tree "$TMP/x2" --date 1596784603 \
		--url https://github.com/0day-ci/linux/commits/Dan-Williams/Renovate-memcpy_mcsafe-with-copy_mc_to_-user-kernel/20200802-014046 \
		-o "$TMP/x2.eml" &&
	python3 "$FIX/check-layout.py" --subject --field "$EX/002_8c0b1e6e1d443052.txt" "$TMP/x2.eml" &&
	id3=$(commit_of "$TMP/x3" "mm/swap: Split swap cache into 64MB trunks") &&
	lkprobot split-job -t lkp-hsw-ep4 -o "$TMP/sj3" jobs/vm-scalability/vm-scalability-swap-w-seq-1pmem.yaml >/dev/null &&
	python3 "$FIX/gen-samples.py" "$FIX/example-003.rows" "$TMP/g3/base" "$TMP/g3/new" &&
	python3 "$FIX/runs-of.py" "$TMP/g3" "$TMP"/sj3/*.yaml "$TMP/x3r" 91526a72b886b53e000000000000000000000000 "$id3" &&
	lkprobot stats --reindex "$TMP/x3r" --db "$TMP/x3.db" >/dev/null &&
	lkprobot report --db "$TMP/x3.db" --base 91526a72 --commit "$id3" --tree "$TMP/x3" --date 1485000000 \
		--url "git://bee.sh.intel.com/git/yhuang/linux.git swap_optimize_v4" -o "$TMP/x3.eml" &&
	python3 "$FIX/check-layout.py" "$EX/003_b3648eb161780cdd.txt" "$TMP/x3.eml" &&
	grep -q "^| testcase: change | vm-scalability: vm-scalability.throughput [0-9.]*% improvement *|$" "$TMP/x3.eml"
'

test_expect_success 'the tags a fix carries: Reported-by the robot, Closes the archive URL with the Message-ID' '
	lkprobot report --base "$B/base" --commit "$B/new" --date 1485000000 --domain lkp.example.org \
		--from "kernel test robot <lkp@example.org>" --closes https://lore.example.org/lkp/ -o "$TMP/tags.eml" &&
	id=$(sed -n "s/^Message-ID: <\(.*\)>$/\1/p" "$TMP/tags.eml") && [ -n "$id" ] &&
	grep -qx "the same patch/commit), kindly add following tags" "$TMP/tags.eml" &&
	grep -qx "| Reported-by: kernel test robot <lkp@example.org>" "$TMP/tags.eml" &&
	grep -qx "| Closes: https://lore.example.org/lkp/$id" "$TMP/tags.eml" &&
	lkprobot report --body --base "$B/base" --commit "$B/new" --closes https://lkp.example.org/bisect/7 >"$TMP/tags.txt" &&
	grep -qx "| Closes: https://lkp.example.org/bisect/7" "$TMP/tags.txt"
'

test_expect_success 'a commit with a Link: trailer to its patch: the report replies in the patch.s thread' '
	git init -q "$TMP/lt" && echo x >"$TMP/lt/f" && git -C "$TMP/lt" add f &&
	git -C "$TMP/lt" -c user.name=A -c user.email=a@example.org commit -qm "x86, dax: a change" \
		-m "Signed-off-by: A <a@example.org>
Link: https://lore.kernel.org/r/20170120.1234-1-a@example.org
Link: https://bugzilla.example.org/show_bug.cgi?id=1" &&
	lid=$(git -C "$TMP/lt" rev-parse HEAD) && cp -r "$B/new" "$B/$lid" &&
	lkprobot report --base "$B/base" --commit "$B/$lid" --tree "$TMP/lt" --date 1485000000 -o "$TMP/lt.eml" &&
	grep -qx "In-Reply-To: <20170120.1234-1-a@example.org>" "$TMP/lt.eml" &&
	grep -qx "References: <20170120.1234-1-a@example.org>" "$TMP/lt.eml" &&
	lkprobot report --base "$B/base" --commit "$B/new" --date 1485000000 -o "$TMP/nolink.eml" &&
	! grep -q "^In-Reply-To:" "$TMP/nolink.eml"
'

test_expect_success 'To reproduce: lkprobot built, the tree, its kernel built and booted by lkprobot qemu, the commit and its base one after the other, compare; job and config attached' '
	lid=$(git -C "$TMP/lt" rev-parse HEAD) && bid=1111111111111111111111111111111111111111 &&
	mkdir -p "$TMP/rp" && cp -r "$B/base" "$TMP/rp/$bid" && cp -r "$B/new" "$TMP/rp/$lid" &&
	printf "facts:\n  accel: \"tcg: an emulated CPU\"\n" >>"$TMP/rp/$lid/0/job.yaml" &&
	printf "CONFIG_X86_64=y\n" >"$TMP/rp.config" &&
	lkprobot report --base "$TMP/rp/$bid" --commit "$TMP/rp/$lid" --kconfig "$TMP/rp.config" --date 1485000000 \
		--tree-url https://git.example.org/linux.git --lkprobot-url https://git.example.org/lkprobot.git -o "$TMP/rp.eml" &&
	sed -n "/^To reproduce:/,/^testcase/p" "$TMP/rp.eml" >"$TMP/rp.txt" && cat "$TMP/rp.txt" &&
	grep -qx "        # in an empty directory, the job file and kernel config attached in this email saved in it" "$TMP/rp.txt" &&
	grep -qx "        git clone https://git.example.org/lkprobot.git lkprobot" "$TMP/rp.txt" &&
	grep -qx "        make -C lkprobot" "$TMP/rp.txt" &&
	grep -qx "        git clone https://git.example.org/linux.git linux" "$TMP/rp.txt" &&
	grep -qx "        lkprobot install job.yaml" "$TMP/rp.txt" &&
	grep -qx "        for i in \$(seq 5); do" "$TMP/rp.txt" &&
	grep -qx "                for c in $bid $lid; do" "$TMP/rp.txt" &&
	grep -qxF "                        lkprobot qemu -o result --tree linux --commit \"\$c\" --kconfig ./config-kernel job.yaml commit=\"\$c\" || break 2" "$TMP/rp.txt" &&
	grep -qx "        lkprobot compare --headline -o result $bid $lid" "$TMP/rp.txt" &&
	! grep -q "boot a kernel\|/lkp/result\|cd src" "$TMP/rp.txt" &&
	python3 -c "import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
assert [p.get_filename() for p in m.iter_parts()] == [None, \"job.yaml\", \"reproduce\", \"config-kernel\"]
" "$TMP/rp.eml" &&
	lkprobot report --body --base "$TMP/rp/$bid" --commit "$B/new" >"$TMP/local.txt" &&
	sed -n "/^To reproduce:/,/^testcase/p" "$TMP/local.txt" &&
	grep -qx "        cd src  # the job runs in the tree.s checkout" "$TMP/local.txt" &&
	! grep -q "kernel" "$TMP/local.txt"
'

test_expect_success 'the run.s kernel.config attached by default as config-<release> (its dmesg), the recorded command in To reproduce (its commit the loop.s, a recorded config file named as the attachment)' '
	lid=$(git -C "$TMP/lt" rev-parse HEAD) &&
	mkdir -p "$TMP/kc" && cp -r "$B/base" "$TMP/kc/" && cp -r "$B/new" "$TMP/kc/$lid" && R="$TMP/kc/$lid/0" &&
	printf "facts:\n  accel: \"tcg: an emulated CPU\"\n" >>"$R/job.yaml" &&
	gzip -dc "$SRC/tests/fixtures/kconfig/config-6.1.0-57-amd64.gz" >"$R/kernel.config" &&
	cp "$SRC/tests/fixtures/klog/dmesg-warning-6.1.0-57" "$R/dmesg" &&
	printf "{\"argv\": [\"lkprobot\", \"qemu\", \"--tree\", \"linux\", \"--commit\", \"%s\", \"--kconfig\", \"x86_64-pmem\", \"--append\", \"a b'"'"'s\", \"--runs\", \"3\", \"--reuse-boot\", \"job.yaml\"]}\n" "$lid" >"$R/reproduce.json" &&
	lkprobot report --base "$TMP/kc/base" --commit "$TMP/kc/$lid" --date 1485000000 -o "$TMP/kc.eml" 2>"$TMP/kc.err" &&
	[ ! -s "$TMP/kc.err" ] &&
	sed -n "/^To reproduce:/,/^testcase/p" "$TMP/kc.eml" >"$TMP/kc.txt" && cat "$TMP/kc.txt" &&
	grep -qx "        lkprobot install job.yaml" "$TMP/kc.txt" &&
	grep -qF "lkprobot qemu --tree linux --commit \"\$c\" --kconfig x86_64-pmem --append '"'"'a b'"'"'\\'"'"''"'"'s'"'"' job.yaml -o result commit=\"\$c\" || break 2" "$TMP/kc.txt" &&
	python3 -c "import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
parts = list(m.iter_parts())
assert [p.get_filename() for p in parts] == [None, \"job.yaml\", \"reproduce\", \"config-6.1.0-57-amd64\"], [p.get_filename() for p in parts]
assert parts[3].get_content() == open(sys.argv[2]).read()
assert \"facts\" not in parts[1].get_content() and \"testcase: fio-basic\" in parts[1].get_content()
" "$TMP/kc.eml" "$R/kernel.config" &&
	printf "{\"argv\": [\"lkprobot\", \"qemu\", \"--tree\", \"linux\", \"--commit\", \"%s\", \"--kconfig\", \"kernel.config\", \"job.yaml\"]}\n" "$lid" >"$R/reproduce.json" &&
	lkprobot report --base "$TMP/kc/base" --commit "$TMP/kc/$lid" --date 1485000000 -o "$TMP/kcf.eml" &&
	grep -qF "lkprobot qemu --tree linux --commit \"\$c\" --kconfig ./config-6.1.0-57-amd64 job.yaml -o result commit=\"\$c\"" "$TMP/kcf.eml" &&
	rm "$R/dmesg" && echo "[\"lkprobot\"]" >"$R/reproduce.json" &&
	lkprobot report --base "$TMP/kc/base" --commit "$TMP/kc/$lid" --date 1485000000 -o "$TMP/kc2.eml" 2>"$TMP/kc2.err" &&
	cat "$TMP/kc2.err" &&
	grep -q "reproduce.json: not {\"argv\": \[\"lkprobot\", ...\]}" "$TMP/kc2.err" &&
	grep -q "# in an empty directory, the job file and kernel config attached in this email saved in it" "$TMP/kc2.eml" &&
	grep -q "^Content-Disposition: attachment; filename=.config-kernel" "$TMP/kc2.eml" &&
	rm "$R/kernel.config" "$R/reproduce.json" &&
	lkprobot report --base "$TMP/kc/base" --commit "$TMP/kc/$lid" --date 1485000000 -o "$TMP/kc3.eml" &&
	! grep -q "filename=config" "$TMP/kc3.eml"
'

test_expect_success 'a kernel WARNING (a captured real guest console, through the dmesg parser) leads the report.s table as a fail:runs row' '
	D="$TMP/kl/fio-basic/x/vm/debian/kc/gcc-12/c/0" && mkdir -p "$D" &&
	cp "$SRC/tests/fixtures/klog/dmesg-warning-6.1.0-57" "$D/dmesg" && printf "testcase: fio-basic\nfio:\n" >"$D/job.yaml" &&
	expect_exit 1 lkprobot stats "$D" && one_line_error "fio.output: the test left no output" &&
	mkdir -p "$TMP/kw" && cp -r "$B/base" "$B/new" "$TMP/kw/" &&
	python3 -c "import json, sys
st = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
n = len(m[\"fio.write_bw_MBps\"])
for k, v in st.items():
    if k.startswith(\"dmesg.\"):
        m[k] = [v] * n
json.dump(m, open(sys.argv[2], \"w\"))
" "$D/stats.json" "$TMP/kw/new/matrix.json" &&
	lkprobot report --body --base "$TMP/kw/base" --commit "$TMP/kw/new" >"$TMP/kw.txt" &&
	sed -n "/^testcase\/path_params/,/^$/p" "$TMP/kw.txt" &&
	sed -n "/^----------------  ---/,/%stddev/p" "$TMP/kw.txt" >"$TMP/kw.fail" &&
	sed -n 2p "$TMP/kw.fail" | grep -qx "       fail:runs  %reproduction    fail:runs" &&
	grep -qx "           :3          100%           3:3     dmesg.WARNING:at/tmp#warn/lkprobot_warn.c:#lkprobot_warn_init\[lkprobot_warn\]" "$TMP/kw.fail" &&
	python3 "$FIX/check-report.py" "$EX/000_3966eca57aaea84b.txt" "$TMP/kw.txt" fio.write_bw_MBps fio &&
	! grep -q "cut here" "$TMP/kw.txt"
'

test_expect_success 'the new WARNING.s call trace quoted under the table, cut from the run.s console as lkp-tests cuts it' '
	cp "$SRC/tests/fixtures/klog/dmesg-warning-6.1.0-57" "$TMP/kw/new/0/dmesg" &&
	lkprobot report --body --base "$TMP/kw/base" --commit "$TMP/kw/new" >"$TMP/kwt.txt" &&
	tr -d "\r" <"$SRC/tests/fixtures/klog/dmesg-warning-6.1.0-57.calltraces" | sed "/^=== /d" >"$TMP/kwt.want" &&
	sed -n "/------------\[ cut here \]------------/,/---\[ end trace/p" "$TMP/kwt.txt" >"$TMP/kwt.got" &&
	diff -u "$TMP/kwt.want" "$TMP/kwt.got" &&
	sed -n "/^\[O\] bisect-bad  sample$/,/cut here/p" "$TMP/kwt.txt" | grep -q "cut here" &&
	sed -n "/end trace/,\$p" "$TMP/kwt.txt" | grep -qx "Disclaimer:" &&
	rm "$TMP/kw/new/0/dmesg"
'

test_expect_success 'a call trace with bytes that are not UTF-8 (a garbled console line): quoted as \\xNN, the mail still made' '
	python3 -c "import sys
b = open(sys.argv[1], \"rb\").read()
i = b.index(b\"RIP: 0010:lkprobot_warn_init\")
open(sys.argv[2], \"wb\").write(b[:i] + b\"\\xff\\x1b[0m\" + b[i:])
" "$SRC/tests/fixtures/klog/dmesg-warning-6.1.0-57" "$TMP/kw/new/0/dmesg" &&
	lkprobot report --body --base "$TMP/kw/base" --commit "$TMP/kw/new" >"$TMP/kwu.txt" &&
	grep -q "\\\\xff\\\\x1b\[0mRIP: 0010:lkprobot_warn_init" "$TMP/kwu.txt" &&
	python3 -c "import sys; open(sys.argv[1], \"rb\").read().decode(\"utf-8\")" "$TMP/kwu.txt" &&
	lkprobot report --base "$TMP/kw/base" --commit "$TMP/kw/new" --date 0 --domain example.org >"$TMP/kwu.eml" &&
	grep -q "^Content-Type: text/plain; charset=" "$TMP/kwu.eml" &&
	rm "$TMP/kw/new/0/dmesg"
'

test_expect_success 'perf-profile: the calltrace, children and self rows of what changed close the table, in that order' '
	mkdir -p "$TMP/pp" && cp -r "$B/base" "$B/new" "$TMP/pp/" &&
	for f in base-1 base-2 base-3 new-1 new-2 new-3; do
		d="$TMP/pp/raw/$f/0" && mkdir -p "$d" &&
		cp "$SRC/tests/fixtures/perf-profile/$f" "$d/perf-profile" &&
		printf "testcase: fio-basic\nperf-profile:\n" >"$d/job.yaml" &&
		lkprobot stats --no-store "$d" >/dev/null || return 1
	done &&
	python3 -c "import json, sys
for side in (\"base\", \"new\"):
    p = sys.argv[1] + \"/\" + side + \"/matrix.json\"
    m = json.load(open(p))
    runs = [json.load(open(\"%s/raw/%s-%d/0/stats.json\" % (sys.argv[1], side, i))) for i in (1, 2, 3)]
    for k in set(k for r in runs for k in r):
        m[k] = [r.get(k, 0) for r in runs]
    json.dump(m, open(p, \"w\"))
" "$TMP/pp" &&
	lkprobot report --body --base "$TMP/pp/base" --commit "$TMP/pp/new" >"$TMP/pp.txt" &&
	sed -n "/^----------------  ---/,/^\$/p" "$TMP/pp.txt" | grep "  [a-z]" | sed "s/.*  //" >"$TMP/pp.rows" &&
	grep -n "^perf-profile\." "$TMP/pp.rows" | sed "s/:.*//" >"$TMP/pp.at" &&
	[ "$(head -1 "$TMP/pp.at")" -gt 1 ] && [ "$(tail -1 "$TMP/pp.at")" = "$(wc -l <"$TMP/pp.rows")" ] &&
	[ "$(wc -l <"$TMP/pp.at")" = $(($(tail -1 "$TMP/pp.at") - $(head -1 "$TMP/pp.at") + 1)) ] &&
	sed -n "s/^perf-profile\.\([a-z]*\)\..*/\1/p" "$TMP/pp.rows" | uniq >"$TMP/pp.kinds" &&
	printf "calltrace\nchildren\nself\n" | diff - "$TMP/pp.kinds" &&
	grep -q "^ *17.12 ±  5%  *8e+01  *95.17  *perf-profile.children.cpu-clock.read_zero$" "$TMP/pp.txt" &&
	grep -q "perf-profile.self.cpu-clock.read_zero$" "$TMP/pp.txt" &&
	grep -q "perf-profile.calltrace.cpu-clock.read_zero.vfs_read.ksys_read.do_syscall_64.entry_SYSCALL_64_after_hwframe$" "$TMP/pp.txt" &&
	! grep -q "^ *perf-profile\.[^ ]*$" "$TMP/pp.txt"
'

test_expect_success 'runs under TCG: the report says the numbers are a functional check' '
	mkdir -p "$TMP/tcg" && cp -r "$B/base" "$B/new" "$TMP/tcg/" &&
	printf "facts:\n  accel: \"tcg: an emulated CPU\"\n" >>"$TMP/tcg/new/0/job.yaml" &&
	lkprobot report --body --base "$TMP/tcg/base" --commit "$TMP/tcg/new" >"$TMP/tcg.txt" &&
	tr "\n" " " <"$TMP/tcg.txt" | grep -q "Note: these runs were made in QEMU with TCG, an emulated CPU: the numbers are a functional check, not a performance figure."
'

test_expect_success 'other jobs that changed go in the "In addition to that" table (commits from the store)' '
	for job in a b; do for c in aaaa1111 bbbb2222; do for r in 0 1 2; do
		d="$TMP/st/vm-scalability/$job-pp/tb/debian/kc/gcc-12/$c/$r"; mkdir -p "$d"
		printf "testcase: vm-scalability\ntbox_group: tb\ncommit: %s\nkconfig: kc\ncompiler: gcc-12\nrootfs: debian\nnr_cpu: 72\nbrand: Intel(R) Xeon(R) CPU E5-2699 v3 @ 2.30GHz\nmemory: 128G\nvm-scalability:\n  test: swap-w-seq\n  size: %s\n" $c $job >"$d/job.yaml"
		base=$([ $job = a ] && echo 1000 || echo 2000); v=$([ $c = aaaa1111 ] && echo $base || echo $((base * 3 / 2)))
		echo "{\"vm-scalability.throughput\": $((v + r)), \"vm-scalability.time.elapsed_time\": 95}" >"$d/stats.json"
	done; done; done &&
	lkprobot stats --reindex "$TMP/st" --db "$TMP/st.db" >/dev/null &&
	lkprobot report --body --db "$TMP/st.db" --base aaaa --commit bbbb >"$TMP/o.txt" &&
	grep -q "^FYI, we noticed a 50.0% improvement of vm-scalability.throughput due to commit:" "$TMP/o.txt" &&
	grep -qx "In addition to that, the commit also has significant impact on the following tests:" "$TMP/o.txt" &&
	grep -q "^| testcase: change | vm-scalability: vm-scalability.throughput 50.0% improvement *|$" "$TMP/o.txt" &&
	grep -q "^| test machine     | 72 threads Intel(R) Xeon(R) CPU E5-2699 v3 @ 2.30GHz with 128G memory *|$" "$TMP/o.txt" &&
	grep -q "^| test parameters  | size=" "$TMP/o.txt" &&
	grep -q "^+------------------+-*+$" "$TMP/o.txt"
'

test_expect_success 'the floor: the job.s change_floor keeps a -75 % change of --metric from the mail; --floor wins over it' '
	mkdir -p "$TMP/fl" && cp -r "$B/base" "$B/new" "$TMP/fl/" &&
	printf "change_floor:\n  fio.write_bw_MBps: 80%%\n" >>"$TMP/fl/new/0/job.yaml" &&
	expect_exit 1 lkprobot report --body --metric fio.write_bw_MBps --base "$TMP/fl/base" --commit "$TMP/fl/new" &&
	one_line_error "fio.write_bw_MBps from base to new: not sure: -74.7% \(99.8% interval .*\): not beyond the 80% floor, nor within it: nothing to report" &&
	lkprobot report --body --metric fio.write_bw_MBps --floor "fio.*=5%" --base "$TMP/fl/base" --commit "$TMP/fl/new" >"$TMP/fl.txt" &&
	tr "\n" " " <"$TMP/fl.txt" | grep -q "beyond the 5% floor" &&
	expect_exit 2 lkprobot report --floor "fio.write_bw_MBps=lots" --base "$TMP/fl/base" --commit "$TMP/fl/new" &&
	one_line_error "is not a percentage"
'

test_expect_success 'nothing changed: exit 1 with one line; a bad address: exit 2 with one line' '
	expect_exit 1 lkprobot report --base "$B/base" --commit "$B/base" &&
	one_line_error "nothing to report" &&
	expect_exit 2 lkprobot report --base "$B/base" --commit "$B/new" --to "not an address" &&
	one_line_error "invalid To address"
'

test_done
