/* gnt-node: node-related commands, after Ganeti's lib/client/gnt_node.py. */
#include <stdio.h>
#include <string.h>

#include "gnt-cli-daemons.h"
#include "gnt-cli-objects.h"
#include "gnt-cli-tags.h"
#include "gnt-config.h"
#include "gnt-join.h"
#include "gnt-json.h"
#include "gnt-rpc-client.h"
#include "gnt-rpc-protocol.h"
#include "gnt-secret.h"

/* How long one version call of gnt-node add waits, and between two. */
#define ADD_POLL_CALL_TIMEOUT_S 5
#define ADD_POLL_INTERVAL_S	1

/* ---- list, list-fields ---- */

static const gchar *const list_default_fields[] = {
	"name", "dtotal", "dfree", "mtotal", "mnode", "mfree", "pinst_cnt", "sinst_cnt", NULL,
};

static const GntCliFormatOverride list_overrides[] = {
	{"pinst_list", gnt_cli_format_comma_list, FALSE},
	{"sinst_list", gnt_cli_format_comma_list, FALSE},
	{"tags", gnt_cli_format_comma_list, FALSE},
	{NULL},
};

static const GntCliListSpec list_spec = {"node", list_default_fields, list_overrides};

/* ---- info ---- */

/* The fields of ShowNodeConfig, in its order. */
enum {
	INFO_NAME,
	INFO_PIP,
	INFO_SIP,
	INFO_PINST,
	INFO_SINST,
	INFO_MC,
	INFO_DRAINED,
	INFO_OFFLINE,
	INFO_MASTER_CAPABLE,
	INFO_VM_CAPABLE,
	INFO_POWERED,
	INFO_NDPARAMS,
	INFO_CUSTOM_NDPARAMS,
	INFO_N_FIELDS
};

static const gchar *const info_fields[] = {
	"name",
	"pip",
	"sip",
	"pinst_list",
	"sinst_list",
	"master_candidate",
	"drained",
	"offline",
	"master_capable",
	"vm_capable",
	"powered",
	"ndparams",
	"custom_ndparams",
	NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static void
add_value(GntCliInfo *info, const gchar *key, JsonNode *value)
{
	gnt_cli_info_add(info, key, NULL, gnt_cli_info_new_json(value));
}

/* _FormatNodeInfo */
static GntCliInfo *
node_info(JsonArray *row)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	JsonNode *powered = json_array_get_element(row, INFO_POWERED);
	JsonNode *vm_capable = json_array_get_element(row, INFO_VM_CAPABLE);
	g_autoptr(JsonNode)
		params = gnt_cli_format_params(json_array_get_element(row, INFO_CUSTOM_NDPARAMS),
					       json_array_get_element(row, INFO_NDPARAMS));

	add_value(info, "Node name", json_array_get_element(row, INFO_NAME));
	add_value(info, "primary ip", json_array_get_element(row, INFO_PIP));
	add_value(info, "secondary ip", json_array_get_element(row, INFO_SIP));
	add_value(info, "master candidate", json_array_get_element(row, INFO_MC));
	add_value(info, "drained", json_array_get_element(row, INFO_DRAINED));
	add_value(info, "offline", json_array_get_element(row, INFO_OFFLINE));
	if (powered != NULL && !JSON_NODE_HOLDS_NULL(powered))
		add_value(info, "powered", powered);
	add_value(info, "master_capable", json_array_get_element(row, INFO_MASTER_CAPABLE));
	add_value(info, "vm_capable", vm_capable);
	if (JSON_NODE_HOLDS_VALUE(vm_capable) &&
	    json_node_get_value_type(vm_capable) == G_TYPE_BOOLEAN &&
	    json_node_get_boolean(vm_capable)) {
		/* the lists come sorted by name (NiceSort) */
		add_value(info, "primary for instances", json_array_get_element(row, INFO_PINST));
		add_value(info, "secondary for instances", json_array_get_element(row, INFO_SINST));
	}
	add_value(info, "node parameters", params);
	return info;
}

static gint
show_node_config(GntCli *cli, gchar **args)
{
	return gnt_cli_show_info(cli, "QueryNodes", args, info_fields, node_info);
}

/* ---- add ---- */

static gchar *opt_secondary_ip;
static gchar *opt_primary_ip;
static gint opt_noded_port;
static gboolean opt_readd;
static gchar *opt_group;
static gchar *opt_master_capable;
static gchar *opt_vm_capable;
static gint opt_join_timeout = 600;
static gint opt_token_ttl = GNT_JOIN_DEFAULT_TTL_S;

