/*
 * json: JSON text <-> node trees (node.h). Objects become NODE_MAP (key
 * order kept), arrays NODE_SEQ, strings NODE_SCALAR with `quoted` set,
 * numbers/true/false NODE_SCALAR with `quoted` clear (their text kept
 * exactly as written, so 1.430e+13 and 68766 round-trip), null NODE_NULL.
 * Used for fio's JSON output and for lkprobot's own <program>.json,
 * stats.json and matrix.json. No dependency of ours parses JSON (SQLite's
 * json1 is SQL-only), hence this small reader.
 */
#ifndef LKP_JSON_H
#define LKP_JSON_H

#include "node.h"
#include "strbuf.h"

#include <stdbool.h>

/*
 * The most memory the tree of one json_parse may take (about: nodes,
 * strings, pointers), whatever the text: "[0,0,...]" makes ~120 bytes of
 * tree a 2 bytes of text, so the bound on a file's size alone would not
 * hold for what it expands to.
 */
#define JSON_MAX_MEMORY ((size_t)512 << 20)

/*
 * Parse one JSON value. Text before the first '{' or '[' that is not JSON
 * is an error (callers that must skip banners do so themselves). Returns the
 * tree, or NULL with "what:line:col: problem" in err (also past
 * JSON_MAX_MEMORY).
 */
struct node *json_parse(const char *text, size_t len, const char *what, struct strbuf *err);
/* The same with another bound than JSON_MAX_MEMORY (at least 1 MiB: its message says MiB). */
struct node *json_parse_max(const char *text, size_t len, const char *what, size_t max_memory, struct strbuf *err);

/*
 * One value of text[*pos..len) (white space before it skipped), for a
 * reader of a file in pieces: *pos then after it. Errors as json_parse's,
 * "what:line:col: ...", counted from text[0], which is at line:col of the
 * file; depth: the containers the value is in (200 in all at most).
 */
struct json_at {
	const char *what;
	int line, col;
	int depth;
	size_t max_memory;
};
struct node *json_parse_at(const char *text, size_t len, size_t *pos, const struct json_at *at, struct strbuf *err);

/* Number value of a scalar; false (and *out untouched) if it is not a finite number. */
bool json_number(const struct node *n, double *out);

/* Look up a path of object keys and array indexes: json_path(n, "jobs", "0", "write", NULL). */
const struct node *json_path(const struct node *n, ...);

/* Emit a tree as JSON, two-space indented ("pretty", as lkp-tests' files). */
void json_emit(struct strbuf *out, const struct node *n);
/* A string literal, escaped; bytes that are not valid UTF-8 become U+FFFD (JSON is UTF-8). */
void json_emit_string(struct strbuf *out, const char *s);
/* A number the way lkprobot writes metrics: integers without a fraction,
 * others with up to 17 significant digits (%.17g trimmed). */
void json_format_number(struct strbuf *out, double v, bool is_float);

#endif
