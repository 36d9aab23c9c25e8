/* The node-RPC procedure table, shared by the master's typed calls and
 * noded's server, and its encoder and decoder. */
#include "gnt-rpc-procedures.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

#define DAY_S		(24 * 3600)
#define MAX_DEBUG_LEVEL 10

/* The arguments many rows share. */
#define ARG_SPEC                                                                                   \
	{                                                                                          \
		.name = "spec", .type = GNT_RPC_ARG_SPEC                                           \
	}
#define ARG_STRING(arg_name)                                                                       \
	{                                                                                          \
		.name = (arg_name), .type = GNT_RPC_ARG_STRING                                     \
	}
#define ARG_DEBUG_LEVEL                                                                            \
	{                                                                                          \
		.name = "debug_level", .type = GNT_RPC_ARG_UINT, .max = MAX_DEBUG_LEVEL            \
	}

/* Sorted as doc/node-rpc.md lists them. */
const GntRpcProcedureDef gnt_rpc_procedure_defs[] = {
	/* every noded (gnt_rpc_node_add_procedures) */
	{.name = "version", .timeout_s = 60},
	{.name = "test_delay",
	 .timeout_s = 60,
	 .args = {{.name = "duration", .type = GNT_RPC_ARG_NUMBER, .max = DAY_S}}},
	{.name = "join_status", .timeout_s = 60},
	/* the master candidate's join endpoint (rpc/gnt-join.h) */
	{.name = "join",
	 .timeout_s = 60,
	 .flags = GNT_RPC_PROCEDURE_PUBLIC,
	 .args = {ARG_STRING("token_id"),
		  ARG_STRING("node_name"),
		  ARG_STRING("certificate_request"),
		  ARG_STRING("proof"),
		  {.name = "addresses", .type = GNT_RPC_ARG_STRV, .optional = TRUE}}},
	/* the node and its instances */
	{.name = "node_info",
	 .timeout_s = 60,
	 .args = {{.name = "hypervisors", .type = GNT_RPC_ARG_STRV},
		  {.name = "storage", .type = GNT_RPC_ARG_OBJECT}}},
	{.name = "instance_list",
	 .timeout_s = 60,
	 .args = {{.name = "hypervisors", .type = GNT_RPC_ARG_STRV}}},
	{.name = "instance_start",
	 .timeout_s = 120,
	 .args = {ARG_SPEC, {.name = "paused", .type = GNT_RPC_ARG_BOOL}}},
	/* the guest's timeout more */
	{.name = "instance_shutdown",
	 .timeout_s = 60,
	 .timeout_arg = "timeout",
	 .args = {ARG_SPEC, {.name = "timeout", .type = GNT_RPC_ARG_UINT, .max = DAY_S}}},
	/* a full reboot is a shutdown (the guest's timeout), then a start */
	{.name = "instance_reboot",
	 .timeout_s = 60 + 120,
	 .timeout_arg = "timeout",
	 .args = {ARG_SPEC,
		  ARG_STRING("reboot_type"),
		  {.name = "timeout", .type = GNT_RPC_ARG_UINT, .max = DAY_S}}},
	{.name = "instance_console",
	 .timeout_s = 60,
	 .args = {ARG_SPEC, {.name = "lines", .type = GNT_RPC_ARG_UINT, .max = 10000}}},
	/* disks: creating and growing wait for qemu-img's own limit
	 * (doc/storage.md) */
	{.name = "blockdev_create", .timeout_s = 600, .args = {ARG_SPEC}},
	{.name = "blockdev_remove", .timeout_s = 60, .args = {ARG_SPEC}},
	{.name = "blockdev_add",
	 .timeout_s = 600,
	 .args = {ARG_SPEC, {.name = "disk_index", .type = GNT_RPC_ARG_UINT, .max = G_MAXINT}}},
	{.name = "blockdev_grow",
	 .timeout_s = 600,
	 .args = {ARG_SPEC,
		  {.name = "disk_index", .type = GNT_RPC_ARG_UINT, .max = G_MAXINT},
		  {.name = "new_size", .type = GNT_RPC_ARG_UINT, .max = G_MAXUINT}}},
	{.name = "blockdev_assemble", .timeout_s = 60, .args = {ARG_SPEC}},
	{.name = "blockdev_rename", .timeout_s = 60, .args = {ARG_SPEC, ARG_STRING("old_name")}},
	/* OS definitions and their scripts */
	{.name = "os_diagnose",
	 .timeout_s = 60,
	 .args = {{.name = "search_path", .type = GNT_RPC_ARG_STRV}}},
	/* Ganeti's instance_os_add; a master that predates reinstall sends
	 * the first three */
	{.name = "os_create",
	 .timeout_s = 3600,
	 .args = {ARG_SPEC,
		  {.name = "osparams_secret", .type = GNT_RPC_ARG_SECRETS, .secret = TRUE},
		  ARG_DEBUG_LEVEL,
		  {.name = "reinstall", .type = GNT_RPC_ARG_BOOL, .optional = TRUE}}},
	{.name = "os_rename",
	 .timeout_s = 600,
	 .args = {ARG_SPEC, ARG_STRING("old_name"), ARG_DEBUG_LEVEL}},
	/* osparams: public and private merged, with the secrets' placeholders */
	{.name = "os_validate",
	 .timeout_s = 60,
	 .args = {{.name = "search_path", .type = GNT_RPC_ARG_STRV},
		  ARG_STRING("os_name"),
		  {.name = "osparams", .type = GNT_RPC_ARG_OBJECT_OR_NULL, .secret = TRUE},
		  {.name = "force_variant", .type = GNT_RPC_ARG_BOOL}}},
	/* exports (doc/backup.md); a disk's script, however large the disk */
	{.name = "export_disk",
	 .timeout_s = 6 * 3600,
	 .args = {ARG_SPEC,
		  {.name = "disk_index", .type = GNT_RPC_ARG_UINT, .max = G_MAXUINT16},
		  ARG_STRING("compress"),
		  ARG_DEBUG_LEVEL}},
	{.name = "export_finalize", .timeout_s = 60, .args = {ARG_SPEC, ARG_STRING("compress")}},
	{.name = "export_list", .timeout_s = 60},
	{.name = "export_info", .timeout_s = 60, .args = {ARG_STRING("path")}},
	{.name = "export_remove", .timeout_s = 60, .args = {ARG_STRING("name")}},
	{.name = "import_disk",
	 .timeout_s = 6 * 3600,
	 .args = {ARG_SPEC,
		  {.name = "disk_index", .type = GNT_RPC_ARG_UINT, .max = G_MAXUINT16},
		  ARG_STRING("src_path"),
		  ARG_STRING("dump"),
		  ARG_STRING("compress"),
		  ARG_DEBUG_LEVEL}},
	/* install: images and the appliance (doc/images.md, doc/appliance.md);
	 * an image however large, its server however slow */
	{.name = "image_write",
	 .timeout_s = 6 * 3600,
	 .args = {ARG_SPEC,
		  ARG_STRING("image"),
		  {.name = "sha256", .type = GNT_RPC_ARG_STRING_OR_NULL},
		  ARG_STRING("token"),
		  /* the artifact cache's cap (image_cache_size); 0: not cached */
		  {.name = "cache_bytes",
		   .type = GNT_RPC_ARG_UINT,
		   .max = G_MAXINT64,
		   .optional = TRUE}}},
	{.name = "image_write_status", .timeout_s = 60, .args = {ARG_STRING("token")}},
	/* install sessions (doc/appliance.md "Sessions"): the start answers
	 * at once, the master follows the session with long polls */
	{.name = "appliance_start",
	 .timeout_s = 600,
	 .args = {ARG_SPEC,
		  ARG_STRING("token"),
		  {.name = "options", .type = GNT_RPC_ARG_OBJECT, .secret = TRUE}}},
	/* the in-band steps the node's appliance can run (its steps.json) */
	{.name = "appliance_catalogue", .timeout_s = 30},
	/* kickstart installs (doc/kickstart.md "Running the installer") */
	{.name = "installer_start",
	 .timeout_s = 600,
	 .args = {ARG_SPEC,
		  ARG_STRING("token"),
		  {.name = "options", .type = GNT_RPC_ARG_OBJECT, .secret = TRUE}}},
	{.name = "session_wait",
	 .timeout_s = 30,
	 .timeout_arg = "wait_s",
	 .args = {ARG_STRING("token"),
		  {.name = "since", .type = GNT_RPC_ARG_UINT, .max = G_MAXINT64},
		  {.name = "wait_s", .type = GNT_RPC_ARG_UINT, .max = 300}}},
	/* an abort waits for the session's teardown */
	{.name = "session_abort", .timeout_s = 300, .args = {ARG_STRING("token")}},
	/* metad's records (doc/metad.md): the record holds the secrets' placeholder */
	{.name = "metad_push",
	 .timeout_s = 60,
	 .args = {ARG_STRING("name"),
		  {.name = "record", .type = GNT_RPC_ARG_OBJECT, .secret = TRUE}}},
	{.name = "metad_remove", .timeout_s = 60, .args = {ARG_STRING("name")}},
	/* a node slower to list its volumes, domains and OS definitions
	 * counts as not answering */
	{.name = "node_verify",
	 .timeout_s = 60,
	 .args = {{.name = "parameters", .type = GNT_RPC_ARG_OBJECT}}},
	{NULL},
};

