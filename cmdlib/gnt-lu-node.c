/*
 * The node units: add (the node must already answer with a certificate of
 * this cluster's CA, which it got by joining with a token: doc/nodes.md),
 * remove, and set-params (Ganeti's offline and drained flags). An offline
 * node is not contacted by any unit; a drained one takes no new instances.
 */
#include <gio/gio.h>

#include "gnt-config-groups.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-node-calls.h"
#include "gnt-records.h"
#include "gnt-rpc-protocol.h"

/* How long OP_NODE_ADD and de-offlining wait for the node's version. */
#define NODE_VERSION_TIMEOUT_S 10

static const gchar *
op_node_name(GntLu *lu)
{
	return gnt_opcode_get_string(gnt_lu_get_opcode(lu), "node_name");
}

static gboolean
check_ip(const gchar *ip, const gchar *what, GError **error)
{
	g_autoptr(GInetAddress) address = ip != NULL ? g_inet_address_new_from_string(ip) : NULL;

	if (address == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s '%s' is not a valid IP address", what, ip != NULL ? ip : "");
		return FALSE;
	}
	return TRUE;
}

/* Ganeti's version RPC: the node answers, with a certificate of this
 * cluster for its name, and speaks our protocol. */
static gboolean
node_check_version(GntLu *lu, JsonObject *node, GError **error)
{
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(JsonNode) answer = NULL;
	JsonObject *version;
	gint64 protocol = -1;

	if (rpc == NULL)
		return FALSE;
	answer = gnt_node_call(rpc, node, "version", NULL, NODE_VERSION_TIMEOUT_S, error);
	if (answer == NULL)
		return FALSE;
	version = JSON_NODE_HOLDS_OBJECT(answer) ? json_node_get_object(answer) : NULL;
	if (version == NULL || !gnt_json_get_int(version, "protocol", &protocol, NULL) ||
	    protocol != GNT_RPC_PROTOCOL_VERSION) {
		g_autofree gchar *text = gnt_json_to_string(answer);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "Version mismatch master version %d, node version %s",
			    GNT_RPC_PROTOCOL_VERSION, text);
		return FALSE;
	}
	return TRUE;
}

/* Locks the node the opcode names (by its full name when it exists). */
static void
lock_op_node(GntLu *lu, GntLockSet *locks)
{
	g_autoptr(JsonObject) node = gnt_lu_dup_node(lu_config(lu), op_node_name(lu), NULL);

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE,
			 node != NULL ? json_object_get_string_member(node, "name")
				      : op_node_name(lu),
			 GNT_LOCK_EXCLUSIVE);
}

/* ---- OP_NODE_ADD -------------------------------------------------------------- */

static gboolean
add_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *pip = gnt_opcode_get_string(op, "primary_ip");
	const gchar *sip = gnt_opcode_get_string(op, "secondary_ip");
	const gchar *group = gnt_opcode_get_string(op, "group");

	if (!gnt_config_check_name(op_node_name(lu), "node name", error) ||
	    (pip != NULL && !check_ip(pip, "primary IP", error)) ||
	    (sip != NULL && !check_ip(sip, "Secondary IP", error)))
		return FALSE;
	if (gnt_opcode_get_bool(op, "readd") && group != NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Cannot pass a node group when a node is being readded");
		return FALSE;
	}
	return TRUE;
}

/* The node's address: the opcode's, else its name's first address. */
static gchar *
add_resolve_ip(const gchar *name, GError **error)
{
	g_autoptr(GResolver) resolver = g_resolver_get_default();
	g_autoptr(GError) local = NULL;
	g_autolist(GInetAddress)
		addresses = g_resolver_lookup_by_name(resolver, name, NULL, &local);

	for (GList *l = addresses; l != NULL; l = l->next) {
		if (g_inet_address_get_family(l->data) == G_SOCKET_FAMILY_IPV4)
			return g_inet_address_to_string(l->data);
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "cannot find an IPv4 address of node '%s'%s%s (give its primary IP)", name,
		    local != NULL ? ": " : "", local != NULL ? local->message : "");
	return NULL;
}

typedef struct {
	const gchar *name;
	const gchar *pip;
	const gchar *sip;
	gchar *conflict;
} IpConflict;

