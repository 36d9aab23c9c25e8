/*
 * The appliance's in-band steps in metad (gnt-metadata-steps.h): the
 * session's queue that the agent works through, the results it posts, its
 * catalogue. All of it is what an untrusted guest sends: bounded, strict.
 */
#include "gnt-metadata-steps.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metadata.h"

#define NAME_CHARS	 "abcdefghijklmnopqrstuvwxyz0123456789_"
#define STEP_TIMEOUT_MAX 86400

typedef struct {
	gchar *id;
	gchar *step;
	JsonObject *args;
	gint64 timeout;
} Step;

struct _GntMetadataSteps {
	GPtrArray *steps; /* Step, in the order they run */
	guint next;	  /* the first step not handed out */
	gboolean running; /* steps[next - 1] was handed out, no result yet */
	gboolean failed;  /* a step failed: power off */
	gchar *token;	  /* this boot's; NULL: none asked for */
};

static void
step_free(Step *self)
{
	g_free(self->id);
	g_free(self->step);
	g_clear_pointer(&self->args, json_object_unref);
	g_free(self);
}

static gboolean
is_name(const gchar *text)
{
	gsize len = text != NULL ? strlen(text) : 0;

	return len > 0 && len <= GNT_METADATA_PROGRESS_NAME_MAX && strspn(text, NAME_CHARS) == len;
}

static gboolean
is_id(const gchar *text)
{
	gsize len = text != NULL ? strlen(text) : 0;

	if (len == 0 || len > GNT_METADATA_STEP_ID_MAX)
		return FALSE;
	for (const gchar *p = text; *p != '\0'; p++) {
		if (*p < 0x21 || *p > 0x7e || *p == '\'')
			return FALSE;
	}
	return TRUE;
}

static Step *
step_from_json(JsonNode *node, guint index, GError **error)
{
	JsonObject *obj = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
	const gchar *id = NULL, *name = NULL;
	JsonObject *args = NULL;
	gint64 timeout = 0;
	Step *step;

	if (obj == NULL || !gnt_json_get_string(obj, "id", &id, error) ||
	    !gnt_json_get_string(obj, "step", &name, error) ||
	    !gnt_json_get_object(obj, "args", &args, error) ||
	    !gnt_json_get_int(obj, "timeout", &timeout, error)) {
		if (obj == NULL)
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "must be an object");
		g_prefix_error(error, "install_steps item %u: ", index);
		return NULL;
	}
	if (!is_id(id) || !is_name(name) || timeout < 1 || timeout > STEP_TIMEOUT_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "install_steps item %u: 'id' must be 1..%d printable bytes without "
			    "quotes, 'step' [a-z0-9_]{1,%d}, 'timeout' 1..%d seconds",
			    index, GNT_METADATA_STEP_ID_MAX, GNT_METADATA_PROGRESS_NAME_MAX,
			    STEP_TIMEOUT_MAX);
		return NULL;
	}
	step = g_new0(Step, 1);
	step->id = g_strdup(id);
	step->step = g_strdup(name);
	step->args = gnt_json_object_deep_copy(args);
	step->timeout = timeout;
	return step;
}

GntMetadataSteps *
gnt_metadata_steps_new(JsonArray *install_steps, GError **error)
{
	g_autoptr(GPtrArray) steps = g_ptr_array_new_with_free_func((GDestroyNotify)step_free);
	GntMetadataSteps *self;

	g_return_val_if_fail(install_steps != NULL, NULL);
	if (json_array_get_length(install_steps) > GNT_METADATA_STEPS_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "install_steps: more than %d steps", GNT_METADATA_STEPS_MAX);
		return NULL;
	}
	for (guint i = 0; i < json_array_get_length(install_steps); i++) {
		Step *step = step_from_json(json_array_get_element(install_steps, i), i, error);

		if (step == NULL)
			return NULL;
		g_ptr_array_add(steps, step);
	}
	self = g_new0(GntMetadataSteps, 1);
	self->steps = g_steal_pointer(&steps);
	return self;
}

void
gnt_metadata_steps_free(GntMetadataSteps *self)
{
	if (self == NULL)
		return;
	g_ptr_array_unref(self->steps);
	g_free(self->token);
	g_free(self);
}

void
gnt_metadata_append_shell_assignment(GString *out, const gchar *name, const gchar *value)
{
	g_string_append_printf(out, "%s='", name);
	for (const gchar *p = value; *p != '\0'; p++) {
		if (*p == '\'')
			g_string_append(out, "'\\''");
		else
			g_string_append_c(out, *p);
	}
	g_string_append(out, "'\n");
}

/* An argument's value for the shell: a string as it is, any other JSON
 * value as its JSON text. (transfer full) */
