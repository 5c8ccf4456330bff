/*
 * matrix_json: matrix.json read into a compact matrix (matrix.h) a piece
 * at a time — a window of the file holding at least one whole entry
 * ("metric": [samples]) — so that neither the text nor a tree of it is
 * ever whole in memory. Lists of plain numbers take the fast path; any
 * other value is parsed by json.c, so that errors read as json_parse's.
 */
#include "matrix.h"
#include "../util/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest matrix.json read: it is read in pieces, so this bounds the time, not the memory. */
#define MATRIX_FILE_MAX ((uintmax_t)16 << 30)
static size_t window = (size_t)1 << 20, ahead = (size_t)64 << 10;

void matrix_json_pieces(size_t first_window, size_t read_ahead)
{
	window = first_window ? first_window : (size_t)1 << 20;
	ahead = !first_window ? (size_t)64 << 10 : read_ahead < window ? read_ahead : window / 2;
}

struct reader {
	int fd;
	const char *path;
	char *buf;	      /* the window: buf[0..len), a NUL after it */
	size_t cap, len, pos; /* pos: where the entry being read starts */
	bool eof, fatal;      /* fatal: an error that reading on would not change */
	int line, col;	      /* buf[0]'s place in the file */
	struct strbuf *err;
	struct matrix *m;
	double *cells; /* a list's cells as they are read */
	size_t acells;
};

/* The line and column of buf[off]. */
static void where(const struct reader *r, size_t off, int *line, int *col)
{
	const char *nl = NULL;
	int l = r->line;

	for (const char *c = r->buf, *end = r->buf + off; (c = memchr(c, '\n', (size_t)(end - c))); c++) {
		l++;
		nl = c;
	}
	*line = l;
	*col = nl ? (int)(r->buf + off - nl) : r->col + (int)off;
}

static int fail(struct reader *r, size_t off, const char *msg)
{
	int line, col;

	where(r, off, &line, &col);
	strbuf_setf(r->err, "%s:%d:%d: %s", r->path, line, col, msg);
	return -1;
}

static int too_big(struct reader *r, size_t off)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "the matrix takes more than %zu MiB in memory; such a file is not one of ours",
		 MATRIX_MAX_MEMORY >> 20);
	return fail(r, off, msg);
}

/* More of the file after the window (what is before pos dropped): 1 read some, 0 at its end, -1 err. */
static int fill(struct reader *r)
{
	if (r->eof)
		return 0;
	if (r->pos) {
		where(r, r->pos, &r->line, &r->col);
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->len == r->cap) {
		if (r->cap * 2 > MATRIX_MAX_MEMORY) {
			r->fatal = true;
			return too_big(r, r->len);
		}
		r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap + 1);
	}
	for (;;) {
		ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			strbuf_setf(r->err, "cannot read '%s': %s", r->path, strerror(errno));
			return -1;
		}
		r->eof = n == 0;
		r->len += (size_t)n;
		r->buf[r->len] = '\0';
		return n > 0;
	}
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const struct reader *r, size_t c)
{
	while (c < r->len && is_ws(r->buf[c]))
		c++;
	return c;
}

/* White space from pos on, reading on as far as it goes: the offset of what follows (len: the end); -1 err. */
static ssize_t skip_ws_reading(struct reader *r)
{
	for (;;) {
		r->pos = skip_ws(r, r->pos);
		if (r->pos < r->len)
			return (ssize_t)r->pos;
		int f = fill(r);
		if (f <= 0)
			return f < 0 ? -1 : (ssize_t)r->len;
	}
}

/*
 * Make the window hold the entry at pos whole (up to the ',' or '}' after
 * it, outside strings and brackets), or the rest of the file. 0, or -1.
 */
static int frame(struct reader *r)
{
	size_t scanned = 0;
	int depth = 0;
	bool str = false, esc = false;

	for (;;) {
		for (size_t c = r->pos + scanned; c < r->len; c++) {
			char ch = r->buf[c];
			if (str) {
				if (esc)
					esc = false;
				else if (ch == '\\')
					esc = true;
				else if (ch == '"')
					str = false;
			} else if (ch == '"') {
				str = true;
			} else if (ch == '{' || ch == '[') {
				depth++;
			} else if (ch == '}' || ch == ']') {
				if (!depth--)
					return 0;
			} else if (ch == ',' && !depth) {
				return 0;
			}
		}
		scanned = r->len - r->pos;
		int f = fill(r);
		if (f <= 0)
			return f;
	}
}

/* The rest of the file into the window (an entry the framing misjudged: bad JSON). */
static int slurp(struct reader *r)
{
	int f;

	while ((f = fill(r)) > 0)
		;
	return f;
}

