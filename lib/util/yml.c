/*
 * yml: libyaml event parser into node trees, and a block-style emitter.
 * See yml.h. Anchors and aliases are resolved by copying; the `<<` merge
 * key of standard YAML is honoured (explicit keys win over merged ones).
 */
#include "yml.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

void yml_linemap_add(struct yml_linemap *lm, const char *file, int line, int indent)
{
	ALLOC_GROW(lm->lines, lm->n + 1, lm->alloc);
	lm->lines[lm->n].file = node_intern_ref(file);
	lm->lines[lm->n].line = line;
	lm->lines[lm->n].indent = indent;
	lm->n++;
}

void yml_linemap_release(struct yml_linemap *lm)
{
	for (size_t i = 0; i < lm->n; i++)
		node_unintern(lm->lines[i].file);
	free(lm->lines);
	lm->lines = NULL;
	lm->n = lm->alloc = 0;
}

struct anchor {
	char *name;
	struct node *node;	/* borrowed: owned by the document tree */
};

struct loader {
	yaml_parser_t parser;
	const char *file;
	const struct yml_linemap *lm;
	struct anchor *anchors;
	size_t nanchors, aanchors;
	struct strbuf *err;
	/* limits: see YML_MAX_* */
	int depth;
	size_t nodes, alias_nodes, alias_bytes;
};

static void map_pos(const struct loader *ld, yaml_mark_t mark,
		    const char **file, int *line, int *col)
{
	size_t l = mark.line;

	if (ld->lm && ld->lm->n) {
		if (l >= ld->lm->n)
			l = ld->lm->n - 1;
		*file = ld->lm->lines[l].file;
		*line = ld->lm->lines[l].line;
		*col = (int)mark.column + 1 - ld->lm->lines[l].indent;
		if (*col < 1)
			*col = 1;
	} else {
		*file = ld->file;
		*line = (int)mark.line + 1;
		*col = (int)mark.column + 1;
	}
}

static void set_pos(const struct loader *ld, struct node *n, yaml_mark_t mark)
{
	const char *file;
	int line, col;

	map_pos(ld, mark, &file, &line, &col);
	node_set_pos(n, file, line, col);
}

static int fail_at(struct loader *ld, yaml_mark_t mark, const char *fmt, const char *arg)
{
	const char *file;
	int line, col;

	map_pos(ld, mark, &file, &line, &col);
	strbuf_reset(ld->err);
	strbuf_addf(ld->err, "%s:%d:%d: ", file, line, col);
	strbuf_addf(ld->err, fmt, arg);
	return -1;
}

static int parser_error(struct loader *ld)
{
	yaml_parser_t *p = &ld->parser;
	struct strbuf msg = STRBUF_INIT;

	strbuf_addstr(&msg, p->problem ? p->problem : "malformed YAML");
	if (p->context)
		strbuf_addf(&msg, " (%s)", p->context);
	strbuf_addstr(&msg, "; fix the YAML syntax there");
	fail_at(ld, p->problem_mark, "%s", msg.buf);
	strbuf_release(&msg);
	return -1;
}

static void remember_anchor(struct loader *ld, const yaml_char_t *name, struct node *n)
{
	if (!name)
		return;
	for (size_t i = 0; i < ld->nanchors; i++)
		if (!strcmp(ld->anchors[i].name, (const char *)name)) {
			ld->anchors[i].node = n;
			return;
		}
	ALLOC_GROW(ld->anchors, ld->nanchors + 1, ld->aanchors);
	ld->anchors[ld->nanchors].name = xstrdup((const char *)name);
	ld->anchors[ld->nanchors].node = n;
	ld->nanchors++;
}

static void forget_anchors(struct loader *ld)
{
	for (size_t i = 0; i < ld->nanchors; i++)
		free(ld->anchors[i].name);
	ld->nanchors = 0;
}

