/*
 * recipients: trailers, MAINTAINERS and lists into one deduplicated list.
 * See recipients.h. The MAINTAINERS matching follows get_maintainer.pl: an
 * F:/X: pattern is a glob ('*' any run of characters, '?' one) matched
 * from the start of the path; one that names a directory (a trailing '/',
 * or a directory holding a touched file) covers everything under it,
 * any other must also have as many '/' as the path; N: is a regular
 * expression found anywhere in the path.
 */
#include "recipients.h"
#include "mime.h"
#include "../lib/kernel/git.h"

#include <ctype.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *recipients_normalize(const char *s)
{
	struct strbuf name = STRBUF_INIT, email = STRBUF_INIT, out = STRBUF_INIT;
	const char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt) {
		strbuf_add(&email, lt + 1, (size_t)(gt - lt - 1));
		strbuf_add(&name, s, (size_t)(lt - s));
	} else {
		/* a bare address: the word with an '@' */
		for (const char *w = s; *w;) {
			size_t n = strcspn(w, " \t\r\n,;");
			if (memchr(w, '@', n)) {
				strbuf_add(&email, w, n);
				break;
			}
			w += n;
			w += strspn(w, " \t\r\n,;");
		}
	}
	/* control characters never reach a header: spaces instead, runs of them one */
	struct strbuf clean = STRBUF_INIT;
	for (const char *p = name.buf; *p; p++) {
		char c = (unsigned char)*p < 0x20 || *p == 0x7f || *p == '"' ? ' ' : *p;
		if (c == ' ' && (!clean.len || clean.buf[clean.len - 1] == ' '))
			continue;
		strbuf_addch(&clean, c);
	}
	strbuf_rtrim(&clean);
	char *ret = NULL;
	if (email.len && !strpbrk(email.buf, " \t\r\n<>\"")) {
		if (clean.len)
			strbuf_addf(&out, "%s <%s>", clean.buf, email.buf);
		else
			strbuf_addstr(&out, email.buf);
		ret = strbuf_detach(&out);
	}
	strbuf_release(&name);
	strbuf_release(&email);
	strbuf_release(&clean);
	strbuf_release(&out);
	return ret;
}

/* glob from the start of s, any prefix of s will do (a regex without '$') */
static bool glob_prefix(const char *p, const char *s)
{
	if (!*p)
		return true;
	if (*p == '*') {
		for (const char *t = s;; t++) {
			if (glob_prefix(p + 1, t))
				return true;
			if (!*t)
				return false;
		}
	}
	if (!*s)
		return false;
	if (*p == '?' || *p == *s)
		return glob_prefix(p + 1, s + 1);
	return false;
}

static size_t slashes(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '/';
	return n;
}

bool recipients_pattern_match(const char *pattern, const char *path, const char *const *paths, size_t npaths)
{
	size_t n = strlen(pattern);
	bool dir = n && pattern[n - 1] == '/';

	/* a directory named without its '/': one holding a touched file */
	for (size_t i = 0; !dir && i < npaths; i++)
		dir = !strncmp(paths[i], pattern, n) && paths[i][n] == '/' && !strpbrk(pattern, "*?");
	if (dir) {
		char *p = n && pattern[n - 1] == '/' ? xstrdup(pattern) : xasprintf("%s/", pattern);
		bool m = glob_prefix(p, path);
		free(p);
		return m;
	}
	return glob_prefix(pattern, path) && slashes(pattern) == slashes(path);
}

/* raw (its reason why) once in r; the recipient it is, or NULL when it holds no address (a warning said so) */
static struct recipient *add(struct recipients *r, const char *raw, const char *why, bool to)
{
	char *addr = recipients_normalize(raw);
	struct strbuf err = STRBUF_INIT;
	char *email = addr ? mime_addr_spec(addr, &err) : NULL;

