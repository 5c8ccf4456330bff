/*
 * outbox: queueing rendered mails in the store and delivering them —
 * at most once each (by Message-ID), with exponential backoff on temporary
 * failures, giving up with the reason on permanent ones, and never losing a
 * queued message to a crash.
 *
 * A sender that dies before the message starts to leave (connecting, the
 * TLS handshake, MAIL, RCPT) leaves it queued: the next sender sends it,
 * once. Before the first byte of DATA leaves, the store must have recorded
 * "sending"; when it cannot (a full disk, another writer holding the store
 * longer than we wait) the transaction stops there and the message is sent
 * later. Once it has left, a message whose fate is unknown is "in-doubt"
 * and is never sent again without the operator (`lkprobot outbox retry
 * ID`); `lkprobot outbox list` and the dashboard show it. That is the
 * server dropping the connection or saying nothing after the final dot
 * (it may have the mail), and a sender that died while it was "sending".
 * One sender runs at a time (a lock file next to the store), so a message
 * found connecting or sending by the sender that holds the lock was left
 * by one that died.
 */
#ifndef LKP_OUTBOX_H
#define LKP_OUTBOX_H

#include "mailconf.h"
#include "../lib/store/store.h"
#include "../lib/util/strbuf.h"

#include <stdio.h>

/*
 * Queue data (the message as it goes on the wire, CRLF) for the envelope.
 * *id gets its outbox id; *dup says it was queued already (the same
 * Message-ID: nothing added). 0, or -1 with err set.
 */
int outbox_queue(struct store *s, const char *message_id, const char *from, const char *const *rcpts, size_t n,
		 const char *data, size_t len, int64_t *id, bool *dup, struct strbuf *err);

/*
 * Deliver the due messages, one line each on log. Every mail the robot
 * sends passes here: an envelope recipient in c's mail.opt_out is left out
 * (a line says so), and a message left with none fails, not sent. With wait > 0, keep
 * going until nothing is queued or `wait` seconds have passed, sleeping
 * until the next retry is due. Returns how many are still not sent
 * (queued, failed or in doubt among those it saw), or -1 with err set (the
 * store, or another sender holds the lock).
 */
long outbox_deliver(struct store *s, const char *db_path, const struct mailconf *c, long wait, FILE *log,
		    struct strbuf *err);

/* Seconds to wait before attempt `attempts`+1: retry, doubling, at most 6 hours. */
long outbox_backoff(long retry, int attempts);

#endif
