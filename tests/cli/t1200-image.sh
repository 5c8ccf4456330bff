#!/bin/sh
# The appliance (docker/): this machine has no Docker engine, so the
# Dockerfile is checked as text and its build steps (docker/image-build.sh)
# are run for real into a scratch root; the installed binary then serves
# the dashboard with the ENTRYPOINT's arguments. Not verified here: the
# `docker build` itself (a Debian 12 base without make: the script installs
# it with apt-get first).
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"

port=$((20000 + ($$ + 29) % 20000))
test_need_cmd curl curl
test_at_exit 'stop_pid "$(cat "$TMP/spid" 2>/dev/null)"'
test_log "$TMP/build.log" "$TMP/serve.log"

test_expect_success 'the Dockerfile: Debian 12, the build script, the volume, the service as its entry point' '
	/usr/bin/python3 - "$SRC/docker/Dockerfile" <<-\EOF
	import json, sys
	lines = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.lstrip().startswith("#")]
	ins = [l.split(None, 1) for l in lines]
	known = {"FROM", "COPY", "RUN", "VOLUME", "EXPOSE", "ENTRYPOINT"}
	assert all(i[0] in known for i in ins), ins
	d = {i[0]: i[1] for i in ins}
	assert d["FROM"] == "debian:12", d["FROM"]
	src, dst = d["COPY"].split()
	assert src == "." and d["RUN"].split()[0] == dst + "/docker/image-build.sh", d
	assert json.loads(d["VOLUME"]) == ["/lkp"] and d["EXPOSE"] == "8080"
	ep = json.loads(d["ENTRYPOINT"])
	assert ep == ["/usr/local/bin/lkprobot", "serve", "-c", "/etc/lkprobot/config.yaml", "--listen", "0.0.0.0:8080"], ep
	EOF
'

test_expect_success 'its build steps, run into a scratch root: lkprobot, its data, the example configuration' '
	"$SRC/docker/image-build.sh" "$SRC" "$TMP/root" >"$TMP/build.log" 2>&1 &&
	tail -1 "$TMP/build.log" | grep -q "^lkprobot " &&
	"$TMP/root/usr/local/bin/lkprobot" programs | grep -q "^fio" &&
	[ -s "$TMP/root/etc/lkprobot/config.yaml" ] &&
	[ -s "$TMP/root/usr/local/share/doc/lkprobot/lkprobot.service" ] &&
	[ -d "$TMP/root/lkp" ]
'

test_expect_success 'the entry point: the installed lkprobot serves the dashboard on every address' '
	git init -q "$TMP/repo" && git -C "$TMP/repo" -c user.name=D -c user.email=d@example.org commit -q --allow-empty -m one &&
	sed -e "s|/lkp/result|$TMP/lkp/result|" -e "s|/lkp/cache|$TMP/lkp/cache|" -e "s|/srv/git/linux|$TMP/repo|" \
		-e "s|branches: \[master\]|branches: [$(git -C "$TMP/repo" symbolic-ref --short HEAD)]|" \
		-e "s|/usr/local/share/lkprobot|$TMP/root/usr/local/share/lkprobot|" -e "s|/etc/lkprobot/smtp-password|$TMP/pw|" \
		-e "/^  dkim:/,\$d" "$TMP/root/etc/lkprobot/config.yaml" >"$TMP/config.yaml" &&
	echo secret >"$TMP/pw" &&
	"$TMP/root/usr/local/bin/lkprobot" check-config -c "$TMP/config.yaml" &&
	{ "$TMP/root/usr/local/bin/lkprobot" serve -c "$TMP/config.yaml" --listen 0.0.0.0:$port 2>"$TMP/serve.log" & echo $! >"$TMP/spid"; } &&
	for i in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done &&
	[ "$(curl -s -o "$TMP/o" -w "%{http_code}" "http://127.0.0.1:$port/")" = 200 ] &&
	grep -q "<h1>lkprobot</h1>" "$TMP/o" &&
	stop_pid "$(cat "$TMP/spid")" &&
	grep -q "the dashboard is at http://0.0.0.0:$port/" "$TMP/serve.log"
'

test_done
