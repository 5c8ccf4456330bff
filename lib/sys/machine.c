/*
 * machine: host descriptions, loaded from hosts/<name> or detected.
 * See machine.h.
 */
#include "machine.h"
#include "../util/units.h"
#include "../util/yml.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char *read_field(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t klen = strlen(key);
	char *ret = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen))
			continue;
		char *p = line + klen;
		p += strspn(p, " \t");
		if (*p != ':' && *p != '=')
			continue;
		p++;
		p += strspn(p, " \t\"");
		size_t n = strcspn(p, "\"\n");
		ret = xstrndup(p, n);
		break;
	}
	fclose(f);
	return ret;
}

static int count_nodes(void)
{
	int n = 0;
	char path[64];

	for (int i = 0; i < 4096; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", i);
		if (access(path, F_OK))
			break;
		n++;
	}
	return n ? n : 1;
}

void machine_detect(struct machine *m)
{
	char host[HOST_NAME_MAX + 1] = "localhost";
	struct utsname u;
	struct strbuf sb = STRBUF_INIT;
	char *v;

	memset(m, 0, sizeof(*m));
	gethostname(host, sizeof(host) - 1);
	m->hostname = xstrdup(host);
	machine_tbox_group(host, &sb);
	m->tbox_group = strbuf_detach(&sb);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	m->nr_cpu = n > 0 ? (int)n : 1;
	m->nr_node = count_nodes();
	if ((v = read_field("/proc/meminfo", "MemTotal"))) {
		m->memory = strtoull(v, NULL, 10) * 1024;
		free(v);
	}
	m->brand = read_field("/proc/cpuinfo", "model name");
	m->model = m->brand ? xstrdup(m->brand) : NULL;
	if (!uname(&u)) {
		m->arch = xstrdup(u.machine);
		m->commit = xstrdup(u.release);
	}
	m->rootfs = read_field("/etc/os-release", "ID");
	m->kconfig = xstrdup("defconfig");
	char gcc[PATH_MAX];
	char *real = realpath("/usr/bin/gcc", gcc);
	const char *g = real ? strstr(real, "gcc") : NULL;
	m->compiler = xstrdup(g ? g : "gcc");
	m->source = xstrdup("detected");
}

static char *str_of(const struct node *n, const char *key)
{
	const char *s = node_str(node_get(n, key));
	return s ? xstrdup(s) : NULL;
}

int machine_load(struct machine *m, const char *data_dir, const char *name,
		 struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, group = STRBUF_INIT;
	struct node *doc = NULL;
	int ret = -1;

	if (!*name || strchr(name, '/') || name[0] == '.') {
		strbuf_setf(err, "'%s' is not a test box name", name);
		return -1;
	}
	strbuf_addf(&path, "%s/hosts/%s", data_dir, name);
	if (strbuf_read_file(&text, path.buf)) {
		machine_tbox_group(name, &group);
		strbuf_setf(&path, "%s/hosts/%s", data_dir, group.buf);
		if (strbuf_read_file(&text, path.buf)) {
			ret = 1;
			goto out;
		}
	}
	doc = yml_load_one(text.buf, path.buf, err);
	if (!doc)
		goto out;
	if (doc->type != NODE_MAP) {
		strbuf_setf(err, "%s: a host file is a mapping (nr_cpu: 8, memory: 8G, ...)", path.buf);
		goto out;
	}
	machine_detect(m);
	const char *s;
	if ((s = node_str(node_get(doc, "nr_cpu"))))
		m->nr_cpu = atoi(s);
	if ((s = node_str(node_get(doc, "nr_node"))))
		m->nr_node = atoi(s);
	if ((s = node_str(node_get(doc, "memory"))) && units_bytes(s, &m->memory, err)) {
		const struct node *mem = node_get(doc, "memory");
		char *e = strbuf_detach(err);
		strbuf_setf(err, "%s:%d:%d: memory: %s", path.buf, mem->line, mem->col, e);
		free(e);
		machine_release(m);
		goto out;
	}
	if (m->nr_cpu <= 0) {
		strbuf_setf(err, "%s: nr_cpu must be a positive number", path.buf);
		machine_release(m);
		goto out;
	}
	free(m->hostname);
	m->hostname = xstrdup(name);
	free(m->tbox_group);
	strbuf_reset(&group);
	machine_tbox_group(name, &group);
	m->tbox_group = strbuf_detach(&group);
	free(m->model);
	m->model = str_of(doc, "model");
	free(m->brand);
	m->brand = str_of(doc, "brand");
	free(m->source);
	m->source = xasprintf("hosts/%s", strrchr(path.buf, '/') + 1);
	ret = 0;
out:
	node_free(doc);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&group);
	return ret;
}

int machine_get(struct machine *m, const char *data_dir, const char *testbox,
		struct strbuf *err)
{
	struct strbuf g = STRBUF_INIT;
	int r;

	if (!testbox) {
		machine_detect(m);
		return 0;
	}
	r = machine_load(m, data_dir, testbox, err);
	if (r <= 0)
		return r;
	machine_detect(m);
	free(m->hostname);
	m->hostname = xstrdup(testbox);
	machine_tbox_group(testbox, &g);
	free(m->tbox_group);
	m->tbox_group = strbuf_detach(&g);
	return 0;
}

void machine_release(struct machine *m)
{
	free(m->hostname);
	free(m->tbox_group);
	free(m->model);
	free(m->brand);
	free(m->arch);
	free(m->rootfs);
	free(m->kconfig);
	free(m->compiler);
	free(m->commit);
	free(m->source);
	memset(m, 0, sizeof(*m));
}

void machine_describe(const struct machine *m, struct strbuf *out)
{
	strbuf_addf(out, "%d threads %s with ", m->nr_cpu,
		    m->brand ? m->brand : m->model ? m->model : "unknown CPU");
	units_format_bytes(m->memory >> 30 << 30 ? m->memory >> 30 << 30 : m->memory, out);
	strbuf_addstr(out, " memory");
}

void machine_tbox_group(const char *hostname, struct strbuf *out)
{
	size_t len = strlen(hostname), i = len;

	while (i > 0 && isdigit((unsigned char)hostname[i - 1]))
		i--;
	if (i < len && i >= 2 && hostname[i - 1] == '-') {
		/* "name-N" -> "name", then the first "-N-" -> "-" */
		struct strbuf s = STRBUF_INIT;
		strbuf_add(&s, hostname, i - 1);
		for (size_t a = 0; a < s.len; a++) {
			if (s.buf[a] != '-')
				continue;
			size_t b = a + 1;
			while (b < s.len && isdigit((unsigned char)s.buf[b]))
				b++;
			if (b > a + 1 && b < s.len && s.buf[b] == '-') {
				strbuf_add(out, s.buf, a);
				strbuf_add(out, s.buf + b, s.len - b);
				strbuf_release(&s);
				return;
			}
		}
		strbuf_add(out, s.buf, s.len);
		strbuf_release(&s);
		return;
	}
	strbuf_addstr(out, hostname);
}
