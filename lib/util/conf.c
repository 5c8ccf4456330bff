/*
 * conf: the sections of the configuration files read by their tables. See
 * conf.h. A default is text read by the same code as a value, so that a
 * table's defaults are checked like the user's.
 */
#include "conf.h"
#include "yml.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int conf_error(struct strbuf *err, const char *file, const struct node *at, const char *prefix, const char *key,
	       const char *what)
{
	size_t plen = strlen(prefix ? prefix : "");

	if (!key || !*key)	/* the section itself: "serve", "boxes.b1" */
		plen -= plen && prefix[plen - 1] == '.';
	if (at && at->line)
		strbuf_setf(err, "%s:%d:%d: %.*s%s: %s", file, at->line, at->col, (int)plen, prefix ? prefix : "",
			    key ? key : "", what);
	else
		strbuf_setf(err, "%s: %.*s%s: %s", file, (int)plen, prefix ? prefix : "", key ? key : "", what);
	return -1;
}

struct node *conf_load_file(const char *file, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct node *doc = NULL;

	struct strbuf why = STRBUF_INIT;
	if (strbuf_read_bounded(&text, file, CONF_FILE_MAX, &why)) {
		int e = errno;
		strbuf_setf(err, "%s: cannot read the configuration: %s", file,
			    e == EFBIG	  ? "more than 1 MiB (a configuration is a few KiB)"
			    : e == EINVAL ? "not a regular file"
					  : strerror(e));
		strbuf_release(&why);
		errno = e;
		return NULL;
	}
	strbuf_release(&why);
	doc = yml_load_one(text.buf, file, err);
	strbuf_release(&text);
	errno = 0;
	return doc;
}

int conf_percent(const char *s, double *pct)
{
	char *end;

	if (!s || !*s)
		return -1;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%")) || !(v > 0) || !(v < 1000))
		return -1;
	*pct = v;
	return 0;
}

static void *field(void *dst, const struct conf_key *k)
{
	return (char *)dst + k->off;
}

/* An int-like field of 1 (bool), int or long size. */
static void store_int(void *dst, const struct conf_key *k, long v)
{
	void *f = field(dst, k);

	if (k->size == sizeof(bool))
		*(bool *)f = v != 0;
	else if (k->size == sizeof(int))
		*(int *)f = (int)v;
	else
		*(long *)f = v;
}

static void free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void set_list(void *dst, const struct conf_key *k, char **v, size_t n)
{
	free_list(*(char ***)field(dst, k));
	*(char ***)field(dst, k) = v;
	if (k->flags & CONF_COUNTED)
		*(size_t *)((char *)dst + k->count_off) = n;
}

void conf_release(const struct conf_key keys[], void *dst)
{
	for (const struct conf_key *k = keys; k->type != CONF_END; k++) {
		if (k->type == CONF_STRING) {
			free(*(char **)field(dst, k));
			*(char **)field(dst, k) = NULL;
		} else if (k->type == CONF_LIST || k->type == CONF_PERCENT_MAP) {
			set_list(dst, k, NULL, 0);
		} else if (k->type == CONF_SECTION) {
			conf_release(k->sub, dst);
		}
	}
}

/* What a bad value of k is told when its row does not say. */
static const char *what_of(const struct conf_key *k, struct strbuf *buf)
{
	if (k->what)
		return k->what;
	strbuf_reset(buf);
	switch (k->type) {
	case CONF_BOOL:
		return "must be true or false";
	case CONF_NUMBER:
		if (k->max == LONG_MAX)
			strbuf_addf(buf, "must be a whole number, %ld or more (up to %ld)", k->min, k->max);
		else
			strbuf_addf(buf, "must be a whole number from %ld to %ld", k->min, k->max);
		return buf->buf;
	case CONF_CHOICE:
		strbuf_addstr(buf, "must be ");
		for (size_t i = 0; k->choices[i]; i++)
			strbuf_addf(buf, "%s%s", i ? k->choices[i + 1] ? ", " : " or " : "", k->choices[i]);
		return buf->buf;
	case CONF_LIST:
		return k->flags & CONF_NONEMPTY ? "must be a list of strings (at least one)" : "must be a list of strings";
	case CONF_PERCENT:
		return "must be a percentage above 0; write e.g. 2% or 0.5";
	case CONF_PERCENT_MAP:
		return "must be a map of metric (or glob) -> percent, e.g. command.throughput: 2%";
	case CONF_SECTION:
		return "must be a map";
	default:
		return "must be a string";
	}
}

struct reader {
	const char *file, *prefix;
	void *dst;
	struct strbuf *err;
	struct strbuf what;	/* what_of()'s text */
};

static int bad(struct reader *r, const struct node *at, const char *key, const char *what)
{
	return conf_error(r->err, r->file, at, r->prefix, key, what);
}

/* A string or a list's item, checked by the row's check(): its why is what is told. */
static int checked(struct reader *r, const struct conf_key *k, const struct node *at, const char *s)
{
	struct strbuf why = STRBUF_INIT;

	if (!k->check || !k->check(s, &why)) {
		strbuf_release(&why);
		return 0;
	}
	bad(r, at, k->name, why.len ? why.buf : what_of(k, &r->what));
	strbuf_release(&why);
	return -1;
}