static gchar *
arg_text(JsonNode *value)
{
	if (JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_STRING)
		return g_strdup(json_node_get_string(value));
	return gnt_json_to_string(value);
}

gchar *
gnt_metadata_steps_next(GntMetadataSteps *self, const gchar **started_step,
			const gchar **started_id)
{
	GString *out = g_string_new(NULL);
	g_autoptr(JsonNode) args = NULL;
	g_autofree gchar *args_text = NULL;
	g_autofree gchar *timeout = NULL;
	g_autofree gchar *id_query = NULL;
	g_autoptr(GString) names = g_string_new(NULL);
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;
	Step *step;

	*started_step = *started_id = NULL;
	if (!self->running) {
		if (self->failed || self->next >= self->steps->len) {
			gnt_metadata_append_shell_assignment(out, "GANTRY_ACTION", "poweroff");
			return g_string_free(out, FALSE);
		}
		self->next++;
		self->running = TRUE;
		step = g_ptr_array_index(self->steps, self->next - 1);
		*started_step = step->step;
		*started_id = step->id;
	}
	step = g_ptr_array_index(self->steps, self->next - 1);
	args = gnt_json_node_new_object(json_object_ref(step->args));
	args_text = gnt_json_to_string(args);
	timeout = g_strdup_printf("%" G_GINT64_FORMAT, step->timeout);
	gnt_metadata_append_shell_assignment(out, "GANTRY_ACTION", "run");
	gnt_metadata_append_shell_assignment(out, "GANTRY_STEP_ID", step->id);
	/* what the result's query carries, encoded here: each process costs the
	 * agent tens of ms under TCG */
	id_query = g_uri_escape_string(step->id, NULL, FALSE);
	gnt_metadata_append_shell_assignment(out, "GANTRY_STEP_ID_QUERY", id_query);
	gnt_metadata_append_shell_assignment(out, "GANTRY_STEP", step->step);
	gnt_metadata_append_shell_assignment(out, "GANTRY_STEP_TIMEOUT", timeout);
	gnt_metadata_append_shell_assignment(out, "GANTRY_STEP_ARGS", args_text);
	json_object_iter_init_ordered(&iter, step->args);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		g_autofree gchar *upper = NULL;
		g_autofree gchar *name = NULL;
		g_autofree gchar *text = NULL;

		/* the registry's argument names are [a-z0-9_]: other keys are
		 * only in GANTRY_STEP_ARGS */
		if (!is_name(key))
			continue;
		upper = g_ascii_strup(key, -1);
		name = g_strconcat("GANTRY_ARG_", upper, NULL);
		text = arg_text(value);
		gnt_metadata_append_shell_assignment(out, name, text);
		g_string_append_printf(names, "%s%s", names->len > 0 ? " " : "", name);
	}
	/* which to unset before the next step, without a process */
	gnt_metadata_append_shell_assignment(out, "GANTRY_ARG_NAMES", names->str);
	return g_string_free(out, FALSE);
}

void
gnt_metadata_step_result_free(GntMetadataStepResult *self)
{
	if (self == NULL)
		return;
	g_free(self->id);
	g_free(self->detail);
	g_free(self->output);
	g_free(self);
}

/* The last @max bytes of @data, valid UTF-8 (a character cut at the start
 * becomes U+FFFD). (transfer full) */
static gchar *
dup_tail(const gchar *data, gsize len, gsize max)
{
	gsize skip = len > max ? len - max : 0;

	return g_utf8_make_valid(data != NULL ? data + skip : "",
				 data != NULL ? (gssize)(len - skip) : 0);
}

GntMetadataStepResult *
gnt_metadata_step_result_parse(const gchar *id, const gchar *status, const gchar *detail,
			       const gchar *reboot, const gchar *body, gsize body_len,
			       GError **error)
{
	g_autoptr(GntMetadataStepResult) result = g_new0(GntMetadataStepResult, 1);

	if (!is_id(id)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "step result: 'id' must be 1..%d printable bytes without quotes",
			    GNT_METADATA_STEP_ID_MAX);
		return NULL;
	}
	if (g_strcmp0(status, "done") != 0 && g_strcmp0(status, "failed") != 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "step result: 'status' must be done or failed");
		return NULL;
	}
	if (reboot != NULL && !g_str_equal(reboot, "0") && !g_str_equal(reboot, "1")) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "step result: 'reboot' must be 0 or 1");
		return NULL;
	}
	if (detail != NULL && strlen(detail) > GNT_METADATA_PROGRESS_DETAIL_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "step result: 'detail' is longer than %d bytes",
			    GNT_METADATA_PROGRESS_DETAIL_MAX);
		return NULL;
	}
	result->id = g_strdup(id);
	result->ok = g_str_equal(status, "done");
	result->detail = g_utf8_make_valid(detail != NULL ? detail : "", -1);
	result->output =
		dup_tail(body, body != NULL ? body_len : 0, GNT_METADATA_PROGRESS_OUTPUT_MAX);
	result->reboot_requested = g_strcmp0(reboot, "1") == 0;
	return g_steal_pointer(&result);
}

