/*
 * json: a small strict JSON reader and a pretty writer over node trees.
 * See json.h. Reads RFC 8259 JSON (plus NaN/Infinity tokens, which lkp-tests'
 * files may hold with allow_nan); nesting is limited to 200 levels, the tree
 * it makes to JSON_MAX_MEMORY.
 */
#include "json.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const char *s, *end, *what;
	struct strbuf *err;
	int depth;
	size_t memory, max; /* what the tree made so far takes, about; its bound (JSON_MAX_MEMORY) */
	int line, col;	    /* the position of s[0] (1:1 for a whole text) */
};

/*
 * What a value costs in memory, about, as node.c and malloc make it (a
 * node and its allocation, a string's, an item's pointers in its parent
 * and a key's): measured, a list of 4M zeros took 118 bytes an item.
 */
#define JSON_NODE_COST 96
#define JSON_ITEM_COST 24

static int jp_fail(struct jp *p, const char *at, const char *msg)
{
	int line = p->line, col = p->col;

	for (const char *c = p->s; c < at && c < p->end; c++) {
		if (*c == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	strbuf_setf(p->err, "%s:%d:%d: %s", p->what, line, col, msg);
	return -1;
}

/* Charge `bytes` of the tree being made; -1 with err set past JSON_MAX_MEMORY. */
static int charge(struct jp *p, const char *at, size_t bytes)
{
	char msg[128];

	p->memory += bytes;
	if (p->memory <= p->max)
		return 0;
	snprintf(msg, sizeof(msg), "the JSON expands to more than %zu MiB in memory; such a file is not one of ours",
		 p->max >> 20);
	return jp_fail(p, at, msg);
}

static const char *skip_ws(const struct jp *p, const char *c)
{
	while (c < p->end && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r'))
		c++;
	return c;
}

static void put_utf8(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

static int hex4(const char *c, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = c[i];
		if (h >= '0' && h <= '9')
			v = v * 16 + (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			v = v * 16 + (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			v = v * 16 + (unsigned)(h - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static int parse_string(struct jp *p, const char **cur, struct strbuf *out)
{
	const char *c = *cur + 1;

	while (c < p->end && *c != '"') {
		if ((unsigned char)*c < 0x20)
			return jp_fail(p, c, "control character in a string");
		if (*c != '\\') {
			strbuf_addch(out, *c++);
			continue;
		}
		if (++c >= p->end)
			break;
		switch (*c) {
		case '"': strbuf_addch(out, '"'); break;
		case '\\': strbuf_addch(out, '\\'); break;
		case '/': strbuf_addch(out, '/'); break;
		case 'b': strbuf_addch(out, '\b'); break;
		case 'f': strbuf_addch(out, '\f'); break;
		case 'n': strbuf_addch(out, '\n'); break;
		case 'r': strbuf_addch(out, '\r'); break;
		case 't': strbuf_addch(out, '\t'); break;
		case 'u': {
			unsigned cp, lo;
			const char *u = c;
			if (p->end - c < 5 || hex4(c + 1, &cp))
				return jp_fail(p, c, "bad \\u escape");
			c += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->end - c >= 7 && c[1] == '\\' &&
			    c[2] == 'u' && !hex4(c + 3, &lo) && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				c += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				/* no UTF-8 for half a pair: it would be invalid bytes */
				return jp_fail(p, u, "lone surrogate in a \\u escape");
			}
			if (!cp)
				return jp_fail(p, c, "NUL in a string");
			put_utf8(out, cp);
			break;
		}
		default:
			return jp_fail(p, c, "bad escape in a string");
		}
		c++;
	}
	if (c >= p->end)
		return jp_fail(p, *cur, "unterminated string");
	*cur = c + 1;
	return 0;
}

static struct node *parse_value(struct jp *p, const char **cur);

static struct node *parse_container(struct jp *p, const char **cur, bool object)
{
	struct node *n = node_new(object ? NODE_MAP : NODE_SEQ);
	const char *c = skip_ws(p, *cur + 1);
	struct strbuf key = STRBUF_INIT;

	if (++p->depth > 200) {
		jp_fail(p, *cur, "nested too deeply");
		goto fail;
	}
	if (c < p->end && *c == (object ? '}' : ']')) {
		*cur = c + 1;
		p->depth--;
		return n;
	}
	for (;;) {
		struct node *v;
		if (object) {
			if (c >= p->end || *c != '"') {
				jp_fail(p, c, "expected a string key");
				goto fail;
			}
			strbuf_reset(&key);
			if (parse_string(p, &c, &key))
				goto fail;
			c = skip_ws(p, c);
			if (c >= p->end || *c != ':') {
				jp_fail(p, c, "expected ':'");
				goto fail;
			}
			c = skip_ws(p, c + 1);
		}
		if (charge(p, c, JSON_ITEM_COST + (object ? key.len + JSON_ITEM_COST : 0)) || !(v = parse_value(p, &c)))
			goto fail;
		if (object)
			node_set(n, key.buf, v);
		else
			node_push(n, v);
		c = skip_ws(p, c);
		if (c < p->end && *c == ',') {
			c = skip_ws(p, c + 1);
			continue;
		}
		if (c < p->end && *c == (object ? '}' : ']'))
			break;
		jp_fail(p, c, object ? "expected ',' or '}'" : "expected ',' or ']'");
		goto fail;
	}
	*cur = c + 1;
	p->depth--;
	strbuf_release(&key);
	return n;
fail:
	strbuf_release(&key);
	node_free(n);
	return NULL;
}

static struct node *parse_value(struct jp *p, const char **cur)
{
	const char *c = skip_ws(p, *cur);
	struct node *n;

	if (c >= p->end) {
		jp_fail(p, c, "unexpected end of input");
		return NULL;
	}
	if (charge(p, c, JSON_NODE_COST))
		return NULL;
	if (*c == '{' || *c == '[') {
		*cur = c;
		return parse_container(p, cur, *c == '{');
	}
	if (*c == '"') {
		struct strbuf s = STRBUF_INIT;
		if (parse_string(p, &c, &s)) {
			strbuf_release(&s);
			return NULL;
		}
		if (charge(p, c, s.len)) {
			strbuf_release(&s);
			return NULL;
		}
		n = node_new(NODE_SCALAR);
		n->str = strbuf_detach(&s);
		n->quoted = 1;
		*cur = c;
		return n;
	}
	static const char *const words[] = { "true", "false", "null", "NaN", "Infinity", "-Infinity" };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		size_t l = strlen(words[i]);
		if ((size_t)(p->end - c) >= l && !strncmp(c, words[i], l)) {
			*cur = c + l;
			return i == 2 ? node_new(NODE_NULL) : node_new_scalar(words[i]);
		}
	}
	/* number: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
	const char *s = c;
	if (c < p->end && *c == '-')
		c++;
	if (c >= p->end || !isdigit((unsigned char)*c)) {
		jp_fail(p, s, "expected a JSON value");
		return NULL;
	}
	if (*c == '0')
		c++;
	else
		while (c < p->end && isdigit((unsigned char)*c))
			c++;
	if (c < p->end && *c == '.') {
		c++;
		if (c >= p->end || !isdigit((unsigned char)*c)) {
			jp_fail(p, c, "expected digits after '.'");
			return NULL;
		}
		while (c < p->end && isdigit((unsigned char)*c))
			c++;
	}
	if (c < p->end && (*c == 'e' || *c == 'E')) {
		c++;
		if (c < p->end && (*c == '+' || *c == '-'))
			c++;
		if (c >= p->end || !isdigit((unsigned char)*c)) {
			jp_fail(p, c, "expected digits in the exponent");
			return NULL;
		}
		while (c < p->end && isdigit((unsigned char)*c))
			c++;
	}
	if (charge(p, s, (size_t)(c - s)))
		return NULL;
	n = node_new(NODE_SCALAR);
	n->str = xstrndup(s, (size_t)(c - s));
	*cur = c;
	return n;
}

struct node *json_parse(const char *text, size_t len, const char *what, struct strbuf *err)
{
	return json_parse_max(text, len, what, JSON_MAX_MEMORY, err);
}

struct node *json_parse_max(const char *text, size_t len, const char *what, size_t max_memory, struct strbuf *err)
{
	struct jp p = { text, text + len, what, err, 0, 0, max_memory, 1, 1 };
	const char *c = text;
	struct node *n = parse_value(&p, &c);

	if (!n)
		return NULL;
	c = skip_ws(&p, c);
	if (c < p.end) {
		jp_fail(&p, c, "text after the JSON value");
		node_free(n);
		return NULL;
	}
	return n;
}

struct node *json_parse_at(const char *text, size_t len, size_t *pos, const struct json_at *at, struct strbuf *err)
{
	struct jp p = { text, text + len, at->what, err, at->depth, 0, at->max_memory, at->line, at->col };
	const char *c = text + *pos;
	struct node *n = parse_value(&p, &c);

	if (n)
		*pos = (size_t)(c - text);
	return n;
}

bool json_number(const struct node *n, double *out)
{
	char *end;
	double v;

	if (!n || n->type != NODE_SCALAR || n->quoted || !n->str[0])
		return false;
	if (!strcmp(n->str, "true") || !strcmp(n->str, "false"))
		return false;
	v = strtod(n->str, &end);
	if (*end || !isfinite(v))
		return false;	/* *out untouched: "null" is no 0 */
	*out = v;
	return true;
}

const struct node *json_path(const struct node *n, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, n);
	while (n && (k = va_arg(ap, const char *))) {
		if (n->type == NODE_MAP) {
			n = node_get(n, k);
		} else if (n->type == NODE_SEQ) {
			char *end;
			unsigned long i = strtoul(k, &end, 10);
			/* only digits: "", " 1", "+1" and "-1" are no index */
			n = (!isdigit((unsigned char)*k) || *end || i >= n->n) ? NULL : n->vals[i];
		} else {
			n = NULL;
		}
	}
	va_end(ap);
	return n;
}

void json_emit_string(struct strbuf *out, const char *s)
{
	size_t left = strlen(s);

	strbuf_addch(out, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++, left--) {
		if (*c >= 0x80) {
			/* JSON is UTF-8: a byte that is not part of a valid sequence becomes U+FFFD */
			size_t n = strbuf_utf8_len((const char *)c, left);
			if (!n) {
				strbuf_addstr(out, "\\ufffd");
				continue;
			}
			strbuf_add(out, c, n);
			c += n - 1;
			left -= n - 1;
			continue;
		}
		switch (*c) {
		case '"': strbuf_addstr(out, "\\\""); break;
		case '\\': strbuf_addstr(out, "\\\\"); break;
		case '\n': strbuf_addstr(out, "\\n"); break;
		case '\r': strbuf_addstr(out, "\\r"); break;
		case '\t': strbuf_addstr(out, "\\t"); break;
		default:
			if (*c < 0x20)
				strbuf_addf(out, "\\u%04x", *c);
			else
				strbuf_addch(out, *c);
		}
	}
	strbuf_addch(out, '"');
}

void json_format_number(struct strbuf *out, double v, bool is_float)
{
	if (!isfinite(v)) {
		strbuf_addstr(out, isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (!is_float && fabs(v) < 9.007199254740992e15 && v == (double)(long long)v) {
		strbuf_addf(out, "%lld", (long long)v);
		return;
	}
	char buf[64];
	/* the shortest of %.15g..%.17g that reads back exactly */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	strbuf_addstr(out, buf);
	if (is_float && !strpbrk(buf, ".eEn"))
		strbuf_addstr(out, ".0");
}

static void emit(struct strbuf *out, const struct node *n, int ind)
{
	if (node_is_null(n)) {
		strbuf_addstr(out, "null");
		return;
	}
	if (n->type == NODE_SCALAR) {
		if (n->quoted)
			json_emit_string(out, n->str);
		else
			strbuf_addstr(out, n->str);
		return;
	}
	bool map = n->type == NODE_MAP;
	size_t real = 0;
	for (size_t i = 0; i < n->n; i++)
		real += !n->vals[i]->comment;
	if (!real) {
		strbuf_addstr(out, map ? "{}" : "[]");
		return;
	}
	strbuf_addstr(out, map ? "{\n" : "[\n");
	bool first = true;
	for (size_t i = 0; i < n->n; i++) {
		if (n->vals[i]->comment)
			continue;
		if (!first)
			strbuf_addstr(out, ",\n");
		first = false;
		for (int k = 0; k < ind + 2; k++)
			strbuf_addch(out, ' ');
		if (map) {
			json_emit_string(out, n->keys[i]);
			strbuf_addstr(out, ": ");
		}
		emit(out, n->vals[i], ind + 2);
	}
	strbuf_addch(out, '\n');
	for (int k = 0; k < ind; k++)
		strbuf_addch(out, ' ');
	strbuf_addch(out, map ? '}' : ']');
}

void json_emit(struct strbuf *out, const struct node *n)
{
	emit(out, n, 0);
	strbuf_addch(out, '\n');
}
