/* gnt-cluster: cluster-wide commands, after Ganeti's lib/client/gnt_cluster.py. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "gnt-cluster-verify.h"
#include "gnt-cli-create.h"
#include "gnt-cli-daemons.h"
#include "gnt-cli-tags.h"
#include "gnt-cli.h"
#include "gnt-cluster-settings-params.h"
#include "gnt-cluster-settings.h"
#include "gnt-config-groups.h"
#include "gnt-config.h"
#include "gnt-disk.h"
#include "gnt-json.h"
#include "gnt-rpc-protocol.h"
#include "gnt-ssconf.h"
#include "gnt-tls.h"

/* How long destroy waits for the daemons to stop before killing them. */
#define STOP_TIMEOUT_S 30
/* gantry-rapi's default port (rapi/gnt-rapi-server.h; tools do not link it) */
#define GNT_RAPI_PORT 5080

static gchar *opt_master_netdev;
static gchar *opt_primary_ip;
static gint opt_noded_port = GNT_RPC_DEFAULT_PORT;
static gint opt_rapi_port = -1; /* -1: 5080, or a free one with --noded-port 0 */
static gboolean opt_yes_do_it;

/* ---- cluster settings: init and modify ---- */

static gchar **opt_hvparams;
static gchar *opt_beparams;
static gchar *opt_nicparams;
static gboolean opt_force;
static gchar **opt_ssh_keys;
static gboolean opt_no_ssh_keys;

/* The options of init and modify for the settings whose value needs code
 * of its own here; the others come from the settings table (see
 * settings_entries_build()). Their help is the table's. */
#define OWN_SETTINGS_ENTRIES                                                                       \
	{                                                                                          \
		"hypervisor-parameters",                                                           \
		'H',                                                                               \
		0,                                                                                 \
		G_OPTION_ARG_STRING_ARRAY,                                                         \
		&opt_hvparams,                                                                     \
		GNT_CLI_SETTING_HELP("hvparams"),                                                  \
		"HV:k=v,..."},                                                                     \
		{"backend-parameters",                                                             \
		 'B',                                                                              \
		 0,                                                                                \
		 G_OPTION_ARG_STRING,                                                              \
		 &opt_beparams,                                                                    \
		 GNT_CLI_SETTING_HELP("beparams"),                                                 \
		 "k=v,..."},                                                                       \
		{"nic-parameters",                                                                 \
		 'N',                                                                              \
		 0,                                                                                \
		 G_OPTION_ARG_STRING,                                                              \
		 &opt_nicparams,                                                                   \
		 GNT_CLI_SETTING_HELP("nicparams"),                                                \
		 "k=v,..."},                                                                       \
		{"ssh-key",                                                                        \
		 0,                                                                                \
		 0,                                                                                \
		 G_OPTION_ARG_FILENAME_ARRAY,                                                      \
		 &opt_ssh_keys,                                                                    \
		 GNT_CLI_SETTING_HELP("ssh_keys"),                                                 \
		 "FILE"},                                                                          \
	{                                                                                          \
		"no-ssh-keys", 0, 0, G_OPTION_ARG_NONE, &opt_no_ssh_keys,                          \
			"Remove the cluster's default ssh keys", NULL                              \
	}

/* The value of each setting the table gives an option (gnt_cluster_settings
 * order), where GOption puts it. */
typedef struct {
	const GntClusterSetting *setting;
	gint number; /* GNT_SETTING_INT; GNT_CLI_INT_UNSET unless given */
	gchar *text; /* the other types; NULL unless given */
} SettingOption;

#define MAX_SETTING_OPTIONS 32
static SettingOption setting_options[MAX_SETTING_OPTIONS];
static guint n_setting_options;

/* Ganeti's "k=v,k2=v2": "no_k" is false, a bare "k" true. (transfer full) */
static JsonObject *
parse_key_values(GntCli *cli, const gchar *option, const gchar *text, GError **error)
{
	g_autoptr(JsonObject) out = json_object_new();
	g_auto(GStrv) items = g_strsplit(text, ",", -1);

	for (guint i = 0; items[i] != NULL; i++) {
		const gchar *item = items[i];
		const gchar *eq = strchr(item, '=');

		if (item[0] == '\0')
			continue;
		if (eq != NULL) {
			g_autofree gchar *key = g_strndup(item, (gsize)(eq - item));
			if (key[0] == '\0') {
				gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
							 "Invalid %s value '%s': empty key", option,
							 item);
				return NULL;
			}
			json_object_set_string_member(out, key, eq + 1);
		} else if (g_str_has_prefix(item, "no_")) {
			json_object_set_boolean_member(out, item + 3, FALSE);
		} else {
			json_object_set_boolean_member(out, item, TRUE);
		}
	}
	return g_steal_pointer(&out);
}

static JsonArray *
split_list(const gchar *text)
{
	g_auto(GStrv) items = g_strsplit(text, ",", -1);
	JsonArray *out = json_array_new();

	for (guint i = 0; items[i] != NULL; i++) {
		g_strstrip(items[i]);
		if (items[i][0] != '\0')
			json_array_add_string_element(out, items[i]);
	}
	return out;
}

/* The options given, as OP_CLUSTER_SET_PARAMS members; *@any says whether
 * there was one. (transfer full) */