static const GOptionEntry add_entries[] = {
	{"secondary-ip", 's', 0, G_OPTION_ARG_STRING, &opt_secondary_ip,
	 "Specify the secondary ip for the node", "ADDRESS"},
	{"primary-ip", 0, 0, G_OPTION_ARG_STRING, &opt_primary_ip,
	 "The node's address (default: its name's address)", "ADDRESS"},
	{"noded-port", 0, 0, G_OPTION_ARG_INT, &opt_noded_port,
	 "The port the node's gantry-noded listens on (default: the master's)", "PORT"},
	{"readd", 0, 0, G_OPTION_ARG_NONE, &opt_readd, "Readd old node after replacing it", NULL},
	{"node-group", 'g', 0, G_OPTION_ARG_STRING, &opt_group, "Node group (name or uuid)",
	 "NODEGROUP"},
	{"master-capable", 0, 0, G_OPTION_ARG_STRING, &opt_master_capable,
	 "Set the master_capable flag on the node", "yes|no"},
	{"vm-capable", 0, 0, G_OPTION_ARG_STRING, &opt_vm_capable,
	 "Set the vm_capable flag on the node", "yes|no"},
	{"join-timeout", 0, 0, G_OPTION_ARG_INT, &opt_join_timeout,
	 "Seconds to wait for the node to join (default 600; 0: print the join command and "
	 "return)",
	 "SECONDS"},
	{"token-ttl", 0, 0, G_OPTION_ARG_INT, &opt_token_ttl,
	 "Seconds the join token stays valid (default 3600)", "SECONDS"},
	{NULL},
};

/* Ganeti's yes/no options: -1 when not given. */
static gboolean
parse_yes_no(GntCli *cli, const gchar *option, const gchar *value, gint *out, GError **error)
{
	if (value == NULL)
		*out = -1;
	else if (g_ascii_strcasecmp(value, "yes") == 0 || g_ascii_strcasecmp(value, "true") == 0)
		*out = 1;
	else if (g_ascii_strcasecmp(value, "no") == 0 || g_ascii_strcasecmp(value, "false") == 0)
		*out = 0;
	else {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Invalid boolean value '%s' for %s: expected yes or no",
					 value, option);
		return FALSE;
	}
	return TRUE;
}

/* Query(node, @fields) of the node named @name exactly: its row's values,
 * or NULL (no error) when there is no such node. */
static JsonArray *
query_node_row(GntCli *cli, const gchar *name, gchar **fields, GError **error)
{
	gchar *names[] = {(gchar *)name, NULL};
	g_autoptr(GError) local = NULL;
	g_autoptr(JsonObject)
		response = gnt_cli_query(cli, "node", fields, gnt_cli_name_filter(names), &local);
	JsonArray *data = NULL;

	/* a name filter naming an unknown node is refused */
	if (response == NULL && g_error_matches(local, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		gnt_cli_set_exception(cli, NULL, NULL); /* not a failure here */
		return json_array_new();
	}
	if (response == NULL) {
		g_propagate_error(error, g_steal_pointer(&local));
		return NULL;
	}
	if (!gnt_json_get_array(response, "data", &data, error))
		return NULL;
	if (json_array_get_length(data) == 0 ||
	    !JSON_NODE_HOLDS_ARRAY(json_array_get_element(data, 0)))
		return json_array_new();
	return json_array_ref(json_array_get_array_element(data, 0));
}

/* The address the node is reached on: --primary-ip, else its name's. */
static gchar *
add_dup_primary_ip(GntCli *cli, const gchar *name, GError **error)
{
	g_autoptr(GResolver) resolver = NULL;
	g_autoptr(GError) local = NULL;
	g_autolist(GInetAddress) addresses = NULL;

	if (opt_primary_ip != NULL) {
		g_autoptr(GInetAddress) address = g_inet_address_new_from_string(opt_primary_ip);
		if (address == NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "primary IP '%s' is not a valid IP address",
						 opt_primary_ip);
			return NULL;
		}
		return g_strdup(opt_primary_ip);
	}
	resolver = g_resolver_get_default();
	addresses = g_resolver_lookup_by_name(resolver, name, NULL, &local);
	for (GList *l = addresses; l != NULL; l = l->next) {
		if (g_inet_address_get_family(l->data) == G_SOCKET_FAMILY_IPV4)
			return g_inet_address_to_string(l->data);
	}
	gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
				 "cannot find an IPv4 address of node '%s'%s%s: give --primary-ip",
				 name, local != NULL ? ": " : "",
				 local != NULL ? local->message : "");
	return NULL;
}

/* Where the master node's gantry-noded listens: its primary IP and the
 * port it was set up with. */
