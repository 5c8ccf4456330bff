/*
 * lkprobot programs: the program table — what a job may name and which
 * options each program takes.
 */
#include "cmd.h"
#include "../lib/run/program.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: lkprobot programs [NAME...]\n"
	"\n"
	"List the programs a job can name (setups, tests, monitors, stats parsers)\n"
	"with their kind, or, given names, each program's options. Options marked\n"
	"'=' appear as key=value in path_params.\n"
	"\n"
	"exit codes: 0 printed, 2 unknown program\n";

int cmd_programs(int argc, char **argv, struct lkp_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (argc == 1) {
		for (size_t i = 0; i < program_table_size; i++) {
			const struct program *p = program_table[i];
			if (p->kind == PROGRAM_WRAPPER)
				continue;
			printf("%-22s %-8s %s\n", p->name, program_kind_name(p->kind), p->summary);
		}
		return EXIT_OK;
	}
	for (int a = 1; a < argc; a++) {
		const struct program *p = program_find(argv[a]);
		if (!p)
			return cmd_error(EXIT_USAGE, "'%s' is not a program lkprobot knows; 'lkprobot programs' lists them",
					 argv[a]);
		printf("%s (%s): %s\n", p->name, program_kind_name(p->kind), p->summary);
		if (!p->options)
			printf("  no options; the value itself is the parameter\n");
		for (const char *const *o = p->options; o && *o; o++)
			printf("  %s%s\n", **o == '=' ? "=" : "- ", **o == '=' ? *o + 1 : *o);
	}
	return EXIT_OK;
}