static JsonObject *
settings_params(GntCli *cli, gboolean *any, GError **error)
{
	g_autoptr(JsonObject) params = json_object_new();

	for (guint i = 0; i < n_setting_options; i++) {
		const GntClusterSetting *setting = setting_options[i].setting;
		const gchar *param = gnt_cluster_setting_get_param(setting);
		const gchar *text = setting_options[i].text;
		g_autofree gchar *option = g_strdup_printf("--%s", setting->option);
		gboolean on = TRUE;

		if (setting->type == GNT_SETTING_INT) {
			gnt_cli_set_int_if_given(params, param, setting_options[i].number);
			continue;
		}
		if (text == NULL)
			continue;
		switch (setting->type) {
		case GNT_SETTING_STRING_LIST:
			json_object_set_array_member(params, param, split_list(text));
			break;
		case GNT_SETTING_BOOL:
			if (!gnt_cli_parse_yes_no(cli, option, text, &on, error))
				return NULL;
			json_object_set_boolean_member(params, param, on);
			break;
		case GNT_SETTING_OBJECT: {
			JsonObject *values = parse_key_values(cli, option, text, error);

			if (values == NULL)
				return NULL;
			json_object_set_object_member(params, param, values);
			break;
		}
		case GNT_SETTING_STRING:
		case GNT_SETTING_STRING_OR_NULL:
		case GNT_SETTING_INT:
		case GNT_SETTING_LIST:
		default:
			json_object_set_string_member(params, param, text);
			break;
		}
	}
	if (opt_no_ssh_keys && opt_ssh_keys != NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "--ssh-key and --no-ssh-keys exclude each other");
		return NULL;
	}
	if (opt_no_ssh_keys)
		json_object_set_array_member(params, "ssh_keys", json_array_new());
	if (opt_ssh_keys != NULL) {
		JsonArray *keys = gnt_cli_read_ssh_keys(cli, opt_ssh_keys, error);

		if (keys == NULL)
			return NULL;
		json_object_set_array_member(params, "ssh_keys", keys);
	}
	if (opt_hvparams != NULL) {
		JsonObject *hvparams = json_object_new();

		json_object_set_object_member(params, "hvparams", hvparams);
		for (guint i = 0; opt_hvparams[i] != NULL; i++) {
			const gchar *colon = strchr(opt_hvparams[i], ':');
			g_autofree gchar *hv = colon != NULL
						       ? g_strndup(opt_hvparams[i],
								   (gsize)(colon - opt_hvparams[i]))
						       : g_strdup(opt_hvparams[i]);
			JsonObject *values = colon != NULL
						     ? parse_key_values(cli, "-H", colon + 1, error)
						     : json_object_new();

			if (values == NULL)
				return NULL;
			json_object_set_object_member(hvparams, hv, values);
		}
	}
	for (guint i = 0; i < 2; i++) {
		const gchar *text = i == 0 ? opt_beparams : opt_nicparams;
		JsonObject *values;

		if (text == NULL)
			continue;
		values = parse_key_values(cli, i == 0 ? "-B" : "-N", text, error);
		if (values == NULL)
			return NULL;
		json_object_set_object_member(params, i == 0 ? "beparams" : "nicparams", values);
	}
	*any = json_object_get_size(params) > 0;
	return g_steal_pointer(&params);
}

/* init: the settings written into the new config before the daemons run
 * (the volume group looked for on this host). */
static gboolean
init_settings(GntCli *cli, GntConfig *config, GError **error)
{
	gboolean any = FALSE;
	g_autoptr(JsonObject) params = settings_params(cli, &any, error);
	g_autoptr(JsonObject) changes = NULL;
	g_autofree gchar *vg = NULL;

	if (params == NULL)
		return FALSE;
	if (!any)
		return TRUE;
	changes = gnt_cluster_settings_from_params(config, params, &vg, error);
	if (changes == NULL)
		return FALSE;
	if (vg != NULL) {
		/* no daemon runs yet: this host is the master node */
		g_autofree gchar *master = gnt_config_dup_master_node(config);
		if (!gnt_disk_check_volume_group(master, vg, error))
			return FALSE;
	}
	return gnt_config_set_cluster_settings(config, changes, error);
}

static const GOptionEntry modify_own_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	OWN_SETTINGS_ENTRIES,
	{NULL},
};
static GOptionEntry modify_entries[G_N_ELEMENTS(modify_own_entries) + MAX_SETTING_OPTIONS];

