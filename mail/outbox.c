/*
 * outbox: the sender. See outbox.h for the guarantees and the one window
 * where it errs towards not sending twice.
 */
#include "outbox.h"
#include "smtp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int outbox_queue(struct store *s, const char *message_id, const char *from, const char *const *rcpts, size_t n,
		 const char *data, size_t len, int64_t *id, bool *dup, struct strbuf *err)
{
	struct strbuf list = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&list, "%s%s", i ? "\n" : "", rcpts[i]);
	*id = store_outbox_add(s, message_id, from, list.buf, data, len, (int64_t)time(NULL), err);
	strbuf_release(&list);
	if (*id < 0)
		return -1;
	*dup = *id == 0;
	return 0;
}

long outbox_backoff(long retry, int attempts)
{
	long d = retry > 0 ? retry : 60;

	for (int i = 1; i < attempts && d < 6 * 3600; i++)
		d *= 2;
	return d < 6 * 3600 ? d : 6 * 3600;
}

struct data_mark {
	struct store *s;
	int64_t id;
};

/*
 * smtp's on_data: from here on the server may have the message, so the
 * store must say "sending" before its first byte leaves; when it cannot
 * (the disk is full, another writer holds the store longer than we wait),
 * the message does not leave: a message the store calls "connecting" is
 * one the server cannot have, and the next sender sends it again.
 */
static int mark_sending(void *ctx, struct strbuf *why)
{
	struct data_mark *d = ctx;

	if (store_outbox_data(d->s, d->id, (int64_t)time(NULL), why))
		return -1;
	/* fault injection for the tests: die while the message leaves */
	if (getenv("LKPROBOT_FAULT") && !strcmp(getenv("LKPROBOT_FAULT"), "on-data"))
		_exit(137);
	return 0;
}

/* One message: claim, send, record. -1 only on a store error. */
static int deliver_one(struct store *s, const struct mailconf *c, int64_t id, FILE *log, long *failed,
		       struct strbuf *err)
{
	struct store_mail m;
	struct strbuf why = STRBUF_INIT;
	int64_t now = (int64_t)time(NULL);
	int r = store_outbox_claim(s, id, (int)getpid(), now, err);

	if (r <= 0)
		return r;
	if (store_outbox_get(s, id, &m, err))
		return -1;
	/* the envelope: one address a line */
	char **rcpt = NULL;
	size_t n = 0;
	char *copy = xstrdup(m.rcpts), *save = NULL;
	for (char *a = strtok_r(copy, "\n", &save); a; a = strtok_r(NULL, "\n", &save)) {
		/* every mail passes here, whoever queued it and whenever: mail.opt_out as it is now */
		const char *entry = mailconf_opted_out(c, a);
		if (entry) {
			fprintf(log, "opt-out: %lld %s not to %s (mail.opt_out: %s)\n", (long long)id, m.message_id, a,
				entry);
			continue;
		}
		rcpt = xrealloc(rcpt, (n + 1) * sizeof(*rcpt));
		rcpt[n++] = a;
	}
	enum smtp_result res;
	if (!n) {
		res = SMTP_PERMANENT;
		strbuf_setf(&why, "every recipient is in mail.opt_out: not sent");
	} else if (!c->smtp.url) {
		res = SMTP_PERMANENT;
		strbuf_setf(&why, "no SMTP server configured (mail.smtp.url)");
	} else {
		struct smtp_config sc = c->smtp;
		struct data_mark dm = { s, id };
		sc.on_data = mark_sending;
		sc.ctx = &dm;
		res = smtp_send(&sc, m.from, (const char *const *)rcpt, n, m.data, m.len, &why);
	}
	/* fault injection for the tests: die where the server has the message and the store does not know */
	if (res == SMTP_SENT && getenv("LKPROBOT_FAULT") && !strcmp(getenv("LKPROBOT_FAULT"), "after-smtp"))
		_exit(137);
	now = (int64_t)time(NULL);
	int ret;
	if (res == SMTP_SENT) {
		ret = store_outbox_done(s, id, "sent", NULL, 0, now, err);
		fprintf(log, "sent %lld %s to %zu recipient%s%s\n", (long long)id, m.message_id, n, n == 1 ? "" : "s",
			ret ? " (the store cannot record it: the next sender finds it in doubt and does not send it "
			      "again)"
			    : "");
	} else if (res == SMTP_IN_DOUBT) {
		ret = store_outbox_done(s, id, "in-doubt", why.buf, 0, now, err);
		fprintf(log,
			"in doubt %lld %s: %s; not sent again on its own ('lkprobot outbox retry %lld' sends it "
			"again)\n",
			(long long)id, m.message_id, why.buf, (long long)id);
		(*failed)++;
	} else if (res == SMTP_TEMPORARY) {
		/* the claim counted this attempt already */
		long wait = outbox_backoff(c->retry, m.attempts);
		ret = store_outbox_done(s, id, "queued", why.buf, now + wait, now, err);
		fprintf(log, "deferred %lld %s: %s (attempt %d, next in %ld s)\n", (long long)id, m.message_id, why.buf,
			m.attempts, wait);
	} else {
		ret = store_outbox_done(s, id, "failed", why.buf, 0, now, err);
		fprintf(log, "failed %lld %s: %s\n", (long long)id, m.message_id, why.buf);
		(*failed)++;
	}
	fflush(log);
	free(rcpt);
	free(copy);
	store_mail_release(&m);
	strbuf_release(&why);
	return ret;
}

long outbox_deliver(struct store *s, const char *db_path, const struct mailconf *c, long wait, FILE *log,
		    struct strbuf *err)
{
	char *lock = xasprintf("%s.sender.lock", db_path);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	long left = 0, failed = 0;
	time_t until = time(NULL) + (wait > 0 ? wait : 0);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		strbuf_setf(err, "%s: %s", lock, fd < 0 ? strerror(errno) : "another sender is delivering the outbox");
		free(lock);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	free(lock);
	long stale = store_outbox_recover(s, (int64_t)time(NULL), err);
	if (stale < 0)
		goto fail;
	if (stale)
		fprintf(log, "%ld message%s left being sent by a sender that stopped: in doubt, not sent again ('lkprobot outbox list')\n",
			stale, stale == 1 ? "" : "s");
	for (;;) {
		int64_t *ids;
		size_t n;
		if (store_outbox_due(s, (int64_t)time(NULL), &ids, &n, err))
			goto fail;
		for (size_t i = 0; i < n; i++)
			if (deliver_one(s, c, ids[i], log, &failed, err)) {
				free(ids);
				goto fail;
			}
		free(ids);
		/* anything still queued for later? */
		int64_t *later;
		size_t nl;
		if (store_outbox_due(s, INT64_MAX, &later, &nl, err))
			goto fail;
		free(later);
		left = (long)nl + failed;
		if (!nl || time(NULL) >= until)
			break;
		sleep(1);
	}
	close(fd);
	return left;
fail:
	close(fd);
	return -1;
}
