#pragma once /* metadata/gnt-metadata-tree.h: a directory tree of metadata, walked by path */

#include "gnt-metadata.h"

G_BEGIN_DECLS

/*
 * The OpenStack and EC2 trees are directories of files, built for one
 * request and walked by its path: a directory answers with its listing
 * (one line per child: its name, "name/" for a directory, or what
 * gnt_metadata_tree_set_listed() said), with or without a trailing slash;
 * a file answers with its bytes, and a trailing slash after a file is a
 * miss, as is an empty component anywhere else ("a//b").
 */
typedef struct _GntMetadataTree GntMetadataTree;

/* Builds a file's bytes when it is asked for, not when the tree is made
 * (meta_data.json's fresh random seed). @data is borrowed for the
 * request; @arg what the file was added with. (transfer full) */
typedef GBytes *(*GntMetadataTreeBuildFunc)(gconstpointer data, guint arg);

#define GNT_METADATA_TEXT_TYPE "text/plain; charset=utf-8"

GntMetadataTree *
gnt_metadata_tree_new(void);
void
gnt_metadata_tree_free(GntMetadataTree *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntMetadataTree, gnt_metadata_tree_free)

/* A new subdirectory @name of @dir. (transfer none: owned by @dir) */
GntMetadataTree *
gnt_metadata_tree_add_dir(GntMetadataTree *dir, const gchar *name);
/* A file @name of @dir holding @bytes (taken). (transfer none) */
GntMetadataTree *
gnt_metadata_tree_add_file(GntMetadataTree *dir, const gchar *name, const gchar *type,
			   GBytes *bytes);
/* A text/plain file. (transfer none) */
GntMetadataTree *
gnt_metadata_tree_add_text(GntMetadataTree *dir, const gchar *name, const gchar *text);
/* A file whose bytes @build makes when it is asked for; @sensitive: the
 * answer is wiped once written. (transfer none) */
GntMetadataTree *
gnt_metadata_tree_add_built(GntMetadataTree *dir, const gchar *name, const gchar *type,
			    GntMetadataTreeBuildFunc build, gconstpointer data, guint arg,
			    gboolean sensitive);
/* How @node's directory lists it (EC2's "0=alice" for public-keys/0). */
void
gnt_metadata_tree_set_listed(GntMetadataTree *node, const gchar *line);

/* Answers the path components @parts (what follows @self's own path;
 * an empty last one is the trailing slash) from @self into @answer;
 * FALSE, @answer untouched, when there is no such entry. */
gboolean
gnt_metadata_tree_answer(GntMetadataTree *self, const gchar *const *parts,
			 GntMetadataAnswer *answer);

G_END_DECLS