static gint
modify_cluster(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	gboolean any = FALSE;
	g_autoptr(JsonObject) params = settings_params(cli, &any, &error);
	JsonObject *op;

	if (params == NULL)
		return gnt_cli_fail(cli, error);
	if (!any) {
		g_printerr("Please give at least one of the parameters.\n");
		return 1;
	}
	op = gnt_cli_new_opcode(cli, "OP_CLUSTER_SET_PARAMS");
	json_array_add_object_element(ops, op);
	json_object_set_boolean_member(op, "force", opt_force);
	gnt_json_object_overlay(op, params);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- init ---- */

static const GOptionEntry init_own_entries[] = {
	{"master-netdev", 0, 0, G_OPTION_ARG_FILENAME, &opt_master_netdev,
	 "Specify the node interface on which the master IP address will be added (accepted "
	 "for compatibility; ignored)",
	 "NETDEV"},
	{"primary-ip", 0, 0, G_OPTION_ARG_STRING, &opt_primary_ip,
	 "The master node's address other nodes reach it on (default: this host's name's "
	 "address, else 127.0.0.1)",
	 "ADDRESS"},
	{"noded-port", 0, 0, G_OPTION_ARG_INT, &opt_noded_port,
	 "The port gantry-noded listens on (default 1811; 0 picks a free one, for several "
	 "clusters on one machine)",
	 "PORT"},
	{"rapi-port", 0, 0, G_OPTION_ARG_INT, &opt_rapi_port,
	 "The port gantry-rapi listens on (default 5080, or a free one with --noded-port 0; "
	 "0 picks a free one)",
	 "PORT"},
	OWN_SETTINGS_ENTRIES,
	{NULL},
};
static GOptionEntry init_entries[G_N_ELEMENTS(init_own_entries) + MAX_SETTING_OPTIONS];

/* @own followed by an option for each setting the table gives one (its
 * help the table's too), into @out, which has room for them all. */
static void
settings_entries_build(GOptionEntry *out, const GOptionEntry *own)
{
	guint n = 0;

	while (own[n].long_name != NULL) {
		out[n] = own[n];
		n++;
	}
	for (guint i = 0; i < n_setting_options; i++) {
		const GntClusterSetting *setting = setting_options[i].setting;
		gboolean number = setting->type == GNT_SETTING_INT;

		out[n++] = (GOptionEntry){
			.long_name = setting->option,
			.short_name = setting->option_short,
			.arg = number ? G_OPTION_ARG_INT : G_OPTION_ARG_STRING,
			.arg_data = number ? (gpointer)&setting_options[i].number
					   : (gpointer)&setting_options[i].text,
			/* the translate hook of gnt-cli.c gives the table's line */
			.description = g_strconcat(GNT_CLI_SETTING_HELP_PREFIX, setting->key, NULL),
			.arg_description = setting->option_arg,
		};
	}
	out[n] = (GOptionEntry){NULL};
}

static gboolean
remove_cluster_state(const GntPaths *paths, GError **error);

/* This host's address: its name's first IPv4 address, else loopback. */
static gchar *
init_dup_primary_ip(void)
{
	g_autoptr(GResolver) resolver = g_resolver_get_default();
	g_autolist(GInetAddress)
		addresses = g_resolver_lookup_by_name(resolver, g_get_host_name(), NULL, NULL);

	for (GList *l = addresses; l != NULL; l = l->next) {
		if (g_inet_address_get_family(l->data) == G_SOCKET_FAMILY_IPV4 &&
		    !g_inet_address_get_is_loopback(l->data))
			return g_inet_address_to_string(l->data);
	}
	return g_strdup("127.0.0.1");
}

/* A free TCP port for --noded-port 0 (taken by noded moments later). */
static guint
init_pick_free_port(GError **error)
{
	g_autoptr(GSocket) socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
						 G_SOCKET_PROTOCOL_TCP, error);
	g_autoptr(GInetAddress) any = g_inet_address_new_any(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(any, 0);
	g_autoptr(GSocketAddress) bound = NULL;

	if (socket == NULL || !g_socket_bind(socket, address, FALSE, error))
		return 0;
	bound = g_socket_get_local_address(socket, error);
	return bound != NULL ? g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound)) : 0;
}

/* Where gantry-rapi listens: --rapi-port; without it 5080, or a free port
 * when noded got one too (tests, several clusters on one machine). */
static gboolean
init_rapi_port(const GntPaths *paths, GError **error)
{
	guint port = opt_rapi_port < 0 ? (opt_noded_port == 0 ? 0 : GNT_RAPI_PORT)
				       : (guint)opt_rapi_port;

	if (opt_rapi_port < -1 || opt_rapi_port > 65535) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "--rapi-port must be from 0 to 65535, not %d", opt_rapi_port);
		return FALSE;
	}
	if (port == 0 && (port = init_pick_free_port(error)) == 0)
		return FALSE;
	return gnt_cli_set_rapi_port(paths, port, error);
}

/* The master as a node of its cluster: certificates, its record, where
 * its gantry-noded and gantry-rapi listen. */
static gboolean
init_master_node(const GntPaths *paths, GntConfig *config, GError **error)
{
	g_autofree gchar *cluster = gnt_config_dup_cluster_name(config);
	g_autofree gchar *master = gnt_config_dup_master_node(config);
	g_autofree gchar *ip = opt_primary_ip != NULL ? g_strdup(opt_primary_ip)
						      : init_dup_primary_ip();
	g_autofree gchar *listen = NULL;
	g_autoptr(JsonObject) node = json_object_new();
	/* the default group gnt_config_create() made */
	g_autofree gchar *group = gnt_config_lookup_group(config, NULL, error);
	const gchar *addresses[] = {ip, NULL};
	guint port = (guint)opt_noded_port;

	if (group == NULL)
		return FALSE;
	if (opt_noded_port < 0 || opt_noded_port > 65535) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "--noded-port must be from 0 to 65535, not %d", opt_noded_port);
		return FALSE;
	}
	if (port == 0 && (port = init_pick_free_port(error)) == 0)
		return FALSE;
	if (!gnt_tls_init_cluster(paths, cluster, master, addresses, error))
		return FALSE;
	json_object_set_string_member(node, "name", master);
	json_object_set_string_member(node, "primary_ip", ip);
	json_object_set_string_member(node, "secondary_ip", ip);
	json_object_set_int_member(node, "rpc_port", port);
	json_object_set_boolean_member(node, "master_candidate", TRUE);
	json_object_set_boolean_member(node, "master_capable", TRUE);
	json_object_set_boolean_member(node, "vm_capable", TRUE);
	json_object_set_boolean_member(node, "offline", FALSE);
	json_object_set_boolean_member(node, "drained", FALSE);
	json_object_set_string_member(node, "group", group);
	json_object_set_object_member(node, "ndparams", json_object_new());
	json_object_set_array_member(node, "tags", json_array_new());
	if (!gnt_config_add_object(config, GNT_OBJECT_NODE, node, error))
		return FALSE;
	listen = g_strdup_printf("0.0.0.0:%u", port);
	return gnt_cli_set_noded_listen(paths, listen, error) && init_rapi_port(paths, error);
}

