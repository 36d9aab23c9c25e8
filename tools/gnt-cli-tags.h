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

/*
 * The commands, for rows whose data is the tag kind; their arguments are
 * the object's name (none for "cluster"), then the tags.
 * list-tags prints the object's tags, sorted, one a line; add-tags and
 * remove-tags submit OP_TAGS_SET or OP_TAGS_DEL with the tags and those of
 * --from, as SubmitOrSend does. The exit code, errors printed.
 */
gint
gnt_cli_list_tags_command(GntCli *cli, gchar **args);
gint
gnt_cli_add_tags_command(GntCli *cli, gchar **args);
gint
gnt_cli_remove_tags_command(GntCli *cli, gchar **args);

/* The rows of a named object's tag commands: @kind, the usage word of its
 * name (@object: "<node-name>") and the noun of the descriptions ("node").
 * The cluster's take no name and are written out in gnt-cluster. */
#define GNT_CLI_ADD_TAGS_COMMAND(kind, object, noun)                                               \
	{                                                                                          \
		"add-tags", gnt_cli_add_tags_command, 1, -1,                                       \
			GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_SUBMIT, gnt_cli_tags_entries,           \
			object " <tag>...", "Add tags to the given " noun, NULL, kind              \
	}
#define GNT_CLI_LIST_TAGS_COMMAND(kind, object, noun)                                              \
	{                                                                                          \
		"list-tags", gnt_cli_list_tags_command, 1, 1, GNT_CLI_OPT_NONE, NULL, object,      \
			"List the tags of the given " noun, NULL, kind                             \
	}
#define GNT_CLI_REMOVE_TAGS_COMMAND(kind, object, noun)                                            \
	{                                                                                          \
		"remove-tags", gnt_cli_remove_tags_command, 1, -1,                                 \
			GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_SUBMIT, gnt_cli_tags_entries,           \
			object " <tag>...", "Remove tags from the given " noun, NULL, kind         \
	}

G_END_DECLS