const GntRpcProcedureDef *
gnt_rpc_procedure_def_lookup(const gchar *name)
{
	g_return_val_if_fail(name != NULL, NULL);

	for (const GntRpcProcedureDef *def = gnt_rpc_procedure_defs; def->name != NULL; def++) {
		if (strcmp(def->name, name) == 0)
			return def;
	}
	return NULL;
}

guint
gnt_rpc_procedure_def_get_n_args(const GntRpcProcedureDef *def)
{
	guint n = 0;

	while (n < GNT_RPC_MAX_ARGS && def->args[n].name != NULL)
		n++;
	return n;
}

/* The arguments that must be sent. */
static guint
get_n_required(const GntRpcProcedureDef *def)
{
	guint n = 0;

	while (n < GNT_RPC_MAX_ARGS && def->args[n].name != NULL && !def->args[n].optional)
		n++;
	return n;
}

gboolean
gnt_rpc_procedure_def_has_secrets(const GntRpcProcedureDef *def)
{
	for (guint i = 0; i < GNT_RPC_MAX_ARGS && def->args[i].name != NULL; i++) {
		if (def->args[i].secret)
			return TRUE;
	}
	return FALSE;
}

gchar *
gnt_rpc_procedure_def_dup_usage(const GntRpcProcedureDef *def)
{
	GString *usage = g_string_new(NULL);
	guint n = gnt_rpc_procedure_def_get_n_args(def);

	for (guint i = 0; i < n; i++) {
		if (def->args[i].optional)
			g_string_append_c(usage, '[');
		g_string_append_printf(usage, "%s%s", i > 0 ? ", " : "", def->args[i].name);
	}
	for (guint i = get_n_required(def); i < n; i++)
		g_string_append_c(usage, ']');
	if (n == 0)
		g_string_append(usage, "none");
	return g_string_free(usage, FALSE);
}