static bool plain_is_null(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* ---- limits: what hostile YAML cannot make us do ---- */

/* Nodes and scalar bytes of n, counting stops once past the budget. */
static void tree_size(const struct node *n, size_t budget, size_t *nodes, size_t *bytes)
{
	if (*nodes > budget)
		return;
	(*nodes)++;
	if (n->str)
		*bytes += strlen(n->str);
	for (size_t i = 0; i < n->n && *nodes <= budget; i++) {
		if (n->keys)
			*bytes += strlen(n->keys[i]);
		tree_size(n->vals[i], budget, nodes, bytes);
	}
}

/* A limit passed at mark: -1 with "file:line:col: what" in err. */
static int over_limit(struct loader *ld, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int over_limit(struct loader *ld, yaml_mark_t mark, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	fail_at(ld, mark, "%s", msg.buf);
	strbuf_release(&msg);
	return -1;
}

/* One more node made; -1 with err set past YML_MAX_NODES. */
static int charge_node(struct loader *ld, yaml_mark_t mark)
{
	if (++ld->nodes <= YML_MAX_NODES)
		return 0;
	return over_limit(ld, mark, "more than %d values (keys, items, alias copies); split the file", YML_MAX_NODES);
}

/* An alias copies its anchor: -1 with err set when all copies pass the limits. */
static int charge_alias(struct loader *ld, yaml_mark_t mark, const struct node *anchor)
{
	size_t nodes = 0, bytes = 0;

	tree_size(anchor, YML_MAX_ALIAS_NODES, &nodes, &bytes);
	ld->alias_nodes += nodes;
	ld->alias_bytes += bytes;
	ld->nodes += nodes;
	if (ld->alias_nodes <= YML_MAX_ALIAS_NODES && ld->alias_bytes <= YML_MAX_ALIAS_BYTES &&
	    ld->nodes <= YML_MAX_NODES)
		return 0;
	return over_limit(ld, mark, "the aliases expand to more than %d values or %d bytes (an alias bomb?); "
			  "copy less with '*'", YML_MAX_ALIAS_NODES, YML_MAX_ALIAS_BYTES);
}

/* The position of the first NUL byte of text: a binary file, or text cut short by a NUL. */
static int refuse_nul(struct loader *ld, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	yaml_mark_t mark = { 0, 0, 0 };

	if (!nul)
		return 0;
	for (const char *p = text; p < nul; p++) {
		if (*p == '\n') {
			mark.line++;
			mark.column = 0;
		} else {
			mark.column++;
		}
	}
	return fail_at(ld, mark, "%s", "a NUL byte: this is not a text file; remove it");
}

static int parse_node(struct loader *ld, yaml_event_t *ev, struct node **out);

static int next_event(struct loader *ld, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&ld->parser, ev))
		return parser_error(ld);
	return 0;
}

/* Merge `src` (a map) into `dst` without overriding keys dst already has. */
static void merge_into(struct node *dst, const struct node *src)
{
	for (size_t i = 0; i < src->n; i++) {
		if (src->vals[i]->comment || node_index(dst, src->keys[i]) >= 0)
			continue;
		node_append(dst, src->keys[i], node_dup(src->vals[i]));
	}
}

static int parse_mapping(struct loader *ld, struct node *map)
{
	struct node *merges = NULL;	/* sources of `<<`, applied at the end */

	for (;;) {
		yaml_event_t ev;
		struct node *key = NULL, *val = NULL;

		if (next_event(ld, &ev))
			goto fail;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (parse_node(ld, &ev, &key))
			goto fail;
		if (key->type == NODE_SEQ || key->type == NODE_MAP) {
			/*
			 * A complex key ("? [a, b]"): Ruby keeps it as a list or
			 * hash that no job key lookup ever matches; its flow text
			 * is just as inert here.
			 */
			struct strbuf flow = STRBUF_INIT;
			struct node *text;
			yml_emit_flow(&flow, key);
			text = node_new_scalar(flow.buf);
			text->quoted = 1;
			node_set_pos(text, key->file, key->line, key->col);
			node_free(key);
			key = text;
			strbuf_release(&flow);
		}
		if (next_event(ld, &ev)) {
			node_free(key);
			goto fail;
		}
		if (parse_node(ld, &ev, &val)) {
			node_free(key);
			goto fail;
		}
		const char *k = key->str ? key->str : "";
		if (!key->quoted && !strcmp(k, "<<") &&
		    (val->type == NODE_MAP || val->type == NODE_SEQ)) {
			if (!merges)
				merges = node_new(NODE_SEQ);
			if (val->type == NODE_MAP) {
				node_push(merges, val);
			} else {
				for (size_t i = 0; i < val->n; i++)
					if (val->vals[i]->type == NODE_MAP)
						node_push(merges, node_dup(val->vals[i]));
				node_free(val);
			}
			node_free(key);
			continue;
		}
		node_set(map, k, val);
		node_free(key);
	}
	if (merges) {
		for (size_t i = 0; i < merges->n; i++)
			merge_into(map, merges->vals[i]);
		node_free(merges);
	}
	return 0;
fail:
	node_free(merges);
	return -1;
}

