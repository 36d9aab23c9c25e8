#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The cluster settings: one table (gnt-cluster-settings.c) that is the home
 * of each setting's stored type and default (config), the
 * OP_CLUSTER_SET_PARAMS parameter that changes it and how that parameter is
 * merged in (gnt-cluster-settings-params.c), and its label in gnt-cluster info and the
 * help of its gnt-cluster init/modify option (tools).
 * The opcode table builds the opcode's rows from it, and
 * tests/jobqueue/test-opcode-table.c checks that each setting's default
 * parses and matches its type.
 */

typedef enum {
	GNT_SETTING_STRING,
	GNT_SETTING_STRING_OR_NULL,
	GNT_SETTING_INT,
	GNT_SETTING_BOOL,
	GNT_SETTING_STRING_LIST,
	GNT_SETTING_LIST,
	GNT_SETTING_OBJECT,
} GntSettingType;

/* Where a directory setting's default lives (its default_json is NULL). */
typedef enum {
	GNT_SETTING_DIR_NONE,
	GNT_SETTING_DIR_ROOT, /* <root>/... */
	GNT_SETTING_DIR_RUN,  /* <root>/run/gantry/... */
} GntSettingDir;

/* How OP_CLUSTER_SET_PARAMS's parameter changes the setting. */
typedef enum {
	GNT_SETTING_CHANGE_NONE,	  /* no parameter changes it */
	GNT_SETTING_CHANGE_REPLACE,	  /* the value given replaces it */
	GNT_SETTING_CHANGE_MERGE,	  /* a dictionary laid over it */
	GNT_SETTING_CHANGE_MERGE_GROUPED, /* {group: dictionary}, each laid over its group */
	GNT_SETTING_CHANGE_LIST_MODS,	  /* [["add"|"remove", name], ...] (Ganeti's hidden_os) */
	GNT_SETTING_CHANGE_CUSTOM,	  /* own code (gnt-cluster-settings-params.c) */
	GNT_SETTING_CHANGE_UNSUPPORTED,	  /* taken, refused unless empty */
} GntSettingChange;

/* How gnt-cluster info shows it under "Cluster parameters". */
typedef enum {
	GNT_SETTING_SHOW_RAW,	       /* as Ganeti's PrintGenericInfo lays it out */
	GNT_SETTING_SHOW_LIST,	       /* CommaJoin */
	GNT_SETTING_SHOW_LIST_OR_NONE, /* CommaJoin, "(none)" when empty */
	GNT_SETTING_SHOW_UID_POOL,     /* FormatUidPool */
	GNT_SETTING_SHOW_SEARCH_PATH,  /* CommaJoin */
	GNT_SETTING_SHOW_SSH_KEYS,     /* each key's comment, or "(none)" */
} GntSettingShow;

typedef struct {
	const gchar *key; /* in the cluster record and QueryClusterInfo */
	GntSettingType type;
	const gchar *default_json; /* NULL: a directory, see dir and path */
	gint64 min;		   /* GNT_SETTING_INT */
	GntSettingDir dir;
	const gchar *path;
	/* OP_CLUSTER_SET_PARAMS: the parameter (NULL: the key) and its merge */
	const gchar *param;
	GntSettingChange change;
	/* OP_CLUSTER_SET_PARAMS: checks a new @value beyond its type, against
	 * @settings as they would be after the change (so a setting it
	 * depends on may change in the same call); run for each setting the
	 * opcode gives. NULL: the type says all. */
	gboolean (*validate)(JsonNode *value, JsonObject *settings, GError **error);
	/* gnt-cluster info: the "Cluster parameters" label, NULL: shown in a
	 * section of its own or not at all */
	const gchar *label;
	GntSettingShow show;
	/* gnt-cluster init/modify: its option's help (the option adds the
	 * default of an integer setting); NULL: no option sets it */
	const gchar *help;
	/* the option (Ganeti's name), its short name and its argument, for
	 * the settings an option sets directly by type (an integer, a string,
	 * a comma-separated list, yes|no, KEY=VALUE,... for a dictionary,
	 * the master typing the values); NULL: none, or gnt-cluster's own
	 * code (-H, -B, -N, --ssh-key) */
	const gchar *option;
	gchar option_short;
	const gchar *option_arg;
} GntClusterSetting;

/* The settings in the order QueryClusterInfo shows them, ended by a row
 * with key NULL. */
extern const GntClusterSetting gnt_cluster_settings[];

/* The setting stored under @key, or NULL. */
const GntClusterSetting *
gnt_cluster_setting_lookup(const gchar *key);
/* One line for --help: the help and, for an integer, " (default N)".
 * (transfer full) */
gchar *
gnt_cluster_setting_describe(const GntClusterSetting *setting);
/* OP_CLUSTER_SET_PARAMS's parameter for @setting, or NULL if none. */
const gchar *
gnt_cluster_setting_get_param(const GntClusterSetting *setting);

G_END_DECLS
