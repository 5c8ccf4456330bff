#!/usr/bin/python3
"""crawl: every page of a site reachable from a start URL, in headless Chromium.

Starts Debian's Chromium (headless, a fresh profile, in its own process
group) and drives it over the DevTools protocol (python3-websocket): each
same-site link found on an HTML page is requested once; HTML pages are
loaded in the browser, everything else is checked with a HEAD request. A
problem is: a link answered 4xx/5xx (or not at all), a console error
(Runtime.consoleAPICalled, Runtime.exceptionThrown), a browser log error
(Log.entryAdded: CSP violations, failed loads), a failed subresource. Each
problem is printed with its page, and a screenshot of the page is saved
(its path printed). Exit 0: no problem; 1: problems; 2: usage or the
browser did not start.

  crawl.py [--report FILE] [--shots DIR] [--expect-text TEXT]... [--max-pages N] [--depth N] START_URL
  crawl.py --selftest     plant problems on a scratch site and check each is found

Every wait is bounded; Chromium is ended by its process group only.
"""
import argparse
import base64
import http.server
import json
import os
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import websocket

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--remote-debugging-port=0"]


class Browser:
    """One headless Chromium and one page of it, over the DevTools protocol."""

    def __init__(self, chromium, workdir):
        self.profile = tempfile.mkdtemp(prefix="profile.", dir=workdir)
        self.log = open(os.path.join(workdir, "chromium.log"), "ab")
        self.proc = subprocess.Popen([chromium] + CHROMIUM_FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
                                     stdout=self.log, stderr=self.log, start_new_session=True, env=dict(os.environ, HOME=workdir))
        self.events = []
        self.next_id = 0
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 60
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("Chromium did not start (see %s)" % self.log.name)
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        deadline = time.time() + 30
        page = None
        while page is None:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%s/json/list" % port, timeout=10) as r:
                    page = next((t for t in json.load(r) if t.get("type") == "page"), None)
            except (OSError, ValueError):
                pass
            if page is None:
                if time.time() > deadline:
                    self.close()
                    raise RuntimeError("Chromium has no page to drive")
                time.sleep(0.2)
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")

    def call(self, method, params=None, timeout=30):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params or {}}))
        deadline = time.time() + timeout
        while True:
            m = self.recv(deadline)
            if m is None:
                raise RuntimeError("%s: no answer in %d s" % (method, timeout))
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def recv(self, deadline):
        left = deadline - time.time()
        if left <= 0:
            return None
        self.ws.settimeout(left)
        try:
            return json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            return None

    def wait_event(self, name, timeout):
        """Events until `name` (True) or the timeout (False); all of them kept in self.events."""
        deadline = time.time() + timeout
        if any(e["method"] == name for e in self.events):
            return True
        while True:
            m = self.recv(deadline)
            if m is None:
                return False
            if "method" in m:
                self.events.append(m)
                if m["method"] == name:
                    return True

    def settle(self, quiet=0.3, most=3):
        """Events until none came for `quiet` seconds (at most `most` seconds)."""
        end = time.time() + most
        while time.time() < end:
            m = self.recv(min(end, time.time() + quiet))
            if m is None:
                return
            if "method" in m:
                self.events.append(m)

    def evaluate(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        return r.get("result", {}).get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"}).get("data")
        if data:
            with open(path, "wb") as f:
                f.write(base64.b64decode(data))
            return path
        return None

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()


def head(url):
    """Status and Content-Type of url (a HEAD request; GET when HEAD is refused)."""
    for method in ("HEAD", "GET"):
        req = urllib.request.Request(url, method=method)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            if e.code == 405 and method == "HEAD":
                continue
            return e.code, e.headers.get("Content-Type", "")
        except OSError as e:
            return 0, str(e)
    return 0, ""


def problems_of(events):
    """The problems the browser reported while a page loaded."""
    out = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console %s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            out.append("exception: %s" % p.get("exceptionDetails", {}).get("text", ""))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            en = p["entry"]
            out.append("log error (%s): %s %s" % (en.get("source"), en.get("text"), en.get("url", "")))
        elif m == "Network.responseReceived" and p.get("response", {}).get("status", 0) >= 400:
            out.append("%s answered %d" % (p["response"].get("url"), p["response"]["status"]))
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            out.append("loading failed: %s %s" % (p.get("errorText"), p.get("blockedReason", "")))
    return out


def crawl(start, max_pages, shots, expect_texts, chromium, workdir, depth=None):
    origin = urllib.parse.urlsplit(start)[:2]
    b = Browser(chromium, workdir)
    pages, problems = [], []
    queue, seen, steps = [start], {start}, {start: 0}
    try:
        while queue and len(pages) < max_pages:
            url = queue.pop(0)
            status, ctype = head(url)
            page = {"url": url, "status": status, "type": ctype}
            pages.append(page)
            if status == 0 or status >= 400:
                problems.append("%s: answered %s %s (linked from %s)" % (url, status, ctype, page_from.get(url, "the start")))
                continue
            if not ctype.startswith("text/html"):
                continue
            b.events.clear()
            nav = b.call("Page.navigate", {"url": url})
            if nav.get("errorText"):
                problems.append("%s: %s" % (url, nav["errorText"]))
                continue
            if not b.wait_event("Page.loadEventFired", 30):
                problems.append("%s: not loaded in 30 s" % url)
            b.settle()
            found = problems_of(b.events)
            info = b.evaluate("JSON.stringify({title: document.title, text: document.body ? document.body.innerText : '',"
                              " links: Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href')),"
                              " series: document.querySelectorAll('svg.history polyline.series').length,"
                              " svg: document.querySelectorAll('svg.history').length,"
                              " styled: getComputedStyle(document.body).fontFamily})")
            info = json.loads(info or "{}")
            page.update(title=info.get("title"), series=info.get("series"), svg=info.get("svg"),
                        styled=info.get("styled"), problems=found)
            if url == start:
                page["text"] = info.get("text", "")
                for t in expect_texts:
                    if t not in page["text"]:
                        found.append("the text %r is not on the page" % t)
            if found:
                shot = b.screenshot(os.path.join(shots, "page-%03d.png" % len(pages)))
                for f in found:
                    problems.append("%s: %s%s" % (url, f, " (screenshot %s)" % shot if shot else ""))
            for href in info.get("links", []):
                target = urllib.parse.urljoin(url, href).split("#")[0]
                if urllib.parse.urlsplit(target)[:2] != origin or target in seen:
                    continue
                if depth is not None and steps[url] >= depth:
                    continue
                seen.add(target)
                steps[target] = steps[url] + 1
                page_from[target] = url
                queue.append(target)
    finally:
        b.close()
    if queue:
        problems.append("more than %d pages: %d links not followed" % (max_pages, len(queue)))
    return pages, problems


page_from = {}


def selftest(chromium, workdir):
    """A scratch site with three planted problems (an inline style under a CSP, a console error
    from a script, a link to a missing page) and one clean page: each problem must be found."""

    class Site(http.server.BaseHTTPRequestHandler):
        pages = {
            "/": "<!DOCTYPE html><title>start</title><a href='/styled'>s</a> <a href='/script'>j</a> "
                 "<a href='/missing'>m</a> <a href='/clean'>c</a>",
            "/styled": "<!DOCTYPE html><title>styled</title><style>body{color:red}</style><p>inline style",
            "/script": "<!DOCTYPE html><title>script</title><p>a script<script src='/s.js'></script>",
            "/s.js": "console.error('planted');",
            "/clean": "<!DOCTYPE html><title>clean</title><p>nothing wrong",
        }

        def reply(self, body):
            path = self.path.split("?")[0]
            if path not in self.pages:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript" if path.endswith(".js") else "text/html; charset=utf-8")
            csp = "default-src 'none'" + ("; script-src 'self'" if path == "/script" else "")
            self.send_header("Content-Security-Policy", csp)
            self.end_headers()
            if body:
                self.wfile.write(self.pages[path].encode())

        def do_GET(self):
            self.reply(True)

        def do_HEAD(self):
            self.reply(False)

        def log_message(self, *args):
            pass

    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Site)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        shots = os.path.join(workdir, "shots")
        os.makedirs(shots, exist_ok=True)
        _, problems = crawl("http://127.0.0.1:%d/" % srv.server_address[1], 20, shots, [], chromium, workdir)
    finally:
        srv.shutdown()
    want = {"/styled": "Content Security Policy", "/script": "planted", "/missing": "404"}
    ok = True
    for path, text in want.items():
        hit = [p for p in problems if path in p and text in p]
        print("selftest: %s: %s" % (path, "found" if hit else "NOT found"))
        ok &= bool(hit)
    clean = [p for p in problems if "/clean" in p]
    print("selftest: /clean: %s" % ("no problem" if not clean else "wrongly: %s" % clean))
    return 0 if ok and not clean else 1