static gboolean
add_get_master_address(GntCli *cli, gchar **address, guint *port, GError **error)
{
	gchar *fields[] = {"pip", "master", NULL};
	g_autoptr(JsonObject) response = gnt_cli_query(cli, "node", fields, NULL, error);
	g_autofree gchar *listen = gnt_cli_dup_noded_listen(gnt_cli_get_paths(cli));
	JsonArray *data = NULL;
	JsonNode *pip = NULL;
	const gchar *colon = listen != NULL ? strrchr(listen, ':') : NULL;
	guint64 value = GNT_RPC_DEFAULT_PORT;

	if (response == NULL || !gnt_json_get_array(response, "data", &data, error))
		return FALSE;
	for (guint i = 0; pip == NULL && i < json_array_get_length(data); i++) {
		JsonArray *row = json_array_get_array_element(data, i);
		JsonNode *master = row != NULL ? gnt_cli_row_value(row, 1) : NULL;

		if (master != NULL && JSON_NODE_HOLDS_VALUE(master) &&
		    json_node_get_value_type(master) == G_TYPE_BOOLEAN &&
		    json_node_get_boolean(master))
			pip = gnt_cli_row_value(row, 0);
	}
	if (pip == NULL || !JSON_NODE_HOLDS_VALUE(pip) ||
	    json_node_get_value_type(pip) != G_TYPE_STRING) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "cannot find the master node's address");
		return FALSE;
	}
	if (colon != NULL && !g_ascii_string_to_unsigned(colon + 1, 10, 1, 65535, &value, NULL))
		value = GNT_RPC_DEFAULT_PORT;
	*address = json_node_dup_string(pip);
	*port = (guint)value;
	return TRUE;
}

/* Calls "version" on the node until it answers (it has joined) or
 * @timeout_s pass; the last failure is the error. */
static gboolean
add_wait_for_node(GntRpcClient *rpc, const gchar *name, const gchar *ip, guint port,
		  guint timeout_s, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;

	for (;;) {
		g_autoptr(GError) local = NULL;
		g_autoptr(JsonNode) answer = gnt_rpc_client_call(
			rpc, name, ip, port, "version", NULL, ADD_POLL_CALL_TIMEOUT_S, &local);
		if (answer != NULL)
			return TRUE;
		if (g_get_monotonic_time() + ADD_POLL_INTERVAL_S * G_USEC_PER_SEC >= deadline) {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				"%s; node '%s' has not joined within %u seconds: run \"gnt-node "
				"add %s\" again once it has",
				local->message, name, timeout_s, name);
			return FALSE;
		}
		g_usleep(ADD_POLL_INTERVAL_S * G_USEC_PER_SEC);
	}
}

/* Makes the join token and tells the operator what to run on the node. */
static gboolean
add_print_join(GntCli *cli, const gchar *name, const gchar *ip, guint port, GError **error)
{
	g_autofree gchar *master_ip = NULL;
	guint master_port = 0;
	g_autoptr(GntJoinToken) token = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *expires = NULL;

	if (!add_get_master_address(cli, &master_ip, &master_port, error))
		return FALSE;
	token = gnt_join_create_token(gnt_cli_get_paths(cli), name, master_ip, master_port,
				      (guint)opt_token_ttl, error);
	if (token == NULL)
		return FALSE;
	text = gnt_join_token_to_string(token);
	expires = gnt_cli_format_time(token->expires, -1);
	g_print("Node %s has not joined the cluster yet. On it, run as root:\n\n"
		"  gantry-noded --join %s --address %s --listen 0.0.0.0:%u\n\n"
		"(add --root DIR for a node kept under DIR). The token lets %s join once, "
		"until %s;\ntreat it like a password. Later starts of the node's daemons: "
		"gantry-daemons start.\n",
		name, text, ip, port, name, expires);
	gnt_secret_wipe_string(text);
	gnt_secret_wipe_string(token->secret);
	return TRUE;
}