static gint
init_cluster(GntCli *cli, gchar **args)
{
	const GntPaths *paths = gnt_cli_get_paths(cli);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = NULL;

	if (g_file_test(gnt_paths_get_config_db(paths), G_FILE_TEST_EXISTS)) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_WRONG_STATE,
					 "Cluster is already initialised (root '%s')",
					 gnt_paths_get_root(paths));
		return gnt_cli_fail(cli, error);
	}
	if (!gnt_paths_ensure_dirs(paths, &error))
		return gnt_cli_fail(cli, error);
	config = gnt_config_create(gnt_paths_get_config_db(paths), args[0], NULL, &error);
	if (config == NULL) {
		/* a half-made config.db would make the next init say "already
		 * initialised" */
		g_autoptr(GError) cleanup_error = NULL;
		if (!g_error_matches(error, GNT_ERROR, GNT_ERROR_EXISTS) &&
		    !remove_cluster_state(paths, &cleanup_error))
			g_printerr("gnt-cluster: %s\n", cleanup_error->message);
		return gnt_cli_fail(cli, error);
	}
	if (!init_settings(cli, config, &error) || !init_master_node(paths, config, &error)) {
		g_autoptr(GError) cleanup_error = NULL;
		g_clear_object(&config);
		if (!remove_cluster_state(paths, &cleanup_error))
			g_printerr("gnt-cluster: %s\n", cleanup_error->message);
		return gnt_cli_fail(cli, error);
	}
	g_clear_object(&config); /* masterd owns the database from now on */
	if (!gnt_cli_node_daemons_start(paths, NULL, NULL, &error)) {
		/* a cluster without its master is of no use: leave nothing behind */
		g_autoptr(GError) cleanup_error = NULL;
		if (!remove_cluster_state(paths, &cleanup_error))
			g_printerr("gnt-cluster: %s\n", cleanup_error->message);
		return gnt_cli_fail(cli, error);
	}
	return 0;
}

/* ---- destroy ---- */

static const GOptionEntry destroy_entries[] = {
	{"yes-do-it", 0, 0, G_OPTION_ARG_NONE, &opt_yes_do_it, "Destroy cluster", NULL},
	{"ya-rly", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &opt_yes_do_it, "Destroy cluster",
	 NULL},
	{NULL},
};

/* Removes @path and everything below it; symbolic links are removed, never
 * followed, so nothing outside @path is touched. */
static gboolean
remove_tree(const gchar *path, GError **error)
{
	GStatBuf st;

	if (g_lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot stat '%s': %s", path,
			    g_strerror(errno));
		return FALSE;
	}
	if (S_ISDIR(st.st_mode)) {
		g_autoptr(GDir) dir = g_dir_open(path, 0, error);
		const gchar *name;

		if (dir == NULL) {
			gnt_error_convert(error);
			return FALSE;
		}
		while ((name = g_dir_read_name(dir)) != NULL) {
			g_autofree gchar *child = g_build_filename(path, name, NULL);

			if (!remove_tree(child, error))
				return FALSE;
		}
		if (g_rmdir(path) != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "cannot remove '%s': %s", path, g_strerror(errno));
			return FALSE;
		}
		return TRUE;
	}
	if (g_unlink(path) != 0 && errno != ENOENT) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot remove '%s': %s", path,
			    g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

/* Everything a cluster keeps under its root, and nothing else. */
static gboolean
remove_cluster_state(const GntPaths *paths, GError **error)
{
	const gchar *dirs[] = {gnt_paths_get_data_dir(paths), gnt_paths_get_run_dir(paths),
			       gnt_paths_get_log_dir(paths)};

	for (guint i = 0; i < G_N_ELEMENTS(dirs); i++) {
		if (!remove_tree(dirs[i], error))
			return FALSE;
	}
	return TRUE;
}