static int parse_sequence(struct loader *ld, struct node *seq)
{
	for (;;) {
		yaml_event_t ev;
		struct node *item;

		if (next_event(ld, &ev))
			return -1;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (parse_node(ld, &ev, &item))
			return -1;
		node_push(seq, item);
	}
}

/* Consumes *ev. */
static int parse_node(struct loader *ld, yaml_event_t *ev, struct node **out)
{
	struct node *n = NULL;
	int ret = 0;

	if (ev->type != YAML_ALIAS_EVENT && charge_node(ld, ev->start_mark)) {
		yaml_event_delete(ev);
		return -1;
	}
	if ((ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) &&
	    ld->depth >= YML_MAX_DEPTH) {
		over_limit(ld, ev->start_mark, "lists and mappings nested more than %d deep; flatten them", YML_MAX_DEPTH);
		yaml_event_delete(ev);
		return -1;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *s = (const char *)ev->data.scalar.value;
		bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (strlen(s) != ev->data.scalar.length) {
			ret = fail_at(ld, ev->start_mark, "%s",
				      "a value contains a NUL byte; remove it");
			break;
		}
		if (plain && plain_is_null(s) && !ev->data.scalar.tag) {
			n = node_new(NODE_NULL);
		} else {
			n = node_new_scalar(s);
			n->quoted = !plain;
		}
		set_pos(ld, n, ev->start_mark);
		remember_anchor(ld, ev->data.scalar.anchor, n);
		break;
	}
	case YAML_SEQUENCE_START_EVENT:
		n = node_new(NODE_SEQ);
		set_pos(ld, n, ev->start_mark);
		remember_anchor(ld, ev->data.sequence_start.anchor, n);
		ld->depth++;
		ret = parse_sequence(ld, n);
		ld->depth--;
		break;
	case YAML_MAPPING_START_EVENT:
		n = node_new(NODE_MAP);
		set_pos(ld, n, ev->start_mark);
		remember_anchor(ld, ev->data.mapping_start.anchor, n);
		ld->depth++;
		ret = parse_mapping(ld, n);
		ld->depth--;
		break;
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		const struct node *anchor = NULL;
		for (size_t i = 0; i < ld->nanchors; i++)
			if (!strcmp(ld->anchors[i].name, name))
				anchor = ld->anchors[i].node;
		if (anchor && charge_alias(ld, ev->start_mark, anchor))
			ret = -1;
		else if (anchor)
			n = node_dup(anchor);
		else
			ret = fail_at(ld, ev->start_mark,
				      "unknown alias '*%s'; define the anchor '&name' before using it", name);
		break;
	}
	default:
		ret = fail_at(ld, ev->start_mark, "%s", "unexpected YAML structure");
		break;
	}
	yaml_event_delete(ev);
	if (ret) {
		node_free(n);
		return -1;
	}
	*out = n;
	return 0;
}

int yml_load(const char *text, size_t len, const char *file,
	     const struct yml_linemap *lm, struct node ***docs, size_t *ndocs,
	     struct strbuf *err)
{
	struct loader ld = { .file = node_intern(file), .lm = lm, .err = err };
	struct node **out = NULL;
	size_t n = 0, alloc = 0;
	int ret = -1;

	if (!yaml_parser_initialize(&ld.parser)) {
		strbuf_setf(err, "%s: cannot initialise the YAML parser", file);
		node_unintern(ld.file);
		return -1;
	}
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text, len);
	if (refuse_nul(&ld, text, len))
		goto out;
	for (;;) {
		yaml_event_t ev;
		if (next_event(&ld, &ev))
			goto out;
		yaml_event_type_t t = ev.type;
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (t != YAML_DOCUMENT_START_EVENT)
			continue;
		if (next_event(&ld, &ev))
			goto out;
		struct node *doc;
		if (ev.type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			doc = node_new(NODE_NULL);
		} else {
			if (parse_node(&ld, &ev, &doc))
				goto out;
			if (next_event(&ld, &ev))  {
				node_free(doc);
				goto out;
			}
			yaml_event_delete(&ev);	/* document end */
		}
		forget_anchors(&ld);
		ALLOC_GROW(out, n + 1, alloc);
		out[n++] = doc;
	}
	ret = 0;