static gint
add_node(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *name = g_ascii_strdown(args[0], -1);
	g_autofree gchar *ip = NULL;
	g_autoptr(GntRpcClient) rpc = NULL;
	g_autoptr(JsonArray) existing = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(GError) version_error = NULL;
	g_autoptr(JsonNode) version = NULL;
	gchar *fields[] = {"name", NULL};
	JsonObject *op;
	gint master_capable = -1;
	gint vm_capable = -1;
	guint port;
	g_autofree gchar *master_ip = NULL;
	guint master_port = 0;

	if (opt_noded_port < 0 || opt_noded_port > 65535 || opt_join_timeout < 0 ||
	    opt_token_ttl < 1) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "--noded-port must be from 1 to 65535, --join-timeout and "
					 "--token-ttl positive");
		return gnt_cli_fail(cli, error);
	}
	if (!gnt_config_check_name(name, "node name", &error))
		return gnt_cli_fail(cli, error);
	if (!parse_yes_no(cli, "--master-capable", opt_master_capable, &master_capable, &error) ||
	    !parse_yes_no(cli, "--vm-capable", opt_vm_capable, &vm_capable, &error))
		return gnt_cli_fail(cli, error);
	existing = query_node_row(cli, name, fields, &error);
	if (existing == NULL)
		return gnt_cli_fail(cli, error);
	if (opt_readd && json_array_get_length(existing) == 0) {
		g_printerr("Node %s not in the cluster - please retry without '--readd'\n", name);
		return 1;
	}
	if (!opt_readd && json_array_get_length(existing) > 0) {
		g_printerr("Node %s already in the cluster (as %s) - please retry with '--readd'\n",
			   name, name);
		return 1;
	}
	ip = add_dup_primary_ip(cli, name, &error);
	if (ip == NULL || !add_get_master_address(cli, &master_ip, &master_port, &error))
		return gnt_cli_fail(cli, error);
	port = opt_noded_port > 0 ? (guint)opt_noded_port : master_port;
	rpc = gnt_rpc_client_new_from_paths(gnt_cli_get_paths(cli), &error);
	if (rpc == NULL) {
		g_prefix_error(&error, "this command runs on the master node: ");
		return gnt_cli_fail(cli, error);
	}
	/* a node that has joined answers with its certificate: no token then */
	version = gnt_rpc_client_call(rpc, name, ip, port, "version", NULL, ADD_POLL_CALL_TIMEOUT_S,
				      &version_error);
	if (version == NULL) {
		if (!add_print_join(cli, name, ip, port, &error))
			return gnt_cli_fail(cli, error);
		if (opt_join_timeout == 0) {
			g_print("Run \"gnt-node add %s\" again once it has joined.\n", name);
			return 0;
		}
		g_print("Waiting up to %d seconds for %s to join (interrupted, run \"gnt-node add "
			"%s\" again once it has joined)...\n",
			opt_join_timeout, name, name);
		fflush(stdout); /* the operator, or a script, needs the token now */
		if (!add_wait_for_node(rpc, name, ip, port, (guint)opt_join_timeout, &error))
			return gnt_cli_fail(cli, error);
	}
	op = gnt_cli_new_opcode(cli, "OP_NODE_ADD");
	json_array_add_object_element(ops, op);
	json_object_set_string_member(op, "node_name", name);
	json_object_set_string_member(op, "primary_ip", ip);
	if (opt_secondary_ip != NULL)
		json_object_set_string_member(op, "secondary_ip", opt_secondary_ip);
	json_object_set_boolean_member(op, "readd", opt_readd);
	if (opt_group != NULL)
		json_object_set_string_member(op, "group", opt_group);
	if (master_capable >= 0)
		json_object_set_boolean_member(op, "master_capable", master_capable);
	if (vm_capable >= 0)
		json_object_set_boolean_member(op, "vm_capable", vm_capable);
	json_object_set_int_member(op, "rpc_port", port);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- remove ---- */

static gint
remove_node(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_NODE_REMOVE");

	json_array_add_object_element(ops, op);
	json_object_set_string_member(op, "node_name", args[0]);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- modify ---- */

static gboolean opt_force;
static gchar *opt_offline;
static gchar *opt_drained;
static gchar *opt_master_candidate;
static gboolean opt_auto_promote;

static const GOptionEntry modify_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	{"master-candidate", 'C', 0, G_OPTION_ARG_STRING, &opt_master_candidate,
	 "Set the master_candidate flag on the node", "yes|no"},
	{"drained", 'D', 0, G_OPTION_ARG_STRING, &opt_drained, "Set the drained flag on the node",
	 "yes|no"},
	{"offline", 'O', 0, G_OPTION_ARG_STRING, &opt_offline, "Set the offline flag on the node",
	 "yes|no"},
	{"master-capable", 0, 0, G_OPTION_ARG_STRING, &opt_master_capable,
	 "Set the master_capable flag on the node", "yes|no"},
	{"vm-capable", 0, 0, G_OPTION_ARG_STRING, &opt_vm_capable,
	 "Set the vm_capable flag on the node", "yes|no"},
	{"secondary-ip", 's', 0, G_OPTION_ARG_STRING, &opt_secondary_ip,
	 "Specify the secondary ip for the node", "ADDRESS"},
	{"auto-promote", 0, 0, G_OPTION_ARG_NONE, &opt_auto_promote,
	 "Automatically promote nodes as needed to maintain the master candidate pool", NULL},
	{NULL},
};