static int read_list(struct reader *r, const struct conf_key *k, const struct node *v)
{
	const char *one = node_str(v);
	bool seq = v->type == NODE_SEQ;
	size_t n = seq ? v->n : 1;

	if ((!seq && !(one && (k->flags & CONF_ONE_OK))) || (seq && !n && (k->flags & CONF_NONEMPTY)))
		return bad(r, v, k->name, what_of(k, &r->what));
	char **out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct node *item = seq ? v->vals[i] : v;
		if (!node_str(item) || checked(r, k, item, node_str(item))) {
			if (!node_str(item))
				bad(r, item, k->name, k->what_item ? k->what_item : what_of(k, &r->what));
			free_list(out);
			return -1;
		}
		out[i] = xstrdup(node_str(item));
	}
	set_list(r->dst, k, out, n);
	return 0;
}

static int read_percent_map(struct reader *r, const struct conf_key *k, const struct node *v)
{
	double pct;
	size_t n = 0;

	if (v->type != NODE_MAP)
		return bad(r, v, k->name, what_of(k, &r->what));
	char **out = xcalloc(v->n + 1, sizeof(*out));
	for (size_t i = 0; i < v->n; i++) {
		if (v->vals[i]->comment)
			continue;
		if (conf_percent(node_str(v->vals[i]), &pct)) {
			char *key = xasprintf("%s.%s", k->name, v->keys[i]);
			bad(r, v->vals[i], key, k->what_item ? k->what_item : "not a percentage; write e.g. 2% or 0.5");
			free(key);
			free_list(out);
			return -1;
		}
		out[n++] = xasprintf("%s=%s", v->keys[i], node_str(v->vals[i]));
	}
	set_list(r->dst, k, out, n);
	return 0;
}

static int read_keys(struct reader *r, const struct node *map, const struct conf_key keys[]);

static int read_section(struct reader *r, const struct conf_key *k, const struct node *v)
{
	if (v->type != NODE_MAP)
		return bad(r, v, k->name, what_of(k, &r->what));
	char *prefix = xasprintf("%s%s.", r->prefix, k->name);
	struct reader sub = { r->file, prefix, r->dst, r->err, STRBUF_INIT };
	int ret = read_keys(&sub, v, k->sub);

	strbuf_release(&sub.what);
	free(prefix);
	return ret;
}

/* One value of row k. */
static int read_value(struct reader *r, const struct conf_key *k, const struct node *v)
{
	const char *s = node_str(v);
	long n;
	char *end;

	switch (k->type) {
	case CONF_STRING:
		if (!s && v->type != NODE_NULL)
			return bad(r, v, k->name, what_of(k, &r->what));
		if (!s || !*s)
			return 0;	/* empty: the default stays */
		if (checked(r, k, v, s))
			return -1;
		free(*(char **)field(r->dst, k));
		*(char **)field(r->dst, k) = xstrdup(s);
		return 0;
	case CONF_BOOL:
		if (s && (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "false") || !strcmp(s, "no"))) {
			*(bool *)field(r->dst, k) = *s == 't' || *s == 'y';
			return 0;
		}
		return bad(r, v, k->name, what_of(k, &r->what));
	case CONF_NUMBER:
		errno = 0;
		n = s && *s ? strtol(s, &end, 10) : 0;
		/* past the range of a long is no number of ours either (it was taken as LONG_MAX) */
		if (!s || !*s || *end || errno == ERANGE || n < k->min || n > k->max)
			return bad(r, v, k->name, what_of(k, &r->what));
		store_int(r->dst, k, n);
		return 0;
	case CONF_CHOICE:
		for (size_t i = 0; s && k->choices[i]; i++)
			if (!strcmp(s, k->choices[i])) {
				store_int(r->dst, k, (long)i);
				return 0;
			}
		return bad(r, v, k->name, what_of(k, &r->what));
	case CONF_PERCENT:
		if (conf_percent(s, (double *)field(r->dst, k)))
			return bad(r, v, k->name, what_of(k, &r->what));
		return 0;
	case CONF_LIST:
		return read_list(r, k, v);
	case CONF_PERCENT_MAP:
		return read_percent_map(r, k, v);
	case CONF_SECTION:
		return read_section(r, k, v);
	default:
		return 0;
	}
}

static const struct conf_key *row_of(const struct conf_key keys[], const char *name, bool *other)
{
	*other = false;
	for (const struct conf_key *k = keys; k->type != CONF_END; k++)
		if (k->type != CONF_OTHERS && !strcmp(k->name, name))
			return k;
	for (const struct conf_key *k = keys; k->type != CONF_END; k++)
		*other |= k->type == CONF_OTHERS && k->match(name);
	return NULL;
}