static gboolean
ip_conflict_cb(JsonObject *record, gpointer user_data)
{
	IpConflict *check = user_data;
	const gchar *name = json_object_get_string_member(record, "name");
	const gchar *pip = json_object_get_string_member_with_default(record, "primary_ip", "");
	const gchar *sip = json_object_get_string_member_with_default(record, "secondary_ip", "");

	if (g_strcmp0(name, check->name) == 0)
		return TRUE;
	if (g_strcmp0(pip, check->pip) == 0 || g_strcmp0(sip, check->pip) == 0 ||
	    g_strcmp0(pip, check->sip) == 0 || g_strcmp0(sip, check->sip) == 0) {
		check->conflict = g_strdup(name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
add_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autofree gchar *name = g_ascii_strdown(op_node_name(lu), -1);
	g_autofree gchar *master_name = gnt_config_dup_master_node(lu_config(lu));
	g_autoptr(JsonObject)
		existing = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_NODE, name, NULL);
	g_autoptr(JsonObject) master = gnt_lu_dup_node(lu_config(lu), master_name, error);
	g_autoptr(JsonObject) record = NULL;
	g_autofree gchar *pip = NULL;
	const gchar *sip = gnt_opcode_get_string(op, "secondary_ip");
	gboolean readd = gnt_opcode_get_bool(op, "readd");
	gint64 rpc_port = 0;
	gboolean master_capable = TRUE;
	gboolean vm_capable = TRUE;
	IpConflict conflict = {name};

	if (master == NULL)
		return FALSE;
	if (existing != NULL &&
	    g_strcmp0(json_object_get_string_member(existing, "name"), name) != 0)
		g_clear_pointer(&existing, json_object_unref); /* a short-name match only */
	if (existing != NULL && !readd) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "Node %s is already in the configuration", name);
		return FALSE;
	}
	if (existing == NULL && readd) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "Node %s is not in the configuration", name);
		return FALSE;
	}
	if (readd && g_strcmp0(name, master_name) == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Cannot readd the master node");
		return FALSE;
	}
	pip = gnt_opcode_get_string(op, "primary_ip") != NULL
		      ? g_strdup(gnt_opcode_get_string(op, "primary_ip"))
		      : add_resolve_ip(name, error);
	if (pip == NULL)
		return FALSE;
	if (sip == NULL)
		sip = pip;
	conflict.pip = pip;
	conflict.sip = sip;
	gnt_config_foreach_object(lu_config(lu), GNT_OBJECT_NODE, ip_conflict_cb, &conflict);
	if (conflict.conflict != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "New node ip address(es) conflict with existing node %s",
			    conflict.conflict);
		g_free(conflict.conflict);
		return FALSE;
	}

	record = existing != NULL ? g_steal_pointer(&existing) : json_object_new();
	json_object_set_string_member(record, "name", name);
	json_object_set_string_member(record, "primary_ip", pip);
	json_object_set_string_member(record, "secondary_ip", sip);
	/* not given: the master's port, and a node able to do both */
	if (!gnt_opcode_lookup_int(op, "rpc_port", &rpc_port))
		rpc_port = json_object_get_int_member_with_default(master, "rpc_port",
								   GNT_RPC_DEFAULT_PORT);
	if (!gnt_opcode_lookup_bool(op, "master_capable", &master_capable))
		master_capable = TRUE;
	if (!gnt_opcode_lookup_bool(op, "vm_capable", &vm_capable))
		vm_capable = TRUE;
	json_object_set_int_member(record, "rpc_port", rpc_port);
	json_object_set_boolean_member(record, "master_candidate", FALSE);
	json_object_set_boolean_member(record, "master_capable", master_capable);
	json_object_set_boolean_member(record, "vm_capable", vm_capable);
	/* Ganeti: a readded node has its offline and drained flags reset */
	json_object_set_boolean_member(record, "offline", FALSE);
	json_object_set_boolean_member(record, "drained", FALSE);
	if (!readd) {
		/* Ganeti: the named group, else the only one there is */
		g_autofree gchar *group = gnt_config_lookup_group(
			lu_config(lu), gnt_opcode_get_string(op, "group"), error);

		if (group == NULL)
			return FALSE;
		json_object_set_string_member(record, "group", group);
	}
	if (gnt_opcode_get_param(op, "ndparams") != NULL &&
	    !JSON_NODE_HOLDS_NULL(gnt_opcode_get_param(op, "ndparams")))
		json_object_set_member(
			record, "ndparams",
			gnt_json_node_deep_copy(gnt_opcode_get_param(op, "ndparams")));
	else if (!json_object_has_member(record, "ndparams"))
		json_object_set_object_member(record, "ndparams", json_object_new());
	if (!json_object_has_member(record, "tags"))
		json_object_set_array_member(record, "tags", json_array_new());

	if (!node_check_version(lu, record, error)) {
		g_prefix_error(error, "Can't get version information from node %s: ", name);
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&record), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
add_exec(GntLu *lu, GError **error)
{
	JsonObject *record = gnt_lu_get_data(lu);
	const gchar *name = json_object_get_string_member(record, "name");

	if (json_object_has_member(record, "uuid")) {
		gnt_lu_feedback(lu, "Readding a node, the offline/drained flags were reset");
		/* the record was read under the locks: no stale serial_no check */
		json_object_remove_member(record, "serial_no");
		if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_NODE, record, error))
			return NULL;
	} else {
		gnt_lu_feedback(lu, "Adding node %s (%s, port %" G_GINT64_FORMAT ") to the cluster",
				name, json_object_get_string_member(record, "primary_ip"),
				json_object_get_int_member(record, "rpc_port"));
		if (!gnt_config_add_object(lu_config(lu), GNT_OBJECT_NODE, record, error))
			return NULL;
	}
	return gnt_json_node_new_null();
}

