/*
 * html: escaping, the document around a page, cells and links, the
 * stylesheet and the icon. See html.h.
 */
#include "html.h"
#include "../lib/results/compare.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/*
 * One stylesheet for every page: served as a file, so the CSP can forbid
 * inline styles. Classes, not colours, in the pages: .regression and
 * .improvement rows, .state-* badges, .series-N lines of the history chart.
 */
/* a stylesheet, one rule a line: */
/* clang-format off */
const char html_css[] =
	":root{--fg:#1d2330;--muted:#5b6473;--line:#d5dae1;--bg:#fff;--head:#f3f5f8;--link:#1a56b0;"
	"--bad:#b3261e;--badbg:#fde8e6;--good:#1e7b34;--goodbg:#e4f4e8;--warn:#8a5a00;--warnbg:#fff3d6}\n"
	"*{box-sizing:border-box}\n"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:var(--fg);"
	"background:var(--bg);margin:0}\n"
	"header{background:#20293a;padding:.45em 2em}\n"
	"header nav a{color:#e8edf5;margin-right:1.3em;text-decoration:none}\n"
	"header nav a.brand{font-weight:700}\n"
	"header nav a:hover{text-decoration:underline}\n"
	"main{padding:.5em 2em 2em;max-width:1400px}\n"
	"h1{font-size:1.45em;margin:.6em 0 .3em;overflow-wrap:anywhere}\n"
	"h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid var(--line);padding-bottom:.15em}\n"
	"h3{font-size:1em;margin:1em 0 .3em}\n"
	"a{color:var(--link)}\n"
	"p.note,.muted{color:var(--muted)}\n"
	"table{border-collapse:collapse;margin:.3em 0 1em;font-size:.93em}\n"
	"th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}\n"
	"th{background:var(--head);font-weight:600}\n"
	"table.kv th{width:11em}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.subject{max-width:32em}\n"
	"tr.regression td,td.regression{background:var(--badbg)}\n"
	"tr.improvement td,td.improvement{background:var(--goodbg)}\n"
	"tr.culprit td{background:var(--badbg);font-weight:600}\n"
	"code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.9em}\n"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fafbfc;border:1px solid var(--line);padding:.6em}\n"
	"pre.mail{max-width:100ch;white-space:pre;overflow-x:auto}\n"
	"pre.plots{white-space:pre;overflow-x:auto}\n"
	".state{display:inline-block;padding:0 .45em;border-radius:3px;background:var(--head);white-space:nowrap}\n"
	".state-found,.state-regression,.state-failed,.state-build-failed,.state-does-not-apply,.state-refused,"
	".state-broken{background:var(--badbg);color:var(--bad)}\n"
	".state-improvement,.state-no-change,.state-sent{background:var(--goodbg);color:var(--good)}\n"
	".state-not-sure,.state-stopped,.state-in-doubt,.state-queued,.state-testing,.state-bisecting,.state-running,"
	".state-waiting,.state-applied"
	"{background:var(--warnbg);color:var(--warn)}\n"
	".reason{color:var(--muted);font-size:.9em}\n"
	"ul.filters{list-style:none;padding:0;margin:.3em 0}\n"
	"ul.filters li{display:inline-block;margin-right:.8em}\n"
	"ul.filters a.on{font-weight:700;text-decoration:none;color:var(--fg)}\n"
	"ul.files{columns:3 18em;padding-left:1.2em}\n"
	"form{display:inline}\n"
	"form input{width:8em}\n"
	"svg.history{border:1px solid var(--line);background:#fff;max-width:100%;height:auto}\n"
	"svg .axis{stroke:#888}\n"
	"svg .grid{stroke:#eee}\n"
	"svg text{font:11px sans-serif;fill:#444}\n"
	"svg .change{stroke:var(--bad);stroke-dasharray:4 3}\n"
	"svg .mailmark{fill:var(--bad)}\n"
	"svg polyline{fill:none;stroke-width:1.5}\n"
	"svg .series-0{stroke:#1a56b0;fill:#1a56b0}\n"
	"svg .series-1{stroke:#c2410c;fill:#c2410c}\n"
	"svg .series-2{stroke:#15803d;fill:#15803d}\n"
	"svg .series-3{stroke:#7e22ce;fill:#7e22ce}\n"
	"svg .series-4{stroke:#0e7490;fill:#0e7490}\n"
	"svg .series-5{stroke:#a16207;fill:#a16207}\n"
	"svg polyline.series-0,svg polyline.series-1,svg polyline.series-2,svg polyline.series-3,"
	"svg polyline.series-4,svg polyline.series-5{fill:none}\n"
	"svg line.range{stroke-width:3}\n"
	"span.key{display:inline-block;width:1.6em;height:.35em;vertical-align:middle;margin:0 .3em 0 1em}\n"
	"span.key.series-0{background:#1a56b0}span.key.series-1{background:#c2410c}span.key.series-2{background:#15803d}"
	"span.key.series-3{background:#7e22ce}span.key.series-4{background:#0e7490}span.key.series-5{background:#a16207}\n";
