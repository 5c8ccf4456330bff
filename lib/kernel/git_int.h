/*
 * git_int: what the files of lib/kernel/git share and nobody else may see:
 * the libgit2 functions loaded on first use, a repository's handle, and
 * the error and commit helpers both git.c (revisions, commits, mirrors)
 * and git_checkout.c (checkouts into plain directories) call. The public
 * API is git.h.
 */
#ifndef LKP_GIT_INT_H
#define LKP_GIT_INT_H

#include "git.h"
#include "../sys/dynlib.h"
#include "../util/strbuf.h"

#include <git2.h>

/*
 * The libgit2 functions these files call, loaded on first use (dynlib.h):
 * most commands, and the agent in every guest, never touch a repository.
 */
/* clang-format off */
#define GIT2_API(X) \
	X(git_blob_free) \
	X(git_blob_lookup) \
	X(git_blob_rawcontent) \
	X(git_blob_rawsize) \
	X(git_commit_author) \
	X(git_commit_committer) \
	X(git_commit_free) \
	X(git_commit_id) \
	X(git_commit_lookup) \
	X(git_commit_message) \
	X(git_commit_parent) \
	X(git_commit_parent_id) \
	X(git_commit_parentcount) \
	X(git_commit_summary) \
	X(git_commit_tree) \
	X(git_diff_find_similar) \
	X(git_diff_foreach) \
	X(git_diff_free) \
	X(git_diff_get_delta) \
	X(git_diff_num_deltas) \
	X(git_diff_options_init) \
	X(git_diff_tree_to_tree) \
	X(git_error_clear) \
	X(git_error_last) \
	X(git_graph_descendant_of) \
	X(git_libgit2_init) \
	X(git_libgit2_shutdown) \
	X(git_object_free) \
	X(git_object_peel) \
	X(git_object_type) \
	X(git_object_type2string) \
	X(git_odb_hashfile) \
	X(git_oid_equal) \
	X(git_oid_fromstr) \
	X(git_oid_tostr) \
	X(git_oid_tostr_s) \
	X(git_repository_free) \
	X(git_repository_open_ext) \
	X(git_revparse_single) \
	X(git_revwalk_free) \
	X(git_revwalk_hide) \
	X(git_revwalk_new) \
	X(git_revwalk_next) \
	X(git_revwalk_push) \
	X(git_revwalk_simplify_first_parent) \
	X(git_revwalk_sorting) \
	X(git_tree_entry_bypath) \
	X(git_tree_entry_filemode) \
	X(git_tree_entry_free) \
	X(git_tree_entry_id) \
	X(git_tree_entry_name) \
	X(git_tree_entry_type) \
	X(git_tree_free) \
	X(git_tree_id) \
	X(git_tree_lookup) \
	X(git_tree_walk) \
	X(git_repository_init) \
	X(git_remote_create_anonymous) \
	X(git_fetch_options_init) \
	X(git_remote_fetch) \
	X(git_remote_free) \
	X(git_repository_odb) \
	X(git_odb_free) \
	X(git_odb_read) \
	X(git_odb_object_data) \
	X(git_odb_object_size) \
	X(git_odb_object_type) \
	X(git_odb_object_free) \
	X(git_revert_commit) \
	X(git_index_has_conflicts) \
	X(git_index_write_tree_to) \
	X(git_index_free) \
	X(git_index_conflict_iterator_new) \
	X(git_index_conflict_next) \
	X(git_index_conflict_iterator_free) \
	X(git_commit_create) \
	X(git_signature_new) \
	X(git_signature_free) \
	X(git_reference_create) \
	X(git_reference_free) \
	X(git_diff_from_buffer) \
	X(git_apply_to_tree) \
	X(git_apply_options_init) \
	X(git_reference_name_is_valid) \
	X(git_commit_time) \
	X(git_reference_foreach_glob) \
	X(git_reference_name_to_id) \
	X(git_object_lookup) \
	X(git_object_id) \
	X(git_merge_base) \
	X(git_diff_to_buf) \
	X(git_buf_dispose)
/* clang-format on */
struct gitrepo_g2 {
	GIT2_API(DYNLIB_SLOT)
};
extern struct gitrepo_g2 gitrepo_g2;

struct gitrepo {
	git_repository *repo;
	char *path;
};

/* libgit2 loaded and initialised (git_libgit2_shutdown() it): 0, or -1 with err set. */
int gitrepo_load(struct strbuf *err);
/* libgit2's last error as "what: why". */
int gitrepo_fail(struct strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The commit rev names in r. */
int gitrepo_lookup_commit(struct gitrepo *r, const char *rev, git_commit **out, struct strbuf *err);

#endif