gchar *
gnt_metadata_step_data_parse(const gchar *data, GError **error)
{
	g_autoptr(JsonNode) root = NULL;
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (data == NULL || strlen(data) > GNT_METADATA_STEP_DATA_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "step data: at most %d bytes of a JSON object",
			    GNT_METADATA_STEP_DATA_MAX);
		return NULL;
	}
	if (!gnt_json_check_nesting(data, strlen(data), 2, error)) {
		g_prefix_error(error, "step data: ");
		return NULL;
	}
	root = gnt_json_parse(data, -1, error);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_clear_error(error);
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "step data: must be a JSON object");
		return NULL;
	}
	json_object_iter_init(&iter, json_node_get_object(root));
	while (json_object_iter_next(&iter, &key, &value)) {
		GType type = JSON_NODE_HOLDS_VALUE(value) ? json_node_get_value_type(value)
							  : G_TYPE_INVALID;

		if (!is_name(key) || (type != G_TYPE_STRING && type != G_TYPE_BOOLEAN &&
				      !gnt_json_node_is_int(value))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "step data: members are [a-z0-9_]{1,%d} with a string, integer "
				    "or boolean value",
				    GNT_METADATA_PROGRESS_NAME_MAX);
			return NULL;
		}
	}
	return gnt_json_to_string(root);
}

gboolean
gnt_metadata_steps_take_result(GntMetadataSteps *self, const GntMetadataStepResult *result,
			       const gchar **step_name, GError **error)
{
	Step *step = self->running ? g_ptr_array_index(self->steps, self->next - 1) : NULL;

	if (step == NULL || !g_str_equal(step->id, result->id)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "step result for '%s', which is not the step running", result->id);
		return FALSE;
	}
	self->running = FALSE;
	if (!result->ok)
		self->failed = TRUE;
	*step_name = step->step;
	return TRUE;
}

void
gnt_metadata_steps_set_token(GntMetadataSteps *self, const gchar *token)
{
	g_free(self->token);
	self->token = g_strdup(token);
}

gboolean
gnt_metadata_steps_token_matches(GntMetadataSteps *self, const gchar *token)
{
	gsize len;
	guint8 diff = 0;

	if (self->token == NULL)
		return TRUE;
	len = strlen(self->token);
	if (token == NULL || strlen(token) != len)
		return FALSE;
	/* in constant time: a guest may guess */
	for (gsize i = 0; i < len; i++)
		diff |= (guint8)(self->token[i] ^ token[i]);
	return diff == 0;
}

/* ---- the catalogue ---- */

static const gchar *const catalogue_members[] = {"version", "steps", NULL};
static const gchar *const step_members[] = {"name",	     "priority",
					    "args",	     "reboot_requested",
					    "for_operators", "core",
					    "description",   NULL};
static const gchar *const arg_members[] = {"name",     "type",	      "required",
					   "identity", "description", NULL};
/* "json": a structured argument (the storage steps' lists), which the
 * master checks and renders into lines for the agent (doc/appliance.md) */
static const gchar *const arg_types[] = {"string", "integer", "boolean", "json", NULL};
/* a step's optional members, booleans: "storage" marks the storage
 * layout's steps, "needs_vm" the steps that run only inside the appliance's
 * VM (never with the agent on the host) */
static const gchar *const step_optional_members[] = {"storage", "needs_vm", NULL};

/* Exactly the members @names, no other but @optional (nullable). */
static gboolean
check_members_full(JsonObject *obj, const gchar *const *names, const gchar *const *optional,
		   GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init(&iter, obj);
	while (json_object_iter_next(&iter, &key, &value)) {
		if (!g_strv_contains(names, key) &&
		    (optional == NULL || !g_strv_contains(optional, key))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown member '%s'",
				    key);
			return FALSE;
		}
	}
	for (guint i = 0; names[i] != NULL; i++) {
		if (!json_object_has_member(obj, names[i])) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "missing member '%s'",
				    names[i]);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
check_members(JsonObject *obj, const gchar *const *names, GError **error)
{
	return check_members_full(obj, names, NULL, error);
}

static JsonObject *
node_object(JsonNode *node, GError **error)
{
	if (JSON_NODE_HOLDS_OBJECT(node))
		return json_node_get_object(node);
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must be an object, not %s",
		    gnt_json_node_type_name(node));
	return NULL;
}