/* clang-format on */

/* A chart with a red step: the robot's own icon. */
const char html_favicon[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
	"<rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#20293a\"/>"
	"<polyline points=\"2,5 6,5 8,11 14,11\" fill=\"none\" stroke=\"#ff6b5e\" stroke-width=\"2\"/></svg>\n";

void html_escape(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\'': strbuf_addstr(out, "&#39;"); break;
		default: strbuf_addch(out, *s);
		}
	}
}

void html_url_escape(struct strbuf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~", c))
			strbuf_addch(out, (char)c);
		else
			strbuf_addf(out, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
}

void html_path_escape(struct strbuf *out, const char *path)
{
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n) {
			char *part = xstrndup(p, n);
			strbuf_addch(out, '/');
			html_url_escape(out, part);
			free(part);
		}
		p += n + (p[n] == '/');
	}
}

void html_head(struct strbuf *b, const char *title, int refresh, const char *nav)
{
	strbuf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
	if (refresh > 0)
		strbuf_addf(b, "<meta http-equiv=\"refresh\" content=\"%d\">", refresh);
	strbuf_addstr(b, "<title>");
	html_escape(b, title);
	/* the home page is lkprobot; every other one says whose it is */
	if (strcmp(title, "lkprobot"))
		strbuf_addstr(b, " · lkprobot");
	strbuf_addstr(b,
		      "</title><link rel=\"stylesheet\" href=\"/static/style.css\">"
		      "<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\"></head><body>\n"
		      "<header><nav><a class=\"brand\" href=\"/\">lkprobot</a>");
	strbuf_addstr(b, nav);
	strbuf_addstr(b, "</nav></header>\n<main>\n<h1>");
	html_escape(b, title);
	strbuf_addstr(b, "</h1>\n");
}

void html_foot(struct strbuf *b)
{
	strbuf_addstr(b, "</main></body></html>\n");
}

void html_td(struct strbuf *b, const char *s)
{
	html_td_class(b, NULL, s);
}

void html_td_class(struct strbuf *b, const char *cls, const char *s)
{
	if (cls) {
		strbuf_addstr(b, "<td class=\"");
		html_escape(b, cls);
		strbuf_addstr(b, "\">");
	} else {
		strbuf_addstr(b, "<td>");
	}
	html_escape(b, s);
	strbuf_addstr(b, "</td>");
}

void html_td_num(struct strbuf *b, double v)
{
	strbuf_addstr(b, "<td class=\"num\">");
	if (isfinite(v)) {
		struct strbuf t = STRBUF_INIT;
		compare_format_value(&t, v);
		/* the compare tables pad to a column; a cell aligns itself */
		const char *p = t.buf;
		while (*p == ' ')
			p++;
		strbuf_addstr(b, p);
		strbuf_release(&t);
	}
	strbuf_addstr(b, "</td>");
}

void html_time(struct strbuf *b, double t)
{
	char when[40];

	if (!isfinite(t) || t <= 0 || t > 1e11)
		return;
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	strbuf_addstr(b, when);
}

void html_td_time(struct strbuf *b, double t)
{
	strbuf_addstr(b, "<td>");
	html_time(b, t);
	strbuf_addstr(b, "</td>");
}

void html_pvalue(struct strbuf *b, double p)
{
	if (!isfinite(p) || p < 0)
		strbuf_addstr(b, "—");
	else if (p < 0.001)
		strbuf_addstr(b, "&lt; 0.001");
	else
		strbuf_addf(b, "%.2g", p);
}

void html_commit_link(struct strbuf *b, const char *id)
{
	if (!id || !*id)
		return;
	strbuf_addstr(b, "<a href=\"/commit/");
	html_url_escape(b, id);
	strbuf_addstr(b, "\"><code>");
	char *short_id = xstrndup(id, 12);
	html_escape(b, short_id);
	free(short_id);
	strbuf_addstr(b, "</code></a>");
}

void html_commit_subject(struct strbuf *b, const char *id, const char *subject)
{
	html_commit_link(b, id);
	if (subject && *subject) {
		strbuf_addch(b, ' ');
		html_escape(b, subject);
	}
}

void html_link(struct strbuf *b, const char *page, const char *id, const char *text)
{
	strbuf_addf(b, "<a href=\"/%s/", page);
	html_url_escape(b, id);
	strbuf_addstr(b, "\">");
	html_escape(b, text);
	strbuf_addstr(b, "</a>");
}

void html_compare_href(struct strbuf *b, const char *base, const char *commit)
{
	strbuf_addstr(b, "/compare?base=");
	html_url_escape(b, base);
	strbuf_addstr(b, "&amp;commit=");
	html_url_escape(b, commit);
}
