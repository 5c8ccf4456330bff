/*
 * yml: YAML text <-> node trees. The only module that includes libyaml.
 *
 * Loading keeps source positions: a line map lets text spliced together
 * from several files (job includes) report errors against the file and
 * line the user wrote. Emitting writes block-style YAML in the layout
 * lkp-tests' job files use, quoting only where a reader would otherwise
 * see a different value.
 */
#ifndef LKP_YML_H
#define LKP_YML_H

#include "node.h"
#include "strbuf.h"

/* Where each line of a spliced text came from. */
struct yml_line {
	const char *file;	/* interned */
	int line;		/* 1-based line in that file */
	int indent;		/* columns added in front by the splice */
};

struct yml_linemap {
	struct yml_line *lines;
	size_t n, alloc;
};

/* file: an interned name (node_intern); the map holds a reference until released. */
void yml_linemap_add(struct yml_linemap *lm, const char *file, int line, int indent);
void yml_linemap_release(struct yml_linemap *lm);

/*
 * Limits on what one text may make, so that hostile YAML (an alias bomb of
 * a few hundred bytes, `[` nested 50,000 deep) is a one-line error and not
 * gigabytes or a stack overflow: values made in all (keys, items, alias
 * copies), values and scalar bytes copied by aliases, nesting depth.
 */
#define YML_MAX_NODES 1000000
#define YML_MAX_ALIAS_NODES 100000
#define YML_MAX_ALIAS_BYTES (16 << 20)
#define YML_MAX_DEPTH 64

/*
 * Parse all documents of `text`. With a NULL line map, positions are
 * `file`:line:col of the text itself. On success *docs is a malloc'ed array
 * of *ndocs trees (an empty document is a NODE_NULL). Returns 0, or -1 with
 * one line "file:line:col: what is wrong" in err (also: a NUL byte, a
 * limit above passed).
 * Duplicate keys keep the first key's position and the last value, as
 * lkp-tests' loader does (textual includes rely on it).
 */
int yml_load(const char *text, size_t len, const char *file,
	     const struct yml_linemap *lm, struct node ***docs, size_t *ndocs,
	     struct strbuf *err);

/* Parse a single-document text (e.g. "key: value" from a command line). */
struct node *yml_load_one(const char *text, const char *what, struct strbuf *err);

/* Emit a document body (a map, normally) as block YAML. */
void yml_emit(struct strbuf *out, const struct node *doc);
/* Emit a value on one line in flow style ({a: b}, [x, y]). */
void yml_emit_flow(struct strbuf *out, const struct node *v);
/* Append a scalar quoted as needed to read back as the same string. */
void yml_emit_scalar(struct strbuf *out, const char *s, bool quoted_origin);

#endif