static gint
destroy_cluster(GntCli *cli, gchar **args)
{
	const GntPaths *paths = gnt_cli_get_paths(cli);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();

	if (!opt_yes_do_it) {
		g_printerr("Destroying a cluster is irreversible. If you really want destroy this "
			   "cluster, supply the --yes-do-it option.\n");
		return 1;
	}
	json_array_add_object_element(ops, gnt_cli_new_opcode(cli, "OP_CLUSTER_DESTROY"));
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	/* the opcode found nothing against it: stop the daemons, remove the state */
	if (!gnt_cli_node_daemons_stop(paths, STOP_TIMEOUT_S, &error) ||
	    !remove_cluster_state(paths, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- info ---- */

static JsonNode *
member(JsonObject *info, const gchar *key)
{
	return json_object_has_member(info, key) ? json_object_get_member(info, key) : NULL;
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* utils.CommaJoin of a list; @sorted sorts it first; @empty for none. */
static gchar *
comma_join(JsonNode *list, gboolean sorted, const gchar *empty)
{
	g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) out = g_string_new(NULL);
	JsonArray *array = list != NULL && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list)
								       : NULL;

	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++)
		g_ptr_array_add(items, gnt_cli_py_str(json_array_get_element(array, i)));
	if (items->len == 0 && empty != NULL)
		return g_strdup(empty);
	if (sorted)
		g_ptr_array_sort(items, compare_strings);
	for (guint i = 0; i < items->len; i++)
		g_string_append_printf(out, "%s%s", i > 0 ? ", " : "",
				       (const gchar *)g_ptr_array_index(items, i));
	return g_strdup(out->str);
}

/* A raw value: lists and dictionaries are laid out, scalars str()'d. */
static void
add_member(GntCliInfo *dict, const gchar *label, JsonObject *info, const gchar *key)
{
	gnt_cli_info_add(dict, label, NULL, gnt_cli_info_new_json(member(info, key)));
}

/* _FormatGroupedParams: dictionaries recursed, everything else str().
 * @only: when not NULL, the top-level keys to keep. */
static GntCliInfo *
grouped_params(JsonNode *params, JsonNode *only)
{
	GntCliInfo *dict = gnt_cli_info_new_dict();
	JsonObject *object = params != NULL && JSON_NODE_HOLDS_OBJECT(params)
				     ? json_node_get_object(params)
				     : NULL;
	g_autoptr(GList) keys = object != NULL ? json_object_get_members(object) : NULL;

	keys = g_list_sort(keys, (GCompareFunc)g_strcmp0);
	for (GList *l = keys; l != NULL; l = l->next) {
		JsonNode *value = json_object_get_member(object, l->data);
		gboolean keep = only == NULL;

		for (guint i = 0; !keep && i < json_array_get_length(json_node_get_array(only));
		     i++)
			keep = g_strcmp0(json_array_get_string_element(json_node_get_array(only),
								       i),
					 l->data) == 0;
		if (!keep)
			continue;
		if (JSON_NODE_HOLDS_OBJECT(value)) {
			gnt_cli_info_add(dict, l->data, NULL, grouped_params(value, NULL));
		} else {
			g_autofree gchar *text = gnt_cli_py_str(value);
			gnt_cli_info_add_text(dict, l->data, text);
		}
	}
	return dict;
}

/* uidpool.FormatUidPool: "1000-1009, 2000" */
static gchar *
format_uid_pool(JsonNode *pool)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; pool != NULL && JSON_NODE_HOLDS_ARRAY(pool) &&
			  i < json_array_get_length(json_node_get_array(pool));
	     i++) {
		JsonNode *range = json_array_get_element(json_node_get_array(pool), i);
		JsonArray *bounds = JSON_NODE_HOLDS_ARRAY(range) ? json_node_get_array(range)
								 : NULL;
		g_autofree gchar *low = NULL;
		g_autofree gchar *high = NULL;

		if (bounds == NULL || json_array_get_length(bounds) != 2)
			continue;
		low = gnt_cli_py_str(json_array_get_element(bounds, 0));
		high = gnt_cli_py_str(json_array_get_element(bounds, 1));
		g_string_append_printf(out, "%s%s", out->len > 0 ? ", " : "", low);
		if (g_strcmp0(low, high) != 0)
			g_string_append_printf(out, "-%s", high);
	}
	return g_string_free(out, FALSE);
}

/* FormatPolicyInfo for the cluster's own policy (every value is its own). */
static GntCliInfo *
policy_info(JsonNode *ipolicy)
{
	static const gchar *const minmax_keys[] = {"max", "min"};
	static const gchar *const parameters[] = {"spindle-ratio", "vcpu-ratio"};
	GntCliInfo *dict = gnt_cli_info_new_dict();
	GntCliInfo *bounds = gnt_cli_info_new_list();
	JsonObject *policy = ipolicy != NULL && JSON_NODE_HOLDS_OBJECT(ipolicy)
				     ? json_node_get_object(ipolicy)
				     : json_object_new();
	JsonNode *minmax = member(policy, "minmax");
	g_autofree gchar *templates = comma_join(member(policy, "disk-templates"), FALSE, NULL);

	for (guint i = 0; minmax != NULL && JSON_NODE_HOLDS_ARRAY(minmax) &&
			  i < json_array_get_length(json_node_get_array(minmax));
	     i++) {
		JsonNode *pair = json_array_get_element(json_node_get_array(minmax), i);
		GntCliInfo *specs = gnt_cli_info_new_dict();

		for (guint k = 0; k < G_N_ELEMENTS(minmax_keys); k++) {
			g_autofree gchar *label = g_strdup_printf("%s/%u", minmax_keys[k], i);
			JsonNode *spec =
				JSON_NODE_HOLDS_OBJECT(pair)
					? member(json_node_get_object(pair), minmax_keys[k])
					: NULL;

			gnt_cli_info_add(specs, label, NULL, grouped_params(spec, NULL));
		}
		gnt_cli_info_append(bounds, specs);
	}
	gnt_cli_info_add(dict, "bounds specs", NULL, bounds);
	gnt_cli_info_add(dict, "std", NULL, grouped_params(member(policy, "std"), NULL));
	gnt_cli_info_add_text(dict, "allowed disk templates", templates);
	for (guint i = 0; i < G_N_ELEMENTS(parameters); i++)
		add_member(dict, parameters[i], policy, parameters[i]);
	if (ipolicy == NULL || !JSON_NODE_HOLDS_OBJECT(ipolicy))
		json_object_unref(policy);
	return dict;
}