out:
	forget_anchors(&ld);
	free(ld.anchors);
	yaml_parser_delete(&ld.parser);
	node_unintern(ld.file);
	if (ret) {
		for (size_t i = 0; i < n; i++)
			node_free(out[i]);
		free(out);
		return -1;
	}
	*docs = out;
	*ndocs = n;
	return 0;
}

struct node *yml_load_one(const char *text, const char *what, struct strbuf *err)
{
	struct node **docs, *doc;
	size_t n;

	if (yml_load(text, strlen(text), what, NULL, &docs, &n, err))
		return NULL;
	if (n != 1) {
		strbuf_setf(err, "%s: expected one YAML document, found %zu", what, n);
		for (size_t i = 0; i < n; i++)
			node_free(docs[i]);
		free(docs);
		return NULL;
	}
	doc = docs[0];
	free(docs);
	return doc;
}

/* ---- emitter ---- */

static bool looks_typed(const char *s)
{
	static const char *const words[] = {
		"~", "null", "Null", "NULL", "true", "True", "TRUE", "false",
		"False", "FALSE", "yes", "Yes", "YES", "no", "No", "NO", "on",
		"On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N",
		".inf", ".Inf", ".INF", "-.inf", ".nan", ".NaN", ".NAN",
	};
	const char *p = s;

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(s, words[i]))
			return true;
	/* numbers: ints, floats, hex, octal, exponents, `_` separators */
	if (*p == '+' || *p == '-')
		p++;
	if (!*p)
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b') && p[2])
		return true;
	bool digit = false;
	for (; *p; p++) {
		if (isdigit((unsigned char)*p))
			digit = true;
		else if (!strchr("._:eE+-", *p))
			return false;
	}
	return digit;
}

enum quoting { Q_PLAIN, Q_SINGLE, Q_DOUBLE };

static enum quoting scalar_quoting(const char *s, bool quoted_origin, bool flow)
{
	size_t len = strlen(s);

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return Q_DOUBLE;
	if (!len)
		return Q_SINGLE;
	if (quoted_origin && looks_typed(s))
		return Q_SINGLE;
	if (flow && strpbrk(s, ",[]{}"))
		return Q_SINGLE;
	if (s[0] == ' ' || s[len - 1] == ' ')
		return Q_SINGLE;
	if (strchr("[]{},#&*!|>'\"%@`", s[0]))
		return Q_SINGLE;
	if (strchr("-?:", s[0]) && (s[1] == ' ' || !s[1]))
		return Q_SINGLE;
	if (strstr(s, ": ") || strstr(s, " #") || s[len - 1] == ':')
		return Q_SINGLE;
	if (!strcmp(s, "<<") || !strcmp(s, "---") || !strcmp(s, "..."))
		return Q_SINGLE;
	if (!quoted_origin && plain_is_null(s))
		return Q_SINGLE;	/* a string that reads as null */
	return Q_PLAIN;
}

static void emit_scalar(struct strbuf *out, const char *s, bool quoted_origin, bool flow)
{
	switch (scalar_quoting(s, quoted_origin, flow)) {
	case Q_PLAIN:
		strbuf_addstr(out, s);
		return;
	case Q_SINGLE:
		strbuf_addch(out, '\'');
		for (; *s; s++) {
			if (*s == '\'')
				strbuf_addch(out, '\'');
			strbuf_addch(out, *s);
		}
		strbuf_addch(out, '\'');
		return;
	case Q_DOUBLE:
		strbuf_addch(out, '"');
		for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
			switch (*p) {
			case '"': strbuf_addstr(out, "\\\""); break;
			case '\\': strbuf_addstr(out, "\\\\"); break;
			case '\n': strbuf_addstr(out, "\\n"); break;
			case '\t': strbuf_addstr(out, "\\t"); break;
			case '\r': strbuf_addstr(out, "\\r"); break;
			default:
				if (*p < 0x20 || *p == 0x7f)
					strbuf_addf(out, "\\x%02x", *p);
				else
					strbuf_addch(out, *p);
			}
		}
		strbuf_addch(out, '"');
		return;
	}
}