static void
add_declare_locks(GntLu *lu, GntLockSet *locks)
{
	g_autofree gchar *name = g_ascii_strdown(op_node_name(lu), -1);

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE, name, GNT_LOCK_EXCLUSIVE);
}

const GntLuClass gnt_lu_node_add = {
	.check_args = add_check_args,
	.declare_locks = add_declare_locks,
	.check_prereq = add_check_prereq,
	.exec = add_exec,
};

/* ---- OP_NODE_REMOVE ------------------------------------------------------------- */

/* The names of the instances on @node, comma-joined, or NULL. */
static gchar *
node_dup_instance_names(GntConfig *config, JsonObject *node, guint *n_instances)
{
	g_autoptr(GPtrArray)
		names = gnt_config_dup_names_where(config, GNT_OBJECT_INSTANCE, "primary_node",
						   json_object_get_string_member(node, "uuid"));

	*n_instances = names->len;
	if (names->len == 0)
		return NULL;
	return g_strjoinv(", ", (gchar **)names->pdata);
}

static gboolean
remove_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(JsonObject) node = gnt_lu_dup_node(lu_config(lu), op_node_name(lu), error);
	g_autofree gchar *master = gnt_config_dup_master_node(lu_config(lu));
	g_autofree gchar *instances = NULL;
	guint n_instances = 0;

	if (node == NULL)
		return FALSE;
	if (g_strcmp0(json_object_get_string_member(node, "name"), master) == 0) {
		g_set_error_literal(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			"Node is the master node, failover to another node is required");
		return FALSE;
	}
	instances = node_dup_instance_names(lu_config(lu), node, &n_instances);
	if (instances != NULL) {
		g_set_error(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			n_instances == 1
				? "Instance %s is still running on the node, please remove first"
				: "Instances %s are still running on the node, please remove them "
				  "first",
			instances);
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&node), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	JsonObject *node = gnt_lu_get_data(lu);

	gnt_lu_feedback(lu, "Removing node %s from the cluster",
			json_object_get_string_member(node, "name"));
	if (!gnt_config_remove_object(lu_config(lu), GNT_OBJECT_NODE,
				      json_object_get_string_member(node, "uuid"), error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_node_remove = {
	.declare_locks = lock_op_node,
	.check_prereq = remove_check_prereq,
	.exec = remove_exec,
};

/* ---- OP_NODE_SET_PARAMS --------------------------------------------------------- */

/* Ganeti's node roles and their flags (master_candidate, drained, offline). */
typedef enum {
	ROLE_CANDIDATE,
	ROLE_DRAINED,
	ROLE_OFFLINE,
	ROLE_REGULAR,
} NodeRole;

static const gchar *const role_flags[] = {"master_candidate", "drained", "offline"};

static const gboolean role_values[][3] = {
	[ROLE_CANDIDATE] = {TRUE, FALSE, FALSE},
	[ROLE_DRAINED] = {FALSE, TRUE, FALSE},
	[ROLE_OFFLINE] = {FALSE, FALSE, TRUE},
	[ROLE_REGULAR] = {FALSE, FALSE, FALSE},
};

static NodeRole
node_role(JsonObject *node)
{
	if (gnt_record_get_flag(node, "master_candidate", FALSE))
		return ROLE_CANDIDATE;
	if (gnt_record_get_flag(node, "drained", FALSE))
		return ROLE_DRAINED;
	if (gnt_record_get_flag(node, "offline", FALSE))
		return ROLE_OFFLINE;
	return ROLE_REGULAR;
}

/* -1: not given, else FALSE or TRUE */
static gint
op_tristate(const GntOpcode *op, const gchar *name)
{
	JsonNode *value = gnt_opcode_get_param(op, name);

	if (value == NULL || JSON_NODE_HOLDS_NULL(value))
		return -1;
	return json_node_get_boolean(value) ? 1 : 0;
}

static gboolean
set_params_check_args(GntLu *lu, GError **error)
{
	static const gchar *const mods[] = {
		"offline",	"master_candidate", "drained",	"master_capable", "vm_capable",
		"secondary_ip", "ndparams",	    "hv_state", "disk_state",	  "powered",
	};
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	guint n_given = 0;

	for (guint i = 0; i < G_N_ELEMENTS(mods); i++) {
		JsonNode *value = gnt_opcode_get_param(op, mods[i]);
		if (value == NULL || JSON_NODE_HOLDS_NULL(value))
			continue;
		n_given++;
	}
	if (n_given == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Please pass at least one modification");
		return FALSE;
	}
	if ((op_tristate(op, "offline") == 1) + (op_tristate(op, "drained") == 1) +
		    (op_tristate(op, "master_candidate") == 1) >
	    1) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Can't set the node into more than one state at the same time");
		return FALSE;
	}
	for (guint i = 0; i < 3; i++) {
		const gchar *unsupported[] = {"hv_state", "disk_state", "powered"};
		JsonNode *value = gnt_opcode_get_param(op, unsupported[i]);
		gboolean empty = value == NULL || JSON_NODE_HOLDS_NULL(value) ||
				 (JSON_NODE_HOLDS_OBJECT(value) &&
				  json_object_get_size(json_node_get_object(value)) == 0);
		if (!empty) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "changing '%s' of a node is not supported yet", unsupported[i]);
			return FALSE;
		}
	}
	if (gnt_opcode_get_string(op, "secondary_ip") != NULL &&
	    !check_ip(gnt_opcode_get_string(op, "secondary_ip"), "Secondary IP", error))
		return FALSE;
	return TRUE;
}

