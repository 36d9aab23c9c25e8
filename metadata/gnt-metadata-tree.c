/*
 * metadata/gnt-metadata-tree.c: the directories of metad's OpenStack and
 * EC2 trees (gnt-metadata-tree.h): listings, and the walk that treats a
 * directory alike with and without its trailing slash, as cloud-init and
 * the real services expect (cloud-init asks for "/openstack", its EC2
 * crawler for "meta-data/").
 */
#include "gnt-metadata-tree.h"

#include <string.h>

struct _GntMetadataTree {
	gchar *name;
	gchar *listed;	     /* the parent's listing line; NULL: the default */
	GPtrArray *children; /* GntMetadataTree, in listing order; NULL for a file */
	const gchar *type;
	GBytes *bytes; /* a file's, or NULL and build */
	GntMetadataTreeBuildFunc build;
	gconstpointer data;
	guint arg;
	gboolean sensitive;
};

static GntMetadataTree *
tree_node_new(const gchar *name, gboolean dir)
{
	GntMetadataTree *self = g_new0(GntMetadataTree, 1);

	self->name = g_strdup(name);
	if (dir)
		self->children =
			g_ptr_array_new_with_free_func((GDestroyNotify)gnt_metadata_tree_free);
	return self;
}

GntMetadataTree *
gnt_metadata_tree_new(void)
{
	return tree_node_new("", TRUE);
}

void
gnt_metadata_tree_free(GntMetadataTree *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self->listed);
	g_clear_pointer(&self->children, g_ptr_array_unref);
	g_clear_pointer(&self->bytes, g_bytes_unref);
	g_free(self);
}

static GntMetadataTree *
tree_add(GntMetadataTree *dir, GntMetadataTree *child)
{
	g_return_val_if_fail(dir->children != NULL, child);

	g_ptr_array_add(dir->children, child);
	return child;
}

GntMetadataTree *
gnt_metadata_tree_add_dir(GntMetadataTree *dir, const gchar *name)
{
	return tree_add(dir, tree_node_new(name, TRUE));
}

GntMetadataTree *
gnt_metadata_tree_add_file(GntMetadataTree *dir, const gchar *name, const gchar *type,
			   GBytes *bytes)
{
	GntMetadataTree *file = tree_node_new(name, FALSE);

	file->type = type;
	file->bytes = bytes;
	return tree_add(dir, file);
}

GntMetadataTree *
gnt_metadata_tree_add_text(GntMetadataTree *dir, const gchar *name, const gchar *text)
{
	return gnt_metadata_tree_add_file(dir, name, GNT_METADATA_TEXT_TYPE,
					  g_bytes_new(text, strlen(text)));
}

GntMetadataTree *
gnt_metadata_tree_add_built(GntMetadataTree *dir, const gchar *name, const gchar *type,
			    GntMetadataTreeBuildFunc build, gconstpointer data, guint arg,
			    gboolean sensitive)
{
	GntMetadataTree *file = tree_node_new(name, FALSE);

	file->type = type;
	file->build = build;
	file->data = data;
	file->arg = arg;
	file->sensitive = sensitive;
	return tree_add(dir, file);
}

void
gnt_metadata_tree_set_listed(GntMetadataTree *node, const gchar *line)
{
	g_free(node->listed);
	node->listed = g_strdup(line);
}

static GntMetadataTree *
tree_child(GntMetadataTree *dir, const gchar *name)
{
	for (guint i = 0; i < dir->children->len; i++) {
		GntMetadataTree *child = dir->children->pdata[i];

		if (g_str_equal(child->name, name))
			return child;
	}
	return NULL;
}

static GBytes *
tree_listing(GntMetadataTree *dir)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < dir->children->len; i++) {
		GntMetadataTree *child = dir->children->pdata[i];

		if (i > 0)
			g_string_append_c(out, '\n');
		if (child->listed != NULL)
			g_string_append(out, child->listed);
		else
			g_string_append_printf(out, child->children != NULL ? "%s/" : "%s",
					       child->name);
	}
	return g_string_free_to_bytes(out);
}

static void
answer_take(GntMetadataAnswer *answer, const gchar *type, GBytes *body, gboolean sensitive)
{
	g_clear_pointer(&answer->body, g_bytes_unref);
	answer->status = 200;
	answer->content_type = type;
	answer->body = body;
	answer->sensitive = sensitive;
}

gboolean
gnt_metadata_tree_answer(GntMetadataTree *self, const gchar *const *parts,
			 GntMetadataAnswer *answer)
{
	GntMetadataTree *node = self;

	g_return_val_if_fail(self != NULL && parts != NULL && answer != NULL, FALSE);

	for (guint i = 0; parts[i] != NULL; i++) {
		gboolean last = parts[i + 1] == NULL;

		if (node->children == NULL)
			return FALSE; /* below a file, or a file with a trailing slash */
		if (parts[i][0] == '\0') {
			if (!last)
				return FALSE;
			break; /* the directory's trailing slash */
		}
		node = tree_child(node, parts[i]);
		if (node == NULL)
			return FALSE;
	}
	if (node->children != NULL)
		answer_take(answer, GNT_METADATA_TEXT_TYPE, tree_listing(node), FALSE);
	else if (node->bytes != NULL)
		answer_take(answer, node->type, g_bytes_ref(node->bytes), node->sensitive);
	else
		answer_take(answer, node->type, node->build(node->data, node->arg),
			    node->sensitive);
	return TRUE;
}
