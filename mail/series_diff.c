/*
 * series_diff: a patch's diff read as git apply reads its headers, before
 * anything applies it — every path relative and inside the tree, no file
 * made a symlink or submodule, no binary diff. A hostile mail is refused
 * when it is read (`lkprobot series --mail` exits 2), not only when it is
 * applied (lib/kernel/git_inbox.c checks again). See series.h.
 */
#include "series.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A path as git writes it, "a/x" or "\"a/x\\ty\"" (C-quoted, octal escapes), unquoted; NULL when the quoting is broken. */
static char *unquote(const char *s, size_t n)
{
	if (!n || *s != '"')
		return xstrndup(s, n);
	struct strbuf out = STRBUF_INIT;
	size_t i = 1;
	for (; i < n && s[i] != '"'; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			strbuf_addch(&out, s[i]);
			continue;
		}
		char c = s[++i];
		if (c >= '0' && c <= '3' && i + 2 < n && s[i + 1] >= '0' && s[i + 1] <= '7' && s[i + 2] >= '0' &&
		    s[i + 2] <= '7') {
			strbuf_addch(&out, (char)((c - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0')));
			i += 2;
		} else {
			strbuf_addch(&out, c == 't' ? '\t' : c == 'n' ? '\n' : c);
		}
	}
	if (i >= n) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out);
}

/* Does path (its a/ or b/ taken off when prefixed) stay in the tree: relative, no "..", ".", "" or ".git" part? */
static bool inside(const char *path, bool prefixed)
{
	if (prefixed && (!strncmp(path, "a/", 2) || !strncmp(path, "b/", 2)))
		path += 2;
	if (!*path || *path == '/')
		return false;
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && *s == '.') || (n == 2 && !strncmp(s, "..", 2)) ||
		    (n == 4 && !strncasecmp(s, ".git", 4)))
			return false;
		s += n;
		s += *s == '/';
	}
	return true;
}

/* The path of a header line's value (to its end, or its first tab: a timestamp), checked; false with why. */
static bool path_ok(const char *v, size_t n, bool prefixed, struct strbuf *why)
{
	if (*v != '"') {
		size_t tab = strcspn(v, "\t");
		n = tab < n ? tab : n;
	}
	char *p = unquote(v, n);
	bool ok = p && ((prefixed && !strcmp(p, "/dev/null")) || inside(p, prefixed));
	if (!ok) {
		strbuf_setf(why, "its diff names the path '");
		strbuf_add_oneline(why, v, n);
		strbuf_addstr(why, "', which leaves the tree (absolute, '..' or '.git')");
	}
	free(p);
	return ok;
}

/* A mode of a header line: a file (100644) or an executable (100755); false with why (a symlink, a submodule). */
static bool mode_ok(const char *v, struct strbuf *why)
{
	long mode = strtol(v, NULL, 8);

	if (mode == 0100644 || mode == 0100755)
		return true;
	strbuf_setf(why, "its diff makes a %s (mode %06lo), which lkprobot does not apply",
		    mode == 0120000   ? "symlink"
		    : mode == 0160000 ? "submodule"
				      : "file of a mode git does not write",
		    mode);
	return false;
}

/*
 * "diff --git a/x b/y": each of its words that is a path (a/..., b/..., or
 * absolute) checked; a quoted one is the ---, +++, rename or copy lines'.
 */
static bool diff_line_ok(const char *v, size_t n, struct strbuf *why)
{
	for (size_t i = 0; i < n;) {
		size_t w = strcspn(v + i, " ");
		w = i + w > n ? n - i : w;
		if (w && (v[i] == '/' || !strncmp(v + i, "a/", 2) || !strncmp(v + i, "b/", 2)) &&
		    !path_ok(v + i, w, true, why))
			return false;
		i += w + 1;
	}
	return true;
}

/* One header line of a file's diff (not a hunk's line). false with why when it refuses the patch. */
static bool header_ok(const char *l, size_t n, struct strbuf *why)
{
	static const struct {
		const char *key;
		int what; /* 0 a path (a/ b/ /dev/null), 1 a bare path, 2 a mode, 3 binary, 4 the diff line */
	} keys[] = {
		{ "--- ", 0 },	      { "+++ ", 0 },	  { "rename from ", 1 },     { "rename to ", 1 },
		{ "copy from ", 1 },  { "copy to ", 1 },  { "new file mode ", 2 },   { "deleted file mode ", 2 },
		{ "old mode ", 2 },   { "new mode ", 2 }, { "GIT binary patch", 3 }, { "Binary files ", 3 },
		{ "diff --git ", 4 },
	};
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		size_t kl = strlen(keys[k].key);
		if (n < kl || strncmp(l, keys[k].key, kl))
			continue;
		const char *v = l + kl;
		switch (keys[k].what) {
		case 0:
		case 1:
			return path_ok(v, n - kl, keys[k].what == 0, why);
		case 2:
			return mode_ok(v, why);
		case 3:
			strbuf_setf(why, "its diff is binary, which lkprobot does not apply");
			return false;
		default:
			return diff_line_ok(v, n - kl, why);
		}
	}
	/* "index abc..def 120000": the mode of a file whose content changes */
	const char *sp = n > 6 && !strncmp(l, "index ", 6) ? memchr(l + 6, ' ', n - 6) : NULL;
	return !sp || mode_ok(sp + 1, why);
}

/* The lines of each side a hunk header says ("@@ -1,5 +1,6 @@": 5 and 6; a count left out is 1). */
static void hunk_counts(const char *l, long *old, long *new)
{
	char *end;

	*old = *new = 1;
	strtol(l + 4, &end, 10);
	if (*end == ',')
		*old = strtol(end + 1, &end, 10);
	if (strncmp(end, " +", 2))
		return;
	strtol(end + 2, &end, 10);
	if (*end == ',')
		*new = strtol(end + 1, &end, 10);
	*old = *old < 0 ? 0 : *old;
	*new = *new < 0 ? 0 : *new;
}

int series_diff_check(const char *diff, struct strbuf *why)
{
	long old = 0, new = 0; /* lines left of the hunk being read */

	for (const char *l = diff; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		bool in_hunk = old > 0 || new > 0;
		/* a hunk's line: " " both sides, "-" the old, "+" the new, "\ No newline" neither; else the hunk ended */
		if (in_hunk && (!n || *l == ' ' || *l == '-' || *l == '+' || *l == '\\')) {
			old -= !n || *l == ' ' || *l == '-';
			new -= !n || *l == ' ' || *l == '+';
		} else if (!strncmp(l, "@@ -", 4)) {
			hunk_counts(l, &old, &new);
		} else {
			old = new = 0;
			if (!header_ok(l, n, why))
				return -1;
		}
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}
