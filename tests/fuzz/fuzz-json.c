/*
 * Fuzz the JSON reader (fio's output, lkprobot's own <program>.json,
 * stats.json, matrix.json): what it accepts must write back out as JSON it
 * reads again to the same tree. Seeds: the JSON fixtures.
 */
#include "fuzzlib.h"
#include "../../lib/util/json.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct node *n = json_parse((const char *)data, size, "fuzz", &err);

	if (n) {
		json_emit(&out, n);
		struct node *again = json_parse(out.buf, out.len, "again", &err);
		if (!again)
			abort();	/* we wrote what we cannot read */
		node_free(again);
	}
	node_free(n);
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}