def main():
    ap = argparse.ArgumentParser(description="crawl a site in headless Chromium")
    ap.add_argument("start", nargs="?")
    ap.add_argument("--report", help="the pages visited, as JSON")
    ap.add_argument("--shots", help="where screenshots of pages with problems go")
    ap.add_argument("--expect-text", action="append", default=[], help="text the start page must show")
    ap.add_argument("--max-pages", type=int, default=600)
    ap.add_argument("--depth", type=int, default=None, help="follow links this many steps from the start (default: all)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--workdir", default=None, help="Chromium's profile and log (default: a new directory)")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    workdir = a.workdir or tempfile.mkdtemp(prefix="crawl.")
    os.makedirs(workdir, exist_ok=True)
    try:
        if a.selftest:
            return selftest(a.chromium, workdir)
        if not a.start:
            ap.error("a start URL is needed")
        shots = a.shots or os.path.join(workdir, "shots")
        os.makedirs(shots, exist_ok=True)
        pages, problems = crawl(a.start, a.max_pages, shots, a.expect_text, a.chromium, workdir, a.depth)
    except RuntimeError as e:
        print("crawl: %s" % e, file=sys.stderr)
        return 2
    if a.report:
        with open(a.report, "w") as f:
            json.dump(pages, f, indent=1)
    html = sum(1 for p in pages if str(p.get("type", "")).startswith("text/html"))
    print("crawl: %d links requested, %d HTML pages loaded in Chromium, %d problems" % (len(pages), html, len(problems)))
    for p in problems:
        print("crawl: problem: %s" % p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