	if (!email) {
		r->warnings = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(*r->warnings));
		r->warnings[r->nwarnings++] = xasprintf("dropped '%s' (%s): %s", raw, why,
							 addr ? err.buf : "no address in it");
		free(addr);
		strbuf_release(&err);
		return NULL;
	}
	strbuf_release(&err);
	for (char *c = email; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].email, email)) {
			/* once; every reason kept, the first name kept */
			if (!strstr(r->v[i].why, why)) {
				char *w = xasprintf("%s, %s", r->v[i].why, why);
				free(r->v[i].why);
				r->v[i].why = w;
			}
			r->v[i].to |= to;
			free(addr);
			free(email);
			return &r->v[i];
		}
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n++] = (struct recipient){ addr, email, xstrdup(why), to, false, false };
	return &r->v[r->n - 1];
}

static const char *const trailer_keys[] = {
	"Signed-off-by", "Co-developed-by", "Reviewed-by", "Acked-by", "Tested-by", "Reported-by", "Cc", NULL,
};

static void trailers(struct recipients *r, const char *msg)
{
	for (const char *line = msg; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *p = line;
		while (p < line + len && (*p == ' ' || *p == '\t'))
			p++;
		for (const char *const *k = trailer_keys; *k; k++) {
			size_t kl = strlen(*k);
			if ((size_t)(line + len - p) > kl && !strncasecmp(p, *k, kl) && p[kl] == ':') {
				const char *vs = p + kl + 1;
				while (vs < line + len && (*vs == ' ' || *vs == '\t'))
					vs++;
				char *v = xstrndup(vs, (size_t)(line + len - vs));
				/* "Cc: <stable@vger.kernel.org> # 5.4+": the comment goes */
				char *hash = strchr(v, '#');
				if (hash && (!strchr(v, '>') || hash > strchr(v, '>')))
					*hash = '\0';
				add(r, v, *k, false);
				free(v);
				break;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

struct section {
	char *title;
	char **m, **f, **x, **n;	/* M: and R: (with their kind in `kinds`), F:, X:, N: */
	char *kinds;
	size_t nm, nf, nx, nn;
};

static void push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

static bool section_matches(const struct section *s, const char *path, const char *const *paths, size_t npaths,
			    struct strbuf *warn)
{
	bool hit = false;

	for (size_t i = 0; !hit && i < s->nf; i++)
		hit = recipients_pattern_match(s->f[i], path, paths, npaths);
	for (size_t i = 0; !hit && i < s->nn; i++) {
		regex_t re;
		if (regcomp(&re, s->n[i], REG_EXTENDED | REG_NOSUB)) {
			if (!warn->len)
				strbuf_setf(warn, "MAINTAINERS: %s: N: '%s' is not a POSIX regular expression; ignored", s->title,
					    s->n[i]);
			continue;
		}
		hit = !regexec(&re, path, 0, NULL, 0);
		regfree(&re);
	}
	for (size_t i = 0; hit && i < s->nx; i++)
		if (recipients_pattern_match(s->x[i], path, paths, npaths))
			hit = false;
	return hit;
}

static void section_release(struct section *s)
{
	char **lists[] = { s->m, s->f, s->x, s->n };
	size_t ns[] = { s->nm, s->nf, s->nx, s->nn };
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < ns[k]; i++)
			free(lists[k][i]);
		free(lists[k]);
	}
	free(s->kinds);
	free(s->title);
	memset(s, 0, sizeof(*s));
}

/* Each section of MAINTAINERS that covers a touched file gives its M:, R: and L:, and its title to *titles */
static void maintainers(struct recipients *r, const char *text, const char *const *paths, size_t npaths, char ***titles,
			size_t *ntitles)
{
	struct section s = { 0 };
	struct strbuf warn = STRBUF_INIT;

	for (const char *line = text;; ) {
		const char *nl = line ? strchr(line, '\n') : NULL;
		size_t len = line ? (nl ? (size_t)(nl - line) : strlen(line)) : 0;
		bool entry = len > 2 && isupper((unsigned char)line[0]) && line[1] == ':';
		if (!line || !entry) {
			/* a section ends at its last entry line */
			if (s.nf || s.nn) {
				bool hit = false;
				for (size_t i = 0; !hit && i < npaths; i++)
					hit = section_matches(&s, paths[i], paths, npaths, &warn);
				if (hit)
					push(titles, ntitles, s.title ? s.title : "(untitled)");
				for (size_t i = 0; hit && i < s.nm; i++) {
					char *why = xasprintf("%s of %s (%c:)", s.kinds[i] == 'M' ? "maintainer"
										  : s.kinds[i] == 'R' ? "reviewer" : "list",
							      s.title ? s.title : "(untitled)", s.kinds[i]);
					add(r, s.m[i], why, false);
					free(why);
				}
			}
			section_release(&s);
			if (!line)
				break;
			if (len)
				s.title = xstrndup(line, len);
		} else {
			const char *v = line + 2;
			while (*v == ' ' || *v == '\t')
				v++;
			char *val = xstrndup(v, (size_t)(line + len - v));
			for (size_t k = strlen(val); k && (val[k - 1] == ' ' || val[k - 1] == '\t' || val[k - 1] == '\r'); k--)
				val[k - 1] = '\0';
			switch (line[0]) {
			case 'M':
			case 'R':
			case 'L':
				s.kinds = xrealloc(s.kinds, s.nm + 1);
				s.kinds[s.nm] = line[0];
				if (line[0] == 'L')	/* "list@host (moderated for non-subscribers)" */
					val[strcspn(val, " \t")] = '\0';
				push(&s.m, &s.nm, val);
				break;
			case 'F': push(&s.f, &s.nf, val); break;
			case 'X': push(&s.x, &s.nx, val); break;
			case 'N': push(&s.n, &s.nn, val); break;
			default: break;
			}
			free(val);
		}
		line = nl ? nl + 1 : NULL;
	}
	section_release(&s);
	if (warn.len) {
		r->warnings = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(*r->warnings));
		r->warnings[r->nwarnings++] = strbuf_detach(&warn);
	}
	strbuf_release(&warn);
}

/*
 * At most max recipients (3,000 Cc trailers must not make 3,000 envelope
 * recipients): the author, the configured lists and subscribers stay, then the others
 * in the order they came (committer, trailers, maintainers) until max.
 */
static void cap(struct recipients *r, size_t max)
{
	size_t keep = 0, kept = 0, dropped = 0;
	char *first = NULL;

	for (size_t i = 0; i < r->n; i++)
		keep += r->v[i].to || r->v[i].pinned;
	for (size_t i = 0; i < r->n; i++) {
		struct recipient *v = &r->v[i];
		bool must = v->to || v->pinned;
		if (must || keep < max) {
			keep += !must;
			r->v[kept++] = *v;
			continue;
		}
		if (!dropped++)
			first = xstrdup(v->email);
		free(v->addr);
		free(v->email);
		free(v->why);
	}
	r->n = kept;
	if (dropped) {
		r->warnings = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(*r->warnings));
		r->warnings[r->nwarnings++] = xasprintf("%zu more recipients dropped (%s and after): at most %zu "
							"(mail.max_recipients)", dropped, first, max);
	}
	free(first);
}