/* The index of argument @name of @def, or -1. */
static gint
find_arg(const GntRpcProcedureDef *def, const gchar *name)
{
	for (guint i = 0; i < GNT_RPC_MAX_ARGS && def->args[i].name != NULL; i++) {
		if (strcmp(def->args[i].name, name) == 0)
			return (gint)i;
	}
	return -1;
}

gboolean
gnt_rpc_procedure_def_check(const GntRpcProcedureDef *def, GError **error)
{
	guint n = gnt_rpc_procedure_def_get_n_args(def);
	gint timeout_index;

	if (def->name == NULL || def->name[0] == '\0' ||
	    strspn(def->name, "abcdefghijklmnopqrstuvwxyz_") != strlen(def->name)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "procedure '%s': the name must be lower-case letters and '_'",
			    def->name != NULL ? def->name : "(null)");
		return FALSE;
	}
	if (def->timeout_s == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "procedure '%s' has no timeout",
			    def->name);
		return FALSE;
	}
	if (def->args[GNT_RPC_MAX_ARGS].name != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "procedure '%s' has more than %d arguments", def->name,
			    GNT_RPC_MAX_ARGS);
		return FALSE;
	}
	for (guint i = 0; i < n; i++) {
		const GntRpcArgDef *arg = &def->args[i];

		if ((guint)arg->type > GNT_RPC_ARG_SECRETS) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "procedure '%s': argument '%s' has no known type", def->name,
				    arg->name);
			return FALSE;
		}
		if (find_arg(def, arg->name) != (gint)i) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "procedure '%s': argument '%s' is named twice", def->name,
				    arg->name);
			return FALSE;
		}
		if ((arg->type == GNT_RPC_ARG_UINT || arg->type == GNT_RPC_ARG_NUMBER) ==
		    (arg->max == 0)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "procedure '%s': argument '%s': a maximum belongs to numbers "
				    "and only to them",
				    def->name, arg->name);
			return FALSE;
		}
		if (arg->type == GNT_RPC_ARG_SECRETS && !arg->secret) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "procedure '%s': argument '%s' holds secrets but is not marked "
				    "secret",
				    def->name, arg->name);
			return FALSE;
		}
		if (i >= get_n_required(def) && !arg->optional) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "procedure '%s': argument '%s' follows an optional one",
				    def->name, arg->name);
			return FALSE;
		}
	}
	timeout_index = def->timeout_arg != NULL ? find_arg(def, def->timeout_arg) : 0;
	if (timeout_index < 0 ||
	    (def->timeout_arg != NULL && def->args[timeout_index].type != GNT_RPC_ARG_UINT)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "procedure '%s': timeout_arg '%s' is no integer argument", def->name,
			    def->timeout_arg);
		return FALSE;
	}
	return TRUE;
}

