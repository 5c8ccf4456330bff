/*
 * lkprobot outbox: the mails queued in the store — list them, show one,
 * queue a failed or in-doubt one again, and deliver what is due.
 */
#include "cmd.h"
#include "opt.h"
#include "../flow/serve.h"
#include "../lib/util/json.h"
#include "../lib/store/store.h"
#include "../mail/mailconf.h"
#include "../mail/outbox.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot outbox [options] [list]\n"
	"       lkprobot outbox [options] show ID\n"
	"       lkprobot outbox [options] retry ID\n"
	"       lkprobot outbox [options] send [--wait SECONDS]\n"
	"\n"
	"The report mails queued in the store ('lkprobot report --send' queues them).\n"
	"list: one line each (id, status, attempts, Message-ID, recipients, last\n"
	"error). show: a message as it goes on the wire. retry: queue a failed or\n"
	"in-doubt message again (in doubt: a sender stopped while the server may\n"
	"have taken it; it is never sent again without this). send: deliver the due\n"
	"messages; temporary failures are retried later (mail.retry seconds,\n"
	"doubling up to 6 hours); --wait keeps delivering until nothing is queued\n"
	"or that many seconds have passed.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 done (send: everything due was sent); 1 send: some message\n"
	"is not sent yet or failed; 2 bad input or usage\n";