typedef struct {
	JsonObject *node;
	NodeRole new_role;
} SetParamsCtx;

static void
set_params_ctx_free(SetParamsCtx *ctx)
{
	g_clear_pointer(&ctx->node, json_object_unref);
	g_free(ctx);
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	SetParamsCtx *ctx = g_new0(SetParamsCtx, 1);
	g_autofree gchar *master = gnt_config_dup_master_node(lu_config(lu));
	gint candidate = op_tristate(op, "master_candidate");
	gint drained = op_tristate(op, "drained");
	gint offline = op_tristate(op, "offline");
	gint master_capable = op_tristate(op, "master_capable");
	gint vm_capable = op_tristate(op, "vm_capable");
	NodeRole old_role;
	const gchar *name;

	gnt_lu_set_data(lu, ctx, (GDestroyNotify)set_params_ctx_free);
	ctx->node = gnt_lu_dup_node(lu_config(lu), op_node_name(lu), error);
	if (ctx->node == NULL)
		return FALSE;
	name = json_object_get_string_member(ctx->node, "name");
	if ((candidate >= 0 || drained >= 0 || offline >= 0) && g_strcmp0(name, master) == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "The master role can be changed only via master-failover");
		return FALSE;
	}
	if (candidate == 1 &&
	    (master_capable == 0 ||
	     (master_capable < 0 && !gnt_record_get_flag(ctx->node, "master_capable", FALSE)))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Node %s is not master capable, cannot make it a master candidate",
			    name);
		return FALSE;
	}
	if (master_capable == 0 && g_strcmp0(name, master) == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
				    "Master must remain master capable");
		return FALSE;
	}
	if (vm_capable == 0) {
		guint n_instances = 0;
		g_autofree gchar *instances =
			node_dup_instance_names(lu_config(lu), ctx->node, &n_instances);
		if (instances != NULL) {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
				"Node %s hosts instances (%s), cannot unset the vm_capable flag",
				name, instances);
			return FALSE;
		}
	}
	/* the new role, as Ganeti computes it */
	old_role = node_role(ctx->node);
	if (master_capable == 0 && old_role == ROLE_CANDIDATE) {
		gnt_lu_feedback(lu, "Demoting from master candidate");
		candidate = 0;
	}
	if (candidate == 1)
		ctx->new_role = ROLE_CANDIDATE;
	else if (drained == 1)
		ctx->new_role = ROLE_DRAINED;
	else if (offline == 1)
		ctx->new_role = ROLE_OFFLINE;
	else if (candidate == 0 || drained == 0 || offline == 0)
		ctx->new_role = ROLE_REGULAR;
	else
		ctx->new_role = old_role;
	if (old_role == ROLE_OFFLINE && ctx->new_role != old_role &&
	    !node_check_version(lu, ctx->node, error)) {
		g_prefix_error(
			error,
			"Node %s is being de-offlined but fails to report its version: ", name);
		return FALSE;
	}
	return TRUE;
}