void yml_emit_scalar(struct strbuf *out, const char *s, bool quoted_origin)
{
	emit_scalar(out, s, quoted_origin, false);
}

void yml_emit_flow(struct strbuf *out, const struct node *v)
{
	if (node_is_null(v)) {
		strbuf_addch(out, '~');
	} else if (v->type == NODE_SCALAR) {
		/* flow indicators end a plain scalar in flow context */
		emit_scalar(out, v->str, v->quoted, true);
	} else if (v->type == NODE_SEQ) {
		strbuf_addch(out, '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			yml_emit_flow(out, v->vals[i]);
		}
		strbuf_addch(out, ']');
	} else {
		bool first = true;
		strbuf_addch(out, '{');
		for (size_t i = 0; i < v->n; i++) {
			if (v->vals[i]->comment)
				continue;
			if (!first)
				strbuf_addstr(out, ", ");
			first = false;
			emit_scalar(out, v->keys[i], false, true);
			strbuf_addstr(out, ": ");
			yml_emit_flow(out, v->vals[i]);
		}
		strbuf_addch(out, '}');
	}
}

static void indent(struct strbuf *out, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addch(out, ' ');
}

static bool is_empty_coll(const struct node *n)
{
	size_t real = 0;

	if (n->type != NODE_MAP && n->type != NODE_SEQ)
		return false;
	for (size_t i = 0; i < n->n; i++)
		real += !n->vals[i]->comment;
	return real == 0;
}

static void emit_value(struct strbuf *out, const struct node *v, int ind);

static void emit_map(struct strbuf *out, const struct node *m, int ind, bool first_inline)
{
	bool first = true;

	for (size_t i = 0; i < m->n; i++) {
		const struct node *v = m->vals[i];

		if (v->comment) {
			/* provenance comments only make sense at the top level */
			if (ind == 0)
				strbuf_addf(out, "%s%s\n", out->len ? "\n" : "", v->str);
			continue;
		}
		if (!(first && first_inline))
			indent(out, ind);
		first = false;
		yml_emit_scalar(out, m->keys[i], false);
		strbuf_addch(out, ':');
		emit_value(out, v, ind);
	}
}

static void emit_seq(struct strbuf *out, const struct node *s, int ind, bool first_inline)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct node *v = s->vals[i];

		if (!(i == 0 && first_inline))
			indent(out, ind);
		strbuf_addch(out, '-');
		if (node_is_null(v)) {
			strbuf_addch(out, '\n');
		} else if (v->type == NODE_SCALAR || is_empty_coll(v)) {
			strbuf_addch(out, ' ');
			emit_value(out, v, -1);
		} else if (v->type == NODE_MAP) {
			strbuf_addch(out, ' ');
			emit_map(out, v, ind + 2, true);
		} else {
			strbuf_addch(out, ' ');
			emit_seq(out, v, ind + 2, true);
		}
	}
}

/* After "key:" (ind >= 0) or "- " (ind < 0: value already positioned). */
static void emit_value(struct strbuf *out, const struct node *v, int ind)
{
	const char *sep = ind >= 0 ? " " : "";

	if (node_is_null(v)) {
		strbuf_addch(out, '\n');
	} else if (v->type == NODE_SCALAR) {
		strbuf_addstr(out, sep);
		yml_emit_scalar(out, v->str, v->quoted);
		strbuf_addch(out, '\n');
	} else if (is_empty_coll(v)) {
		strbuf_addf(out, "%s%s\n", sep, v->type == NODE_MAP ? "{}" : "[]");
	} else if (v->type == NODE_MAP) {
		strbuf_addch(out, '\n');
		emit_map(out, v, ind + 2, false);
	} else {
		strbuf_addch(out, '\n');
		emit_seq(out, v, ind, false);
	}
}

void yml_emit(struct strbuf *out, const struct node *doc)
{
	if (node_is_null(doc))
		return;
	if (doc->type == NODE_MAP)
		emit_map(out, doc, 0, false);
	else if (doc->type == NODE_SEQ)
		emit_seq(out, doc, 0, false);
	else
		emit_value(out, doc, -1);
}