/* --- encoding ------------------------------------------------------------ */

JsonArray *
gnt_rpc_strv_to_array(const gchar *const *strv)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
		json_array_add_string_element(array, strv[i]);
	return array;
}

/* A value that does not fit its row is the caller's mistake: critical,
 * and the argument is sent as null (the node refuses it, naming it). */
static gboolean
value_fits(const GntRpcProcedureDef *def, const GntRpcArgDef *arg, gboolean fits)
{
	if (!fits)
		g_critical("procedure '%s': the value of argument '%s' does not fit its row",
			   def->name, arg->name);
	return fits;
}

static void
encode_value(JsonArray *args, const GntRpcProcedureDef *def, const GntRpcArgDef *arg,
	     const GntRpcValue *value)
{
	switch (arg->type) {
	case GNT_RPC_ARG_BOOL:
		json_array_add_boolean_element(args, value->b);
		return;
	case GNT_RPC_ARG_UINT:
		if (value_fits(def, arg, value->u <= arg->max))
			json_array_add_int_element(args, (gint64)value->u);
		else
			json_array_add_null_element(args);
		return;
	case GNT_RPC_ARG_NUMBER:
		json_array_add_double_element(args, value->d);
		return;
	case GNT_RPC_ARG_STRING:
	case GNT_RPC_ARG_STRING_OR_NULL:
		if (value_fits(def, arg,
			       value->s != NULL || arg->type == GNT_RPC_ARG_STRING_OR_NULL) &&
		    value->s != NULL)
			json_array_add_string_element(args, value->s);
		else
			json_array_add_null_element(args);
		return;
	case GNT_RPC_ARG_STRV:
		json_array_add_array_element(args, gnt_rpc_strv_to_array(value->strv));
		return;
	case GNT_RPC_ARG_OBJECT:
	case GNT_RPC_ARG_OBJECT_OR_NULL:
	case GNT_RPC_ARG_SPEC:
		if (value_fits(def, arg,
			       value->obj != NULL || arg->type == GNT_RPC_ARG_OBJECT_OR_NULL) &&
		    value->obj != NULL)
			json_array_add_object_element(args, json_object_ref(value->obj));
		else
			json_array_add_null_element(args);
		return;
	case GNT_RPC_ARG_SECRETS:
		json_array_add_element(args, value->secrets != NULL
						     ? gnt_secret_dict_placeholder_all()
						     : json_node_new(JSON_NODE_NULL));
		return;
	}
	g_critical("procedure '%s': argument '%s' has no known type", def->name, arg->name);
	json_array_add_null_element(args);
}