static bool glob_any(char *const *globs, size_t n, const char *s, int flags, const char **which)
{
	for (size_t i = 0; s && i < n; i++)
		if (!fnmatch(globs[i], s, flags)) {
			*which = globs[i];
			return true;
		}
	return false;
}

/* What of sub the change is in, into why ("path drivers/nvdimm/"); false: none of it. */
static bool sub_matches(const struct recipients_sub *sub, const struct recipients_input *in, char *const *titles,
			size_t ntitles, struct strbuf *why)
{
	const char *which;

	for (size_t i = 0; i < sub->npaths; i++)
		for (size_t k = 0; k < in->npaths; k++)
			if (recipients_pattern_match(sub->paths[i], in->paths[k], in->paths, in->npaths)) {
				strbuf_addf(why, "path %s", sub->paths[i]);
				return true;
			}
	for (size_t t = 0; t < ntitles; t++)
		if (glob_any(sub->maintainers, sub->nmaintainers, titles[t], FNM_CASEFOLD, &which)) {
			strbuf_addf(why, "MAINTAINERS %s", titles[t]);
			return true;
		}
	if (glob_any(sub->trees, sub->ntrees, in->tree_name, 0, &which) ||
	    glob_any(sub->trees, sub->ntrees, in->tree_path, 0, &which)) {
		strbuf_addf(why, "tree %s", which);
		return true;
	}
	return false;
}