static gboolean
check_catalogue_arg(JsonNode *node, GError **error)
{
	JsonObject *arg = node_object(node, error);
	const gchar *name = NULL, *type = NULL, *description = NULL;
	gboolean required;

	if (arg == NULL || !check_members(arg, arg_members, error) ||
	    !gnt_json_get_string(arg, "name", &name, error) ||
	    !gnt_json_get_string(arg, "type", &type, error) ||
	    !gnt_json_get_bool(arg, "required", &required, error) ||
	    !gnt_json_get_bool(arg, "identity", &required, error) ||
	    !gnt_json_get_string(arg, "description", &description, error))
		return FALSE;
	if (!is_name(name) || !g_strv_contains(arg_types, type)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'name' must be [a-z0-9_]{1,%d} and 'type' string, integer, boolean "
			    "or json",
			    GNT_METADATA_PROGRESS_NAME_MAX);
		return FALSE;
	}
	return TRUE;
}

/* The optional members @step has are booleans. */
static gboolean
check_optional_flags(JsonObject *step, GError **error)
{
	gboolean flag;

	for (guint i = 0; step_optional_members[i] != NULL; i++) {
		if (json_object_has_member(step, step_optional_members[i]) &&
		    !gnt_json_get_bool(step, step_optional_members[i], &flag, error))
			return FALSE;
	}
	return TRUE;
}

static gboolean
check_catalogue_step(JsonNode *node, GHashTable *seen, GError **error)
{
	JsonObject *step = node_object(node, error);
	const gchar *name = NULL, *description = NULL;
	JsonArray *args = NULL;
	gint64 priority = 0;
	gboolean flag;

	if (step == NULL || !check_members_full(step, step_members, step_optional_members, error) ||
	    !check_optional_flags(step, error) ||
	    !gnt_json_get_string(step, "name", &name, error) ||
	    !gnt_json_get_int(step, "priority", &priority, error) ||
	    !gnt_json_get_array(step, "args", &args, error) ||
	    !gnt_json_get_bool(step, "reboot_requested", &flag, error) ||
	    !gnt_json_get_bool(step, "for_operators", &flag, error) ||
	    !gnt_json_get_bool(step, "core", &flag, error) ||
	    !gnt_json_get_string(step, "description", &description, error))
		return FALSE;
	if (!is_name(name)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'name' must be [a-z0-9_]{1,%d}",
			    GNT_METADATA_PROGRESS_NAME_MAX);
		return FALSE;
	}
	if (priority < 41 || priority > 99) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "step '%s': 'priority' must be 41..99 (the in-band bands)", name);
		return FALSE;
	}
	if (!g_hash_table_add(seen, g_strdup(name))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "step '%s' is listed twice", name);
		return FALSE;
	}
	for (guint i = 0; i < json_array_get_length(args); i++) {
		if (!check_catalogue_arg(json_array_get_element(args, i), error)) {
			g_prefix_error(error, "step '%s', argument %u: ", name, i + 1);
			return FALSE;
		}
	}
	return TRUE;
}

JsonObject *
gnt_metadata_catalogue_parse(const gchar *data, gsize len, GError **error)
{
	g_autoptr(JsonNode) root = NULL;
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	JsonObject *catalogue;
	JsonArray *steps = NULL;
	const gchar *version = NULL;

	if (len > GNT_METADATA_CATALOGUE_MAX_BYTES) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "catalogue: larger than %d bytes",
			    GNT_METADATA_CATALOGUE_MAX_BYTES);
		return NULL;
	}
	if (!gnt_json_check_nesting(data, len, 8, error)) {
		g_prefix_error(error, "catalogue: ");
		return NULL;
	}
	root = gnt_json_parse(data, (gssize)len, error);
	if (root == NULL) {
		g_prefix_error(error, "catalogue: ");
		return NULL;
	}
	catalogue = node_object(root, error);
	if (catalogue == NULL || !check_members(catalogue, catalogue_members, error) ||
	    !gnt_json_get_string(catalogue, "version", &version, error) ||
	    !gnt_json_get_array(catalogue, "steps", &steps, error)) {
		g_prefix_error(error, "catalogue: ");
		return NULL;
	}
	if (!is_id(version) || json_array_get_length(steps) > GNT_METADATA_CATALOGUE_MAX_STEPS) {
		g_set_error(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			"catalogue: 'version' must be 1..%d printable bytes and 'steps' hold at "
			"most %d steps",
			GNT_METADATA_STEP_ID_MAX, GNT_METADATA_CATALOGUE_MAX_STEPS);
		return NULL;
	}
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		if (!check_catalogue_step(json_array_get_element(steps, i), seen, error)) {
			g_prefix_error(error, "catalogue: steps item %u: ", i + 1);
			return NULL;
		}
	}
	return json_object_ref(catalogue);
}