static const double pow10s[] = { 1e0,  1e1,  1e2,  1e3,	 1e4,  1e5,  1e6,  1e7,	 1e8,  1e9,  1e10, 1e11,
				 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/*
 * A JSON number at buf[c]: its end (0: not one by JSON's grammar) and its
 * value as json_number() gives it (strtod's; exact by one IEEE operation
 * where the digits fit 2^53 and the power of ten 10^22, else strtod
 * itself); NAN where it is not finite.
 */
static size_t number(const struct reader *r, size_t c, double *out)
{
	const char *s = r->buf + c, *p = s;
	uint64_t mant = 0;
	int digits = 0, exp10 = 0;
	bool neg = *p == '-';

	p += neg;
	if (*p < '0' || *p > '9')
		return 0;
	if (*p == '0')
		p++; /* a leading 0 is the whole integer part */
	else
		for (; *p >= '0' && *p <= '9'; p++) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits += mant > 0;
		}
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return 0;
		for (; *p >= '0' && *p <= '9'; p++, exp10--) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits += mant > 0;
		}
	}
	if (*p == 'e' || *p == 'E') {
		bool eneg = *++p == '-';
		int e = 0;
		p += *p == '+' || *p == '-';
		if (*p < '0' || *p > '9')
			return 0;
		for (; *p >= '0' && *p <= '9'; p++)
			e = e < 10000 ? e * 10 + (*p - '0') : e;
		exp10 += eneg ? -e : e;
	}
	if (digits <= 15 && mant <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
		double v = (double)mant;
		v = exp10 < 0 ? v / pow10s[-exp10] : v * pow10s[exp10];
		*out = neg ? -v : v;
	} else {
		double v = strtod(s, NULL);
		*out = isfinite(v) ? v : NAN;
	}
	return (size_t)(p - r->buf);
}

/* A value json.c parses (anything but a plain number in a list), its cell or cells into c. */
static int parse_other(struct reader *r, size_t *c, int depth, double *cell, struct node **tree)
{
	struct json_at at = { r->path, r->line, r->col, depth, MATRIX_MAX_MEMORY };
	struct node *n = json_parse_at(r->buf, r->len, c, &at, r->err);

	if (!n)
		return -1;
	double x;
	*cell = json_number(n, &x) ? x : NAN;
	if (tree)
		*tree = n;
	else
		node_free(n);
	return 0;
}

static void push_cell(struct reader *r, size_t *n, double v)
{
	if (*n == r->acells) {
		r->acells = r->acells ? r->acells * 2 : 64;
		r->cells = xrealloc(r->cells, r->acells * sizeof(*r->cells));
	}
	r->cells[(*n)++] = v;
}

/* A list at buf[*c] into column col: its cells, numbers on the fast path. */
static int parse_list(struct reader *r, size_t *cur, struct matrix_col *col)
{
	size_t c = skip_ws(r, *cur + 1), n = 0;

	if (c < r->len && r->buf[c] == ']') {
		c++;
		goto out;
	}
	for (;;) {
		double v;
		size_t end = number(r, c, &v);
		if (end)
			c = end;
		else if (parse_other(r, &c, 2, &v, NULL))
			return -1;
		push_cell(r, &n, v);
		c = skip_ws(r, c);
		if (c < r->len && r->buf[c] == ',') {
			c = skip_ws(r, c + 1);
			continue;
		}
		if (c < r->len && r->buf[c] == ']') {
			c++;
			break;
		}
		return fail(r, c, "expected ',' or ']'");
	}
out:
	for (size_t i = 0; i < n; i++)
		matrix_push(r->m, col, r->cells[i]);
	matrix_fit(r->m, col);
	col->list = true;
	*cur = c;
	return 0;
}