static const char *when(int64_t t, char *buf, size_t n)
{
	struct tm tm;
	time_t tt = (time_t)t;
	if (!t || !gmtime_r(&tt, &tm))
		return "-";
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* The store: --db, -o, else the service's of the configuration, else the default result root's. NULL: err says why. */
static char *outbox_db(const char *config, const char *db, const char *result_dir, struct strbuf *err)
{
	const char *conf_file = config ? config : getenv("LKPROBOT_CONFIG");
	char *dbpath = NULL;

	if (db)
		dbpath = xstrdup(db);
	else if (!result_dir && conf_file && !(dbpath = serve_store_path(conf_file, err)) && err->len)
		return NULL;
	if (!dbpath)
		dbpath = store_default_path(NULL, result_dir);
	if (access(dbpath, R_OK)) {
		strbuf_setf(err, "%s: no store there (--db FILE, -o RESULT_ROOT_DIR)", dbpath);
		free(dbpath);
		return NULL;
	}
	return dbpath;
}

/* outbox list: one line a message. */
static int outbox_list(struct store *s, const char *dbpath)
{
	struct strbuf err = STRBUF_INIT;
	struct node *list;

	if (store_outbox_list(s, &list, &err)) {
		int ret = say_error(EXIT_FAIL, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	if (!list->n)
		printf("the outbox of %s is empty: no report mail was queued\n", dbpath);
	for (size_t i = 0; i < list->n; i++) {
		const struct node *m = list->vals[i];
		const char *st = node_str(node_get(m, "status")), *rc = node_str(node_get(m, "rcpts"));
		const char *le = node_str(node_get(m, "last_error"));
		char buf[32];
		double next = 0;
		json_number(node_get(m, "next_try"), &next);
		size_t nr = rc && *rc ? 1 : 0;
		for (const char *p = rc; p && *p; p++)
			nr += *p == '\n';
		struct strbuf why = STRBUF_INIT; /* a server's words, a path: one line, nothing a terminal acts on */
		strbuf_add_name(&why, le);
		printf("%s %s attempts %s %s %zu recipient%s%s%s%s%s\n", node_str(node_get(m, "id")), st,
		       node_str(node_get(m, "attempts")), node_str(node_get(m, "message_id")), nr, nr == 1 ? "" : "s",
		       st && !strcmp(st, "queued") ? " next " : "",
		       st && !strcmp(st, "queued") ? when((int64_t)next, buf, sizeof(buf)) : "", le ? ": " : "",
		       why.buf);
		strbuf_release(&why);
	}
	node_free(list);
	strbuf_release(&err);
	return EXIT_OK;
}

/* outbox show ID: its state and envelope, then the message as it is sent. */
static int outbox_show(struct store *s, long long id)
{
	struct strbuf err = STRBUF_INIT;
	struct store_mail m;

	if (store_outbox_get(s, id, &m, &err)) {
		int ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	printf("# %s, %d attempt%s, envelope from %s to", m.status, m.attempts, m.attempts == 1 ? "" : "s", m.from);
	for (const char *p = m.rcpts; *p;) {
		size_t n = strcspn(p, "\n");
		printf(" %.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	printf("\n");
	fwrite(m.data, 1, m.len, stdout);
	store_mail_release(&m);
	strbuf_release(&err);
	return EXIT_OK;
}

/* outbox retry ID: queued again, to go at the next send. */
static int outbox_retry(struct store *s, long long id)
{
	struct strbuf err = STRBUF_INIT;
	int ret = EXIT_OK;

	if (store_outbox_retry(s, id, (int64_t)time(NULL), &err))
		ret = say_error(EXIT_USAGE, "%s", err.buf);
	else
		printf("queued %lld again\n", id);
	strbuf_release(&err);
	return ret;
}

/* outbox send: every due message, with the mail: configuration; EXIT_FAIL when one is left. */
static int outbox_send(struct store *s, const char *dbpath, const char *config, long wait)
{
	struct strbuf err = STRBUF_INIT;
	struct mailconf mc = { 0 };
	int ret;

	if (mailconf_load(&mc, config, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	long left = outbox_deliver(s, dbpath, &mc, wait, stdout, &err);
	if (left < 0)
		ret = say_error(EXIT_FAIL, "%s", err.buf);
	else
		ret = left ? EXIT_FAIL : EXIT_OK;
	mailconf_release(&mc);
	strbuf_release(&err);
	return ret;
}

int cmd_outbox(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *config = NULL, *db = NULL, *result_dir = NULL;
	long wait = 0;
	const struct opt table[] = {
		OPT_STRING('c', "config", "FILE",
			   "lkprobot's configuration (default $LKPROBOT_CONFIG,\n"
			   "/etc/lkprobot/config.yaml); its serve: section names\n"
			   "the service's store, used unless --db or -o is given",
			   &config),
		OPT_STRING(0, "db", "FILE", "the store (default RESULT_ROOT_DIR/lkprobot.db)", &db),
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &result_dir),
		OPT_LONG(0, "wait", "SECONDS", "send: keep going while messages wait for a retry", &wait, 0, LONG_MAX,
			 "a number of seconds"),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	char *dbpath = NULL;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	ret = EXIT_USAGE;
	const char *verb = optind < argc ? argv[optind] : "list";
	bool needs_id = !strcmp(verb, "show") || !strcmp(verb, "retry");
	if ((strcmp(verb, "list") && strcmp(verb, "send") && !needs_id) || argc - optind > (needs_id ? 2 : 1) ||
	    (needs_id && argc - optind != 2))
		return say_error(EXIT_USAGE,
				 "outbox: '%s' is not list, show ID, retry ID or send; see 'lkprobot outbox --help'",
				 verb);
	long long id = 0;
	if (needs_id) {
		char *end;
		id = strtoll(argv[optind + 1], &end, 10);
		if (*end || id <= 0)
			return say_error(EXIT_USAGE, "outbox %s: '%s' is not a message id", verb, argv[optind + 1]);
	}
	if (!(dbpath = outbox_db(config, db, result_dir, &err)) || !(s = store_open(dbpath, &err)))
		goto bad;
	if (!strcmp(verb, "list"))
		ret = outbox_list(s, dbpath);
	else if (!strcmp(verb, "show"))
		ret = outbox_show(s, id);
	else if (!strcmp(verb, "retry"))
		ret = outbox_retry(s, id);
	else
		ret = outbox_send(s, dbpath, config, wait);
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	if (s)
		store_close(s);
	free(dbpath);
	strbuf_release(&err);
	return ret;
}