JsonArray *
gnt_rpc_args_encode(const GntRpcProcedureDef *def, const GntRpcValue *values, guint n_values)
{
	JsonArray *args = json_array_new();

	g_return_val_if_fail(def != NULL, args);
	g_return_val_if_fail(n_values >= get_n_required(def) &&
				     n_values <= gnt_rpc_procedure_def_get_n_args(def),
			     args);
	g_return_val_if_fail(n_values == 0 || values != NULL, args);

	for (guint i = 0; i < n_values; i++)
		encode_value(args, def, &def->args[i], &values[i]);
	return args;
}

guint
gnt_rpc_procedure_def_get_timeout(const GntRpcProcedureDef *def, const GntRpcValue *values,
				  guint n_values)
{
	gint index = def->timeout_arg != NULL ? find_arg(def, def->timeout_arg) : -1;

	if (index < 0 || (guint)index >= n_values)
		return def->timeout_s;
	return def->timeout_s + (guint)MIN(values[index].u, (guint64)G_MAXUINT - def->timeout_s);
}

const GntSecretDict *
gnt_rpc_values_get_secrets(const GntRpcProcedureDef *def, const GntRpcValue *values, guint n_values)
{
	for (guint i = 0; i < n_values && def->args[i].name != NULL; i++) {
		if (def->args[i].type == GNT_RPC_ARG_SECRETS)
			return values[i].secrets;
	}
	return NULL;
}

/* --- decoding ------------------------------------------------------------ */

struct _GntRpcArgs {
	const GntRpcProcedureDef *def;
	JsonArray *array;
	guint n; /* sent */
	GStrv strv[GNT_RPC_MAX_ARGS];
};

void
gnt_rpc_args_free(GntRpcArgs *self)
{
	if (self == NULL)
		return;
	for (guint i = 0; i < GNT_RPC_MAX_ARGS; i++)
		g_strfreev(self->strv[i]);
	g_clear_pointer(&self->array, json_array_unref);
	g_free(self);
}

static void
set_type_error(GError **error, const GntRpcArgDef *arg, const gchar *type, JsonNode *node)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be %s, not %s", arg->name, type,
		    gnt_json_node_type_name(node));
}

GStrv
gnt_rpc_strv_from_json(JsonNode *node, const gchar *what, GError **error)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	JsonArray *array;

	g_return_val_if_fail(what != NULL, NULL);

	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s must be a list of strings, not %s", what,
			    node != NULL ? gnt_json_node_type_name(node) : "missing");
		return NULL;
	}
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		g_autofree gchar *element = g_strdup_printf("%s element %u", what, i);
		const gchar *value = NULL;

		if (!gnt_json_node_get_string(json_array_get_element(array, i), element, &value,
					      error))
			return NULL;
		g_strv_builder_add(builder, value);
	}
	return g_strv_builder_end(builder);
}