static int read_keys(struct reader *r, const struct node *map, const struct conf_key keys[])
{
	for (size_t i = 0; map && i < map->n; i++) {
		bool other;
		const struct conf_key *k = row_of(keys, map->keys[i], &other);
		if (map->vals[i]->comment || other)
			continue;
		if (!k)
			return bad(r, map->vals[i], map->keys[i], "not a setting lkprobot knows (a typo?)");
		if (read_value(r, k, map->vals[i]))
			return -1;
	}
	for (const struct conf_key *k = keys; k->type != CONF_END; k++)
		if ((k->flags & CONF_REQUIRED) && !node_get(map, k->name))
			return bad(r, map, k->name, what_of(k, &r->what));
	return 0;
}

/* The defaults, read as values (a section's too, given or not). */
static int read_defaults(struct reader *r, const struct conf_key keys[])
{
	for (const struct conf_key *k = keys; k->type != CONF_END; k++) {
		if (k->type == CONF_SECTION) {
			if (read_defaults(r, k->sub))
				return -1;
			continue;
		}
		if (!k->def)
			continue;
		struct node *d = node_new_scalar(k->def);
		int rc = read_value(r, k, d);
		node_free(d);
		if (rc)
			return -1;
	}
	return 0;
}

int conf_read(const struct node *map, const struct conf_key keys[], void *dst, const char *file, const char *prefix,
	      struct strbuf *err)
{
	struct reader r = { file, prefix ? prefix : "", dst, err, STRBUF_INIT };
	int ret = read_defaults(&r, keys);

	if (!ret && map && map->type != NODE_MAP)
		ret = bad(&r, map, NULL, "must be a map");
	if (!ret)
		ret = read_keys(&r, map, keys);
	if (ret)
		conf_release(keys, dst);
	strbuf_release(&r.what);
	return ret;
}

void conf_doc_escape(struct strbuf *out, const char *text)
{
	for (const char *c = text; c && *c; c++) {
		if (strchr("\\|<*`$", *c))
			strbuf_addch(out, '\\');
		strbuf_addch(out, *c == '\n' ? ' ' : *c);
	}
}

/* How a value of k is written: its form, else what a bad one is told it must be, else its type's. */
static void doc_form(struct strbuf *out, const struct conf_key *k)
{
	static const char must[] = "must be ";

	if (k->form || (k->what && !strncmp(k->what, must, strlen(must)))) {
		conf_doc_escape(out, k->form ? k->form : k->what + strlen(must));
		return;
	}
	switch (k->type) {
	case CONF_BOOL:
		strbuf_addstr(out, "true or false (yes or no)");
		break;
	case CONF_NUMBER:
		if (k->max == LONG_MAX)
			strbuf_addf(out, "a whole number, %ld or more", k->min);
		else
			strbuf_addf(out, "a whole number from %ld to %ld", k->min, k->max);
		break;
	case CONF_CHOICE:
		for (size_t i = 0; k->choices[i]; i++)
			strbuf_addf(out, "%s`%s`", i ? k->choices[i + 1] ? ", " : " or " : "", k->choices[i]);
		break;
	case CONF_LIST:
		strbuf_addstr(out, "a list of strings");
		if (k->flags & CONF_ONE_OK)
			strbuf_addstr(out, ", or one string");
		if (k->flags & CONF_NONEMPTY)
			strbuf_addstr(out, " (at least one)");
		break;
	case CONF_PERCENT:
		strbuf_addstr(out, "a percentage above 0 (2% or 0.5)");
		break;
	case CONF_PERCENT_MAP:
		strbuf_addstr(out, "a map of metric (or glob) to percent");
		break;
	case CONF_SECTION:
		strbuf_addstr(out, "a map of the keys below");
		break;
	default:
		strbuf_addstr(out, "a string");
	}
}

static void doc_rows(struct strbuf *out, const struct conf_key keys[], const char *prefix)
{
	for (const struct conf_key *k = keys; k->type != CONF_END; k++) {
		if (k->type == CONF_OTHERS)
			continue;
		strbuf_addf(out, "| `%s%s` | ", prefix, k->name);
		doc_form(out, k);
		strbuf_addstr(out, " | ");
		if (k->flags & CONF_REQUIRED)
			strbuf_addstr(out, "required");
		else if (k->def)
			strbuf_addf(out, "`%s`", k->def);
		strbuf_addstr(out, " | ");
		conf_doc_escape(out, k->help);
		strbuf_addstr(out, " |\n");
		if (k->type == CONF_SECTION) {
			char *sub = xasprintf("%s%s.", prefix, k->name);
			doc_rows(out, k->sub, sub);
			free(sub);
		}
	}
}

void conf_doc(struct strbuf *out, const struct conf_key keys[])
{
	strbuf_addstr(out, "| key | value | default | what it is |\n|---|---|---|---|\n");
	doc_rows(out, keys, "");
	for (const struct conf_key *k = keys; k->type != CONF_END; k++)
		if (k->type == CONF_OTHERS && k->help) {
			strbuf_addstr(out, "\nAlso: ");
			conf_doc_escape(out, k->help);
			strbuf_addstr(out, ".\n");
		}
}
