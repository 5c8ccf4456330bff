/*
 * conf: one reader for the sections of lkprobot's configuration files
 * (serve: and its trees, mail:, the boxes file). A section is a table of
 * its keys — name, type, where the value goes in the caller's struct, its
 * default and a one-line help — so that every section checks its values
 * the same way and says what is wrong the same way, in one line:
 *
 *   FILE:LINE:COL: PREFIX.KEY: what is wrong (what to write instead)
 *
 * A key not in the table is an error ("not a setting lkprobot knows (a
 * typo?)": a typo in `live` must not silently mean a dry run). What a
 * table cannot say (a file that must be readable, two keys that need each
 * other) the caller checks after conf_read(), and says with conf_error().
 */
#ifndef LKP_CONF_H
#define LKP_CONF_H

#include "node.h"
#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum conf_type {
	CONF_END,		/* ends a table ({ 0 }) */
	CONF_STRING,		/* char *: any text (an empty one: the default stays) */
	CONF_BOOL,		/* bool: true/false (yes/no) */
	CONF_NUMBER,		/* a whole number from min to max, into an int, long or bool-sized field */
	CONF_CHOICE,		/* one of choices: its index, into an int-like field */
	CONF_LIST,		/* char **, NULL-terminated: a list of strings */
	CONF_PERCENT,		/* double: a percentage above 0 and under 1000, "2%" or "2" */
	CONF_PERCENT_MAP,	/* char **, NULL-terminated: a map of name (or glob) -> percent, as "NAME=VALUE" */
	CONF_SECTION,		/* a map of its own whose keys are the row's sub table (prefix "KEY.") */
	CONF_NODE,		/* a key the caller reads itself, after conf_read (nothing stored) */
	CONF_OTHERS,		/* not a key: keys that match() accepts belong to another table */
};

/* flags */
#define CONF_REQUIRED	0x1	/* it must be given */
#define CONF_NONEMPTY	0x2	/* a list: at least one item */
#define CONF_ONE_OK	0x4	/* a list: one string is a list of one */
#define CONF_COUNTED	0x8	/* a list: its count is also stored, as a size_t at count_off */

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off, size;		/* where in dst, and its size (CONF_FIELD) */
	const char *def;		/* the value when it is not given, as text (NULL: none) */
	const char *help;		/* one line */
	unsigned flags;
	long min, max;			/* CONF_NUMBER */
	const char *const *choices;	/* CONF_CHOICE, NULL-terminated */
	const char *what;		/* what a bad value is told ("must be a positive number of seconds");
					 * NULL: said from the type */
	const char *what_item;		/* a list's bad item (NULL: what) */
	/* CONF_STRING (each item of a list): 0, or -1 with why in err; why is what is told */
	int (*check)(const char *value, struct strbuf *err);
	const struct conf_key *sub;	/* CONF_SECTION */
	bool (*match)(const char *key);	/* CONF_OTHERS */
	size_t count_off;		/* CONF_LIST with CONF_COUNTED */
	const char *form;		/* how a value is written, for the docs (NULL: said from what, else the type) */
};

/* .off and .size of a member of a struct */
#define CONF_FIELD(type, member) .off = offsetof(type, member), .size = sizeof(((type *)0)->member)

/*
 * Read map, a section of file, into dst by keys: every default set first,
 * then every key of map checked and stored (comment entries skipped). map
 * NULL: the defaults alone. prefix names the section in the errors
 * ("serve.", "boxes.b1."). 0, or -1 with one line in err (then what was
 * stored is released: nothing for the caller to free).
 */
int conf_read(const struct node *map, const struct conf_key keys[], void *dst, const char *file, const char *prefix,
	      struct strbuf *err);
/* Free what conf_read() stored in dst (strings, lists) and zero those fields. */
void conf_release(const struct conf_key keys[], void *dst);

/*
 * "FILE:LINE:COL: PREFIXKEY: what" (without LINE:COL when at has none; key
 * NULL or "": the section itself, PREFIX without its last dot). Returns -1.
 */
int conf_error(struct strbuf *err, const char *file, const struct node *at, const char *prefix, const char *key,
	       const char *what);

/* The largest configuration file read (a service's is a few KiB): its YAML's nodes are bounded by it too. */
#define CONF_FILE_MAX (1u << 20)

/*
 * The configuration file's YAML document: NULL with one line in err ("FILE:
 * cannot read the configuration: why", or where the YAML is wrong); errno
 * is the read's when the file could not be read (EFBIG past CONF_FILE_MAX,
 * EINVAL not a regular file: /dev/zero, a FIFO), else 0.
 */
struct node *conf_load_file(const char *file, struct strbuf *err);

/* A percentage above 0 and under 1000 ("2%", "0.5"): 0 with *pct, or -1. */
int conf_percent(const char *s, double *pct);

/*
 * The keys of a section as a markdown table — key, value, default, what it
 * is — from the rows the section is read by, so that the reference
 * (docs/configuration.md, 'lkprobot help config') cannot drift from what
 * is read: a CONF_SECTION's keys follow it as KEY.SUB rows; a CONF_OTHERS
 * row's help is a line after the table.
 */
void conf_doc(struct strbuf *out, const struct conf_key keys[]);
/* text for a markdown table's cell: | < * ` $ and backslashes escaped */
void conf_doc_escape(struct strbuf *out, const char *text);

#endif