static gboolean
decode_number(const GntRpcArgDef *arg, JsonNode *node, GError **error)
{
	g_autofree gchar *what = g_strdup_printf("'%s'", arg->name);
	gdouble number = 0;
	gint64 integer = 0;

	if (arg->type == GNT_RPC_ARG_NUMBER) {
		if (!gnt_json_node_get_number(node, what, &number, error))
			return FALSE;
		if (number >= 0 && number <= (gdouble)arg->max)
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' must be 0 to %" G_GUINT64_FORMAT ", not %g", arg->name, arg->max,
			    number);
		return FALSE;
	}
	if (!gnt_json_node_get_int(node, what, &integer, error))
		return FALSE;
	if (integer >= 0 && (guint64)integer <= arg->max)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "'%s' must be 0 to %" G_GUINT64_FORMAT ", not %" G_GINT64_FORMAT, arg->name,
		    arg->max, integer);
	return FALSE;
}

static gboolean
decode_value(GntRpcArgs *self, guint index, GError **error)
{
	const GntRpcArgDef *arg = &self->def->args[index];
	JsonNode *node = json_array_get_element(self->array, index);
	gboolean is_null = JSON_NODE_HOLDS_NULL(node);

	switch (arg->type) {
	case GNT_RPC_ARG_BOOL:
		if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_BOOLEAN)
			return TRUE;
		set_type_error(error, arg, "a boolean", node);
		return FALSE;
	case GNT_RPC_ARG_UINT:
	case GNT_RPC_ARG_NUMBER:
		return decode_number(arg, node, error);
	case GNT_RPC_ARG_STRING:
	case GNT_RPC_ARG_STRING_OR_NULL:
		if ((is_null && arg->type == GNT_RPC_ARG_STRING_OR_NULL) ||
		    (JSON_NODE_HOLDS_VALUE(node) &&
		     json_node_get_value_type(node) == G_TYPE_STRING))
			return TRUE;
		set_type_error(error, arg,
			       arg->type == GNT_RPC_ARG_STRING ? "a string" : "a string or null",
			       node);
		return FALSE;
	case GNT_RPC_ARG_STRV: {
		g_autofree gchar *what = g_strdup_printf("'%s'", arg->name);

		self->strv[index] = gnt_rpc_strv_from_json(node, what, error);
		return self->strv[index] != NULL;
	}
	case GNT_RPC_ARG_OBJECT:
	case GNT_RPC_ARG_SPEC:
		if (JSON_NODE_HOLDS_OBJECT(node))
			return TRUE;
		set_type_error(error, arg, "an object", node);
		return FALSE;
	case GNT_RPC_ARG_OBJECT_OR_NULL:
	case GNT_RPC_ARG_SECRETS:
		if (is_null || JSON_NODE_HOLDS_OBJECT(node))
			return TRUE;
		set_type_error(error, arg, "an object or null", node);
		return FALSE;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "'%s' has no known type", arg->name);
	return FALSE;
}

GntRpcArgs *
gnt_rpc_args_decode(const GntRpcProcedureDef *def, JsonArray *array, GError **error)
{
	g_autoptr(GntRpcArgs) self = NULL;
	guint n_required, n_args, n;

	g_return_val_if_fail(def != NULL && array != NULL, NULL);

	n_required = get_n_required(def);
	n_args = gnt_rpc_procedure_def_get_n_args(def);
	n = json_array_get_length(array);
	if (n < n_required || n > n_args) {
		g_autofree gchar *usage = gnt_rpc_procedure_def_dup_usage(def);
		g_autofree gchar *count = n_required == n_args
						  ? g_strdup_printf("%u", n_args)
						  : g_strdup_printf("%u to %u", n_required, n_args);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "takes %s argument%s (%s), not %u",
			    count, n_args == 1 ? "" : "s", usage, n);
		return NULL;
	}
	self = g_new0(GntRpcArgs, 1);
	self->def = def;
	self->array = json_array_ref(array);
	self->n = n;
	for (guint i = 0; i < n; i++) {
		if (!decode_value(self, i, error))
			return NULL;
	}
	return g_steal_pointer(&self);
}