/* _FormatDataCollectors */
static GntCliInfo *
data_collectors_info(JsonObject *info)
{
	GntCliInfo *dict = gnt_cli_info_new_dict();
	JsonNode *enabled = member(info, "enabled_data_collectors");
	JsonNode *interval = member(info, "data_collector_interval");
	JsonObject *intervals = interval != NULL && JSON_NODE_HOLDS_OBJECT(interval)
					? json_node_get_object(interval)
					: NULL;
	g_autoptr(GList) keys = enabled != NULL && JSON_NODE_HOLDS_OBJECT(enabled)
					? json_object_get_members(json_node_get_object(enabled))
					: NULL;

	keys = g_list_sort(keys, (GCompareFunc)g_strcmp0);
	for (GList *l = keys; l != NULL; l = l->next) {
		GntCliInfo *collector = gnt_cli_info_new_dict();
		JsonNode *usec = intervals != NULL ? member(intervals, l->data) : NULL;
		g_autofree gchar *active = gnt_cli_py_str(
			json_object_get_member(json_node_get_object(enabled), l->data));

		gnt_cli_info_add_text(collector, "active", active);
		if (usec != NULL && gnt_json_node_is_number(usec))
			gnt_cli_info_add_printf(collector, "interval", "%.3fs",
						json_node_get_double(usec) / 1e6);
		else
			gnt_cli_info_add_text(collector, "interval", "None");
		gnt_cli_info_add(dict, l->data, NULL, collector);
	}
	return dict;
}

/* Where OS and ExtStorage providers are looked for: Ganeti's defaults
 * (pathutils.OS_SEARCH_PATH, ES_SEARCH_PATH), shown while the cluster
 * record has no such setting. */
static const struct {
	const gchar *key;
	const gchar *const dirs[5];
} search_paths[] = {
	{"os_search_path",
	 {"/srv/ganeti/os", "/usr/local/lib/ganeti/os", "/usr/lib/ganeti/os",
	  "/usr/share/ganeti/os", NULL}},
	{"es_search_path",
	 {"/srv/ganeti/extstorage", "/usr/local/lib/ganeti/extstorage",
	  "/usr/lib/ganeti/extstorage", "/usr/share/ganeti/extstorage", NULL}},
};

/* The search path @key of @info, else its default, comma-joined. */
static gchar *
format_search_path(JsonObject *info, const gchar *key)
{
	JsonNode *value = member(info, key);

	if (value != NULL && JSON_NODE_HOLDS_ARRAY(value))
		return comma_join(value, FALSE, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(search_paths); i++) {
		if (g_strcmp0(search_paths[i].key, key) == 0)
			return g_strjoinv(", ", (gchar **)search_paths[i].dirs);
	}
	g_return_val_if_reached(g_strdup(""));
}

/* authorized_keys lines by their comments ("type data comment"), so that
 * info does not print whole keys. */
static gchar *
format_ssh_keys(JsonNode *value)
{
	g_autoptr(GString) out = g_string_new(NULL);
	JsonArray *keys = value != NULL && JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value)
									: NULL;

	for (guint i = 0; keys != NULL && i < json_array_get_length(keys); i++) {
		const gchar *key = json_array_get_string_element(keys, i);
		g_auto(GStrv) words = g_strsplit(key != NULL ? key : "", " ", 3);
		guint n = g_strv_length(words);

		g_string_append_printf(out, "%s%s", out->len > 0 ? ", " : "",
				       n >= 3	? words[2]
				       : n >= 1 ? words[0]
						: "?");
	}
	return out->len > 0 ? g_string_free(g_steal_pointer(&out), FALSE) : g_strdup("(none)");
}

/* The "Cluster parameters" section in Ganeti's order (ShowClusterConfig);
 * labels and formats are the settings table's (config/gnt-cluster-settings.c),
 * except the ExtStorage path, which Gantry has no setting for. */