static gint
modify_node(GntCli *cli, gchar **args)
{
	static const struct {
		const gchar *option;
		gchar **value;
		const gchar *param;
	} flags[] = {
		{"--master-candidate", &opt_master_candidate, "master_candidate"},
		{"--drained", &opt_drained, "drained"},
		{"--offline", &opt_offline, "offline"},
		{"--master-capable", &opt_master_capable, "master_capable"},
		{"--vm-capable", &opt_vm_capable, "vm_capable"},
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_NODE_SET_PARAMS");
	gboolean any = opt_secondary_ip != NULL;

	json_array_add_object_element(ops, op);
	json_object_set_string_member(op, "node_name", args[0]);
	for (guint i = 0; i < G_N_ELEMENTS(flags); i++) {
		gint value = -1;
		if (!parse_yes_no(cli, flags[i].option, *flags[i].value, &value, &error))
			return gnt_cli_fail(cli, error);
		if (value < 0)
			continue;
		json_object_set_boolean_member(op, flags[i].param, value);
		any = TRUE;
		/* Ganeti asks before bringing a node online by hand */
		if (g_strcmp0(flags[i].param, "offline") == 0 && value == 0 && !opt_force &&
		    !gnt_cli_ask_user(
			    "You are setting this node online manually. If the "
			    "configuration has changed, this can cause issues such as "
			    "split brain. To safely bring a node back online, please use "
			    "--readd instead. If you are confident that the configuration "
			    "hasn't changed, continue?"))
			return 1;
	}
	if (!any) {
		g_printerr("Please give at least one of the parameters.\n");
		return 1;
	}
	if (opt_secondary_ip != NULL)
		json_object_set_string_member(op, "secondary_ip", opt_secondary_ip);
	json_object_set_boolean_member(op, "force", opt_force);
	json_object_set_boolean_member(op, "auto_promote", opt_auto_promote);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error))
		return gnt_cli_fail(cli, error);
	gnt_cli_print_changes("node", args[0], results);
	return 0;
}

/* ---- tags ---- */

/* Commands in alphabetical order, as Ganeti lists them. */
static const GntCliCommand commands[] = {
	{"add", add_node, 1, 1, GNT_CLI_OPT_PRIORITY, add_entries,
	 "[-s ip] [--primary-ip ip] [--noded-port port] [--readd] [--join-timeout s] <node-name>",
	 "Add a node to the cluster",
	 "A node that has not joined yet gets a one-time join token: the command prints what "
	 "to run on the node (gantry-noded --join TOKEN) and waits for it to answer with its "
	 "new certificate, then adds it (OP_NODE_ADD). With --join-timeout 0 it only prints; "
	 "running \"gnt-node add\" again after the join adds the node. See doc/nodes.md."},
	GNT_CLI_ADD_TAGS_COMMAND("node", "<node-name>", "node"),
	{"info", show_node_config, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<node_name>...]",
	 "Show information about the node(s)",
	 "Shows the addresses, roles, instances and node parameters of the named nodes (short "
	 "names work), or of every node."},
	{"list", gnt_cli_list_command, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<node_name>...]",
	 "Lists the nodes in the cluster. The available fields can be shown using the "
	 "\"list-fields\" command. The default field list is (in order): name, dtotal, dfree, "
	 "mtotal, mnode, mfree, pinst_cnt, sinst_cnt.",
	 "Live fields (dtotal, mfree, ...) show \"?\" until the nodes report them, \"*\" for an "
	 "offline node. Exits 14 if a requested field is unknown.",
	 &list_spec},
	{"list-fields", gnt_cli_list_fields_command, 0, -1, GNT_CLI_OPT_TABLE, NULL,
	 "[<fields>...]", "Lists all available fields for nodes", NULL, &list_spec},
	GNT_CLI_LIST_TAGS_COMMAND("node", "<node-name>", "node"),
	{"modify", modify_node, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, modify_entries,
	 "<node-name>", "Alters the parameters of a node",
	 "--offline yes: the node is no longer contacted (its instances can not be started or "
	 "stopped); --drained yes: it takes no new instances. The master's flags can not be "
	 "changed."},
	{"remove", remove_node, 1, 1, GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, NULL,
	 "<node-name>", "Removes a node from the cluster",
	 "Refused for the master node and for a node that still has instances."},
	GNT_CLI_REMOVE_TAGS_COMMAND("node", "<node-name>", "node"),
	{"show", show_node_config, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<node_name>...]",
	 "Alias of \"info\"", NULL},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