const GntRpcProcedureDef *
gnt_rpc_args_get_def(const GntRpcArgs *self)
{
	return self->def;
}

JsonArray *
gnt_rpc_args_get_array(const GntRpcArgs *self)
{
	return self->array;
}

#define TYPE(t) (1u << (t))

/* The index of @name, a programmer error unless its type is in @types
 * (TYPE() bits); -1 then. */
static gint
lookup(const GntRpcArgs *self, const gchar *name, guint types)
{
	gint index;

	g_return_val_if_fail(self != NULL && name != NULL, -1);
	index = find_arg(self->def, name);
	if (index < 0 || !(TYPE(self->def->args[index].type) & types)) {
		g_critical("procedure '%s' has no argument '%s' of that type", self->def->name,
			   name);
		return -1;
	}
	return index;
}

gboolean
gnt_rpc_args_has(const GntRpcArgs *self, const gchar *name)
{
	gint index = find_arg(self->def, name);

	g_return_val_if_fail(index >= 0, FALSE);
	return (guint)index < self->n;
}

/* The sent JSON value of argument @name, or NULL for none or null. */
static JsonNode *
get_node(const GntRpcArgs *self, const gchar *name, guint types)
{
	gint index = lookup(self, name, types);
	JsonNode *node;

	if (index < 0 || (guint)index >= self->n)
		return NULL;
	node = json_array_get_element(self->array, (guint)index);
	return JSON_NODE_HOLDS_NULL(node) ? NULL : node;
}

gboolean
gnt_rpc_args_get_bool(const GntRpcArgs *self, const gchar *name)
{
	JsonNode *node = get_node(self, name, TYPE(GNT_RPC_ARG_BOOL));

	return node != NULL && json_node_get_boolean(node);
}

guint64
gnt_rpc_args_get_uint(const GntRpcArgs *self, const gchar *name)
{
	JsonNode *node = get_node(self, name, TYPE(GNT_RPC_ARG_UINT));

	return node != NULL ? (guint64)json_node_get_int(node) : 0;
}

gdouble
gnt_rpc_args_get_number(const GntRpcArgs *self, const gchar *name)
{
	JsonNode *node = get_node(self, name, TYPE(GNT_RPC_ARG_NUMBER));

	return node != NULL ? json_node_get_double(node) : 0;
}

const gchar *
gnt_rpc_args_get_string(const GntRpcArgs *self, const gchar *name)
{
	JsonNode *node =
		get_node(self, name, TYPE(GNT_RPC_ARG_STRING) | TYPE(GNT_RPC_ARG_STRING_OR_NULL));

	return node != NULL ? json_node_get_string(node) : NULL;
}

const gchar *const *
gnt_rpc_args_get_strv(const GntRpcArgs *self, const gchar *name)
{
	gint index = lookup(self, name, TYPE(GNT_RPC_ARG_STRV));

	if (index < 0 || (guint)index >= self->n)
		return NULL;
	return (const gchar *const *)self->strv[index];
}

JsonObject *
gnt_rpc_args_get_object(const GntRpcArgs *self, const gchar *name)
{
	JsonNode *node = get_node(self, name,
				  TYPE(GNT_RPC_ARG_OBJECT) | TYPE(GNT_RPC_ARG_OBJECT_OR_NULL) |
					  TYPE(GNT_RPC_ARG_SPEC) | TYPE(GNT_RPC_ARG_SECRETS));

	return node != NULL ? json_node_get_object(node) : NULL;
}
