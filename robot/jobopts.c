/*
 * jobopts: the options shared by commands that read job files.
 */
#include "cmd.h"
#include "../lib/yml.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void jobopts_init(struct jobopts *jo)
{
	memset(jo, 0, sizeof(*jo));
	jo->overrides = node_new(NODE_MAP);
}

void jobopts_release(struct jobopts *jo)
{
	node_free(jo->overrides);
	free(jo->files);
	memset(jo, 0, sizeof(*jo));
}

int jobopts_set(struct jobopts *jo, const char *yaml, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	struct node *n = yml_load_one(yaml, "command line", &e);

	if (!n || n->type != NODE_MAP) {
		strbuf_setf(err, "override '%s' is not 'key: value' (%s); write key=value or -s 'key: value'",
			    yaml, n ? "not a mapping" : e.buf);
		node_free(n);
		strbuf_release(&e);
		return -1;
	}
	for (size_t i = 0; i < n->n; i++)
		node_set(jo->overrides, n->keys[i], node_dup(n->vals[i]));
	node_free(n);
	strbuf_release(&e);
	return 0;
}

int jobopts_arg(struct jobopts *jo, char *arg, struct strbuf *err)
{
	struct stat st;
	char *eq = strchr(arg, '=');

	/* as lkp-tests: an argument with '=' is an override unless it is a file */
	if (eq && eq != arg && stat(arg, &st)) {
		struct strbuf y = STRBUF_INIT;
		int ret;
		strbuf_add(&y, arg, (size_t)(eq - arg));
		strbuf_addstr(&y, ": ");
		strbuf_addstr(&y, eq + 1);
		ret = jobopts_set(jo, y.buf, err);
		strbuf_release(&y);
		return ret;
	}
	jo->files = xrealloc(jo->files, (jo->nfiles + 1) * sizeof(*jo->files));
	jo->files[jo->nfiles++] = arg;
	return 0;
}