static GntCliInfo *
cluster_parameters_info(JsonObject *info)
{
	static const gchar *const order[] = {
		"candidate_pool_size",
		"max_running_jobs",
		"max_tracked_jobs",
		"mac_prefix",
		"master_netdev",
		"master_netmask",
		"use_external_mip_script",
		"volume_group_name",
		"reserved_lvs",
		"drbd_usermode_helper",
		"file_storage_dir",
		"shared_file_storage_dir",
		"gluster_storage_dir",
		"maintain_node_health",
		"uid_pool",
		"default_iallocator",
		"default_iallocator_params",
		"primary_ip_version",
		"prealloc_wipe_disks",
		"os_search_path",
		"es_search_path",
		"enabled_disk_templates",
		"install_image",
		"instance_communication_network",
		"zeroing_image",
		"compression_tools",
		"enabled_user_shutdown",
		"modify_ssh_setup",
		"ssh_key_type",
		"ssh_key_bits",
		/* Gantry's installs and metadata (doc/install.md, doc/metad.md) */
		"enable_safe_install",
		"install_timeout",
		"trusted_os",
		"ssh_keys",
		/* the install policy (issue 14) */
		"install_denied_steps",
		"install_step_priorities",
		/* kickstart installs (doc/kickstart.md) */
		"kickstart_dir",
		"default_ks_template",
		"ksvalidator",
	};
	static const GntClusterSetting es_search_path = {
		.key = "es_search_path",
		.label = "ExtStorage Providers search path",
		.show = GNT_SETTING_SHOW_SEARCH_PATH,
	};
	GntCliInfo *dict = gnt_cli_info_new_dict();

	for (guint i = 0; i < G_N_ELEMENTS(order); i++) {
		const GntClusterSetting *setting = g_strcmp0(order[i], es_search_path.key) == 0
							   ? &es_search_path
							   : gnt_cluster_setting_lookup(order[i]);
		JsonNode *value = member(info, setting->key);
		g_autofree gchar *text = NULL;

		switch (setting->show) {
		case GNT_SETTING_SHOW_LIST:
			text = comma_join(value, FALSE, NULL);
			break;
		case GNT_SETTING_SHOW_LIST_OR_NONE:
			text = comma_join(value, FALSE, "(none)");
			break;
		case GNT_SETTING_SHOW_UID_POOL:
			text = format_uid_pool(value);
			break;
		case GNT_SETTING_SHOW_SEARCH_PATH:
			text = format_search_path(info, setting->key);
			break;
		case GNT_SETTING_SHOW_SSH_KEYS:
			text = format_ssh_keys(value);
			break;
		case GNT_SETTING_SHOW_RAW:
		default:
			break;
		}
		gnt_cli_info_add(dict, setting->label, NULL,
				 text != NULL ? gnt_cli_info_new_text(text)
					      : gnt_cli_info_new_json(value));
	}
	return dict;
}

static gchar *
format_ctime(JsonNode *value)
{
	if (value == NULL || !gnt_json_node_is_number(value))
		return g_strdup("N/A");
	return gnt_cli_format_time((gint64)json_node_get_double(value), -1);
}

static GntCliInfo *
cluster_info(JsonObject *info)
{
	GntCliInfo *dict = gnt_cli_info_new_dict();
	g_autofree gchar *tags = comma_join(member(info, "tags"), TRUE, "(none)");
	g_autofree gchar *ctime = format_ctime(member(info, "ctime"));
	g_autofree gchar *mtime = format_ctime(member(info, "mtime"));
	g_autofree gchar *arch0 = NULL;
	g_autofree gchar *arch1 = NULL;
	g_autofree gchar *hypervisors =
		comma_join(member(info, "enabled_hypervisors"), FALSE, NULL);
	g_autofree gchar *hidden = comma_join(member(info, "hidden_os"), FALSE, NULL);
	g_autofree gchar *blacklisted = comma_join(member(info, "blacklisted_os"), FALSE, NULL);
	JsonNode *arch = member(info, "architecture");
	JsonNode *enabled = member(info, "enabled_hypervisors");

	if (arch != NULL && JSON_NODE_HOLDS_ARRAY(arch) &&
	    json_array_get_length(json_node_get_array(arch)) == 2) {
		arch0 = gnt_cli_py_str(json_array_get_element(json_node_get_array(arch), 0));
		arch1 = gnt_cli_py_str(json_array_get_element(json_node_get_array(arch), 1));
	}
	add_member(dict, "Cluster name", info, "name");
	add_member(dict, "Cluster UUID", info, "uuid");
	gnt_cli_info_add_text(dict, "Creation time", ctime);
	gnt_cli_info_add_text(dict, "Modification time", mtime);
	add_member(dict, "Master node", info, "master");
	gnt_cli_info_add_printf(dict, "Architecture (this node)", "%s (%s)",
				arch0 != NULL ? arch0 : "?", arch1 != NULL ? arch1 : "?");
	gnt_cli_info_add_text(dict, "Tags", tags);
	add_member(dict, "Default hypervisor", info, "default_hypervisor");
	gnt_cli_info_add_text(dict, "Enabled hypervisors", hypervisors);
	gnt_cli_info_add(dict, "Hypervisor parameters", NULL,
			 grouped_params(member(info, "hvparams"),
					enabled != NULL && JSON_NODE_HOLDS_ARRAY(enabled) ? enabled
											  : NULL));
	gnt_cli_info_add(dict, "OS-specific hypervisor parameters", NULL,
			 grouped_params(member(info, "os_hvp"), NULL));
	gnt_cli_info_add(dict, "OS parameters", NULL,
			 grouped_params(member(info, "osparams"), NULL));
	gnt_cli_info_add_text(dict, "Hidden OSes", hidden);
	gnt_cli_info_add_text(dict, "Blacklisted OSes", blacklisted);
	gnt_cli_info_add(dict, "Cluster parameters", NULL, cluster_parameters_info(info));
	gnt_cli_info_add(dict, "Default node parameters", NULL,
			 grouped_params(member(info, "ndparams"), NULL));
	gnt_cli_info_add(dict, "Default instance parameters", NULL,
			 grouped_params(member(info, "beparams"), NULL));
	gnt_cli_info_add(dict, "Default nic parameters", NULL,
			 grouped_params(member(info, "nicparams"), NULL));
	gnt_cli_info_add(dict, "Default disk parameters", NULL,
			 grouped_params(member(info, "diskparams"), NULL));
	gnt_cli_info_add(dict, "Instance policy - limits for instances", NULL,
			 policy_info(member(info, "ipolicy")));
	gnt_cli_info_add(dict, "Data collectors", NULL, data_collectors_info(info));
	return dict;
}

static JsonObject *
query_cluster_info(GntCli *cli, GError **error)
{
	return gnt_cli_call_object(cli, "QueryClusterInfo", json_array_new(), error);
}