/* The subscribers the change is for, Cc; the ones whose kind it is not, a note each. */
static void subscriptions(struct recipients *r, const struct recipients_input *in, char *const *titles, size_t ntitles)
{
	for (size_t i = 0; i < in->nsubs; i++) {
		const struct recipients_sub *sub = &in->subs[i];
		struct strbuf why = STRBUF_INIT;
		strbuf_addstr(&why, "subscribed: ");
		if (sub_matches(sub, in, titles, ntitles, &why)) {
			/* regressions only: a change known to be one; with improvements: any change reported */
			bool for_it = in->kind < 0 || sub->improvements;
			strbuf_addstr(&why,
				      sub->improvements ? " (regressions and improvements)" : " (regressions only)");
			struct recipient *v = for_it ? add(r, sub->address, why.buf, false) : NULL;
			if (v)
				v->pinned = v->subscribed = true;
			if (!for_it) {
				r->notes = xrealloc(r->notes, (r->nnotes + 1) * sizeof(*r->notes));
				r->notes[r->nnotes++] =
					xasprintf("not added: %s, %s: %s", sub->address, why.buf,
						  in->kind > 0 ? "the change is an improvement"
							       : "the change is not known to be a regression");
			}
		}
		strbuf_release(&why);
	}
}

void recipients_compute(const struct recipients_input *in, struct recipients *out)
{
	char **titles = NULL;
	size_t ntitles = 0;

	memset(out, 0, sizeof(*out));
	if (in->author)
		add(out, in->author, "author", true);
	if (in->committer)
		add(out, in->committer, "committer", false);
	if (in->message)
		trailers(out, in->message);
	if (in->maintainers)
		maintainers(out, in->maintainers, in->paths, in->npaths, &titles, &ntitles);
	for (size_t i = 0; i < in->nlists; i++) {
		struct recipient *v = add(out, in->lists[i], "configured list", false);
		if (v)
			v->pinned = true;
	}
	subscriptions(out, in, titles, ntitles);
	for (size_t i = 0; i < ntitles; i++)
		free(titles[i]);
	free(titles);
	if (in->max && out->n > in->max)
		cap(out, in->max);
}

void recipients_release(struct recipients *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].addr);
		free(r->v[i].email);
		free(r->v[i].why);
	}
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->v);
	free(r->warnings);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

int recipients_of_commit(const char *tree, const char *rev, const struct recipients_input *conf, struct recipients *out,
			 struct strbuf *err)
{
	struct gitrepo *repo;
	struct gitrepo_commit c;
	struct gitrepo_paths paths = { 0 };
	struct strbuf maint = STRBUF_INIT;
	int ret = -1, rc;

	memset(out, 0, sizeof(*out));
	if (gitrepo_open(&repo, tree, err))
		return -1;
	if (gitrepo_commit_info(repo, rev, &c, err)) {
		gitrepo_close(repo);
		return -1;
	}
	if (gitrepo_changed_paths(repo, c.id, &paths, err) || (rc = gitrepo_read(repo, c.id, "MAINTAINERS", &maint, err)) < 0)
		goto out;
	char *author = xasprintf("%s <%s>", c.author_name, c.author_email);
	char *committer = xasprintf("%s <%s>", c.committer_name, c.committer_email);
	struct recipients_input in = *conf;
	in.author = author;
	in.committer = committer;
	in.message = c.message;
	in.maintainers = rc == 0 ? maint.buf : NULL;
	in.paths = (const char *const *)paths.v;
	in.npaths = paths.n;
	if (!in.tree_path)
		in.tree_path = tree;
	recipients_compute(&in, out);
	free(author);
	free(committer);
	ret = 0;
out:
	gitrepo_paths_release(&paths);
	strbuf_release(&maint);
	gitrepo_commit_release(&c);
	gitrepo_close(repo);
	return ret;
}