/* The key at buf[*c] (a string); its id in the pool. */
static int parse_key(struct reader *r, size_t *c, uint32_t *id)
{
	if (*c >= r->len || r->buf[*c] != '"')
		return fail(r, *c, "expected a string key");
	const char *s = r->buf + *c + 1, *q = s;
	while (*q && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
		q++;
	if (*q == '"') {
		*id = matrix_names_intern(r->m->names, s, (size_t)(q - s));
		*c = (size_t)(q + 1 - r->buf);
		return 0;
	}
	double ignored;
	struct node *k = NULL;
	if (parse_other(r, c, 1, &ignored, &k))
		return -1;
	*id = matrix_names_intern(r->m->names, k->str, strlen(k->str));
	node_free(k);
	return 0;
}

/* One entry at pos, and the ',' or '}' after it: 1 another follows, 0 the last, -1 err. */
static int parse_entry(struct reader *r, size_t *end)
{
	size_t c = skip_ws(r, r->pos);
	uint32_t id = 0;

	if (parse_key(r, &c, &id))
		return -1;
	c = skip_ws(r, c);
	if (c >= r->len || r->buf[c] != ':')
		return fail(r, c, "expected ':'");
	c = skip_ws(r, c + 1);
	struct matrix_col *col = matrix_column(r->m, id);
	bool source = !strcmp(matrix_col_name(r->m, col), "stats_source"); /* its strings are kept */
	if (c < r->len && r->buf[c] == '[' && !source) {
		if (parse_list(r, &c, col))
			return -1;
	} else {
		double v;
		struct node *tree = NULL;
		if (parse_other(r, &c, 1, &v, &tree))
			return -1;
		if (tree->type == NODE_SEQ)
			for (size_t i = 0; i < tree->n; i++) {
				double x;
				matrix_push(r->m, col, json_number(tree->vals[i], &x) ? x : NAN);
			}
		else
			matrix_push(r->m, col, v);
		col->list = tree->type == NODE_SEQ;
		if (source)
			matrix_set_source(r->m, tree);
		node_free(tree);
	}
	if (r->m->memory > MATRIX_MAX_MEMORY) {
		r->fatal = true;
		return too_big(r, c);
	}
	c = skip_ws(r, c);
	*end = c + 1;
	if (c < r->len && r->buf[c] == ',')
		return 1;
	if (c < r->len && r->buf[c] == '}')
		return 0;
	return fail(r, c, "expected ',' or '}'");
}

/* The entries of the map whose '{' is at pos - 1, to its '}'. */
static int parse_map(struct reader *r)
{
	ssize_t c = skip_ws_reading(r);

	if (c < 0)
		return -1;
	if ((size_t)c < r->len && r->buf[c] == '}') {
		r->pos++;
		return 0;
	}
	for (;;) {
		size_t end;
		/*
		 * An entry is read from a window that holds the next `ahead` bytes:
		 * one cut short fails (its ',' or '}' is not there), and is read
		 * again framed whole; bad JSON the framing misjudged, again with
		 * the rest of the file, so that the error is json_parse's.
		 */
		if (r->len - r->pos < ahead && fill(r) < 0)
			return -1;
		int rc = parse_entry(r, &end);
		if (rc < 0 && !r->eof && !r->fatal) {
			if (frame(r))
				return -1;
			rc = parse_entry(r, &end);
		}
		if (rc < 0 && !r->eof && !r->fatal) {
			if (slurp(r))
				return -1;
			rc = parse_entry(r, &end);
		}
		if (rc < 0)
			return -1;
		r->pos = end;
		if (!rc)
			return 0;
	}
}

/* JSON that does not start with '{': an error, or a document that is no map (1). */
static int parse_not_map(struct reader *r)
{
	if (slurp(r))
		return -1;
	struct json_at at = { r->path, r->line, r->col, 0, MATRIX_MAX_MEMORY };
	size_t c = r->pos;
	struct node *n = json_parse_at(r->buf, r->len, &c, &at, r->err);
	if (!n)
		return -1;
	node_free(n);
	c = skip_ws(r, c);
	return c < r->len ? fail(r, c, "text after the JSON value") : 1;
}

static int open_regular(const char *path, struct strbuf *err)
{
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		strbuf_setf(err, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_setf(err, "cannot read '%s': not a regular file", path);
		goto fail;
	}
	if ((uintmax_t)st.st_size > MATRIX_FILE_MAX) {
		strbuf_setf(err, "cannot read '%s': %jd bytes, more than the %ju bytes such a file may have", path,
			    (intmax_t)st.st_size, MATRIX_FILE_MAX);
		goto fail;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int matrix_load_json(const char *path, struct matrix_names *names, struct matrix **out, struct strbuf *err)
{
	struct reader r = { .path = path, .err = err, .cap = window, .line = 1, .col = 1 };
	int ret = -1;

	*out = NULL;
	if ((r.fd = open_regular(path, err)) < 0)
		return -1;
	r.buf = xmalloc(r.cap + 1);
	r.buf[0] = '\0';
	r.m = matrix_new(names);
	ssize_t c = skip_ws_reading(&r);
	if (c < 0)
		goto out;
	if ((size_t)c >= r.len) {
		ret = fail(&r, r.len, "unexpected end of input");
	} else if (r.buf[c] != '{') {
		ret = parse_not_map(&r);
	} else {
		r.pos++;
		ret = parse_map(&r);
		if (!ret && (c = skip_ws_reading(&r)) < 0)
			ret = -1;
		else if (!ret && (size_t)c < r.len)
			ret = fail(&r, (size_t)c, "text after the JSON value");
	}
out:
	close(r.fd);
	free(r.buf);
	free(r.cells);
	if (!ret)
		*out = r.m;
	else
		matrix_unref(r.m);
	return ret;
}