static gint
show_cluster_config(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) info = query_cluster_info(cli, &error);
	g_autoptr(GntCliInfo) tree = NULL;
	g_autofree gchar *text = NULL;

	if (info == NULL)
		return gnt_cli_fail(cli, error);
	tree = cluster_info(info);
	text = gnt_cli_info_format(tree);
	g_print("%s\n", text);
	return 0;
}

/* ---- getmaster ---- */

/* Ganeti's ShowClusterMaster: the master node's name from the ssconf file
 * masterd keeps, so it answers without the master daemon. */
static gint
show_cluster_master(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *master = gnt_ssconf_read(gnt_paths_get_data_dir(gnt_cli_get_paths(cli)),
						   "master_node", &error);

	if (master == NULL)
		return gnt_cli_fail(cli, error);
	g_print("%s\n", master);
	return 0;
}

/* ---- version ---- */

static gint
show_cluster_version(GntCli *cli, gchar **args)
{
	static const struct {
		const gchar *label;
		const gchar *key;
	} lines[] = {
		{"Software version", "software_version"},
		{"Internode protocol", "protocol_version"},
		{"Configuration format", "config_version"},
		{"OS api version", "os_api_version"},
		{"Export interface", "export_version"},
		{"VCS version", "vcs_version"},
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) info = query_cluster_info(cli, &error);

	if (info == NULL)
		return gnt_cli_fail(cli, error);
	for (guint i = 0; i < G_N_ELEMENTS(lines); i++) {
		g_autofree gchar *value = gnt_cli_py_str(member(info, lines[i].key));
		g_print("%s: %s\n", lines[i].label, value);
	}
	return 0;
}

static const GntCliCommand commands[] = {
	{"add-tags", gnt_cli_add_tags_command, 0, -1, GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_SUBMIT,
	 gnt_cli_tags_entries, "<tag>...", "Add tags to the cluster", NULL, "cluster"},
	{"destroy", destroy_cluster, 0, 0, GNT_CLI_OPT_NONE, destroy_entries, "", "Destroy cluster",
	 "Submits OP_CLUSTER_DESTROY and waits for it; if it succeeds, stops the daemons and "
	 "removes <root>/var/lib/gantry, <root>/run/gantry and <root>/var/log/gantry (nothing "
	 "outside the root). Refuses without --yes-do-it."},
	{"getmaster", show_cluster_master, 0, 0, GNT_CLI_OPT_NONE, NULL, "",
	 "Shows the cluster master",
	 "Reads <root>/var/lib/gantry/ssconf_master_node, which the master daemon writes with "
	 "Ganeti's other ssconf files at its start and after every configuration change."},
	{"info", show_cluster_config, 0, 0, GNT_CLI_OPT_NONE, NULL, "",
	 "Show cluster configuration", NULL},
	{"init", init_cluster, 1, 1, GNT_CLI_OPT_NONE, init_entries, "<cluster-name>",
	 "Initialises a new cluster configuration",
	 "Creates the directories under the root and config.db with this host as the master "
	 "node, writes the cluster settings given (checked as \"modify\" checks them, the "
	 "volume group looked for on this host), then starts the daemons (as \"gantry-daemons "
	 "start\" does). Refuses if there is a cluster under the root already, and leaves "
	 "nothing behind when it fails."},
	{"list-tags", gnt_cli_list_tags_command, 0, 0, GNT_CLI_OPT_NONE, NULL, "",
	 "List the tags of the cluster", NULL, "cluster"},
	{"modify", modify_cluster, 0, 0,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, modify_entries,
	 "[<opts>...]", "Alters the parameters of the cluster",
	 "Submits OP_CLUSTER_SET_PARAMS: -H and -B are merged into the current defaults; a "
	 "volume group to be used must exist on the master node; disk templates in use can "
	 "not be disabled. --os-search-path DIRS puts DIRS before Ganeti's four directories."},
	{"remove-tags", gnt_cli_remove_tags_command, 0, -1,
	 GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_SUBMIT, gnt_cli_tags_entries, "<tag>...",
	 "Remove tags from the cluster", NULL, "cluster"},
	{"verify", gnt_cluster_verify, 0, 0,
	 GNT_CLI_OPT_VERBOSE | GNT_CLI_OPT_DRY_RUN | GNT_CLI_OPT_PRIORITY,
	 gnt_cluster_verify_entries, "", "Does a check on the cluster configuration",
	 GNT_CLUSTER_VERIFY_HELP},
	{"verify-disks", gnt_cluster_verify_disks, 0, 0, GNT_CLI_OPT_PRIORITY,
	 gnt_cluster_verify_disks_entries, "", "Does a check on the cluster disk status",
	 GNT_CLUSTER_VERIFY_DISKS_HELP},
	{"version", show_cluster_version, 0, 0, GNT_CLI_OPT_NONE, NULL, "",
	 "Shows the cluster version", NULL},
	{NULL},
};

int
main(int argc, char **argv)
{
	for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
		if (s->option == NULL)
			continue;
		g_assert(n_setting_options < MAX_SETTING_OPTIONS);
		setting_options[n_setting_options++] =
			(SettingOption){.setting = s, .number = GNT_CLI_INT_UNSET};
	}
	settings_entries_build(init_entries, init_own_entries);
	settings_entries_build(modify_entries, modify_own_entries);
	return gnt_cli_main(commands, argc, argv);
}
