#pragma once

#include "gnt-cli.h"

G_BEGIN_DECLS

/*
 * The tag commands every gnt-* command of a taggable object has (Ganeti's
 * cli.ListTags, AddTags, RemoveTags): list-tags, add-tags and remove-tags
 * of the cluster (@name NULL), a node, an instance or a node group. @kind is Ganeti's
 * tag kind: "cluster", "node", "instance" or "nodegroup".
 */

/* --from FILE: more tags, one a line ("-": standard input). */
extern const GOptionEntry gnt_cli_tags_entries[];

/* Prints the object's tags, sorted, one a line. The exit code, errors printed. */
gint
gnt_cli_list_tags(GntCli *cli, const gchar *kind, const gchar *name);
/* Submits OP_TAGS_SET (@add) or OP_TAGS_DEL with @tags and those of --from,
 * as SubmitOrSend does. The exit code, errors printed. */
gint
gnt_cli_change_tags(GntCli *cli, gboolean add, const gchar *kind, const gchar *name, gchar **tags);

G_END_DECLS