static void
add_change(JsonArray *result, const gchar *param, const gchar *value)
{
	JsonArray *pair = json_array_new();

	json_array_add_string_element(pair, param);
	json_array_add_string_element(pair, value);
	json_array_add_array_element(result, pair);
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	SetParamsCtx *ctx = gnt_lu_get_data(lu);
	JsonObject *node = ctx->node;
	NodeRole old_role = node_role(node);
	g_autoptr(JsonArray) result = json_array_new();
	JsonNode *ndparams = gnt_opcode_get_param(op, "ndparams");
	const gchar *capabilities[] = {"master_capable", "vm_capable"};

	if (ndparams != NULL && JSON_NODE_HOLDS_OBJECT(ndparams)) {
		JsonObject *current = json_object_has_member(node, "ndparams")
					      ? json_object_get_object_member(node, "ndparams")
					      : NULL;
		JsonObject *merged = current != NULL ? gnt_json_object_deep_copy(current)
						     : json_object_new();

		gnt_json_object_overlay(merged, json_node_get_object(ndparams));
		json_object_set_object_member(node, "ndparams", merged);
	}
	for (guint i = 0; i < G_N_ELEMENTS(capabilities); i++) {
		gint value = op_tristate(op, capabilities[i]);
		if (value < 0)
			continue;
		json_object_set_boolean_member(node, capabilities[i], value);
		add_change(result, capabilities[i], value ? "True" : "False");
	}
	if (gnt_opcode_get_string(op, "secondary_ip") != NULL) {
		json_object_set_string_member(node, "secondary_ip",
					      gnt_opcode_get_string(op, "secondary_ip"));
		add_change(result, "secondary_ip", gnt_opcode_get_string(op, "secondary_ip"));
	}
	if (ctx->new_role != old_role) {
		for (guint i = 0; i < G_N_ELEMENTS(role_flags); i++) {
			gboolean value = role_values[ctx->new_role][i];
			if (role_values[old_role][i] != value)
				add_change(result, role_flags[i], value ? "True" : "False");
			json_object_set_boolean_member(node, role_flags[i], value);
		}
	}
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_NODE, node, error))
		return NULL;
	return gnt_json_node_new_array(g_steal_pointer(&result));
}

const GntLuClass gnt_lu_node_set_params = {
	.check_args = set_params_check_args,
	.declare_locks = lock_op_node,
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};
