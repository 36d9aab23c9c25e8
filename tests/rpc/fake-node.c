/* Scripted nodes behind a replaceable transport (fake-node.h). */
#include "fake-node.h"

#include "gnt-json.h"
#include "gnt-secret.h"

typedef struct {
	guint nth; /* 0: every call */
	GntError code;
	gchar *message;
} Failure;

struct _FakeNode {
	GntRpcClient *client;
	GMutex lock;
	GPtrArray *calls;      /* FakeCall */
	GHashTable *answers;   /* procedure -> JsonNode */
	GHashTable *failures;  /* procedure -> GPtrArray of Failure */
	GHashTable *n_by_name; /* procedure -> count, as GUINT_TO_POINTER */
};

static void
fake_call_free(FakeCall *call)
{
	g_free(call->node);
	g_free(call->procedure);
	g_clear_pointer(&call->args, gnt_rpc_args_free);
	g_free(call);
}

static void
failure_free(Failure *failure)
{
	g_free(failure->message);
	g_free(failure);
}

JsonNode *
fake_node_send(JsonArray *args, const GntSecretDict *secrets, GError **error)
{
	g_autoptr(JsonNode) node = json_node_new(JSON_NODE_ARRAY);
	g_autofree gchar *text = NULL;
	g_autoptr(GntSecret) body = NULL;

	json_node_set_array(node, args);
	text = gnt_json_to_string(node);
	if (secrets == NULL)
		return gnt_json_parse(text, -1, error);
	body = gnt_secret_dict_fill(secrets, text, error);
	if (body == NULL)
		return NULL;
	return gnt_json_parse(gnt_secret_get(body), (gssize)gnt_secret_get_length(body), error);
}

/* The answer when the script has none: what the typed call accepts. */
static JsonNode *
default_answer(const gchar *procedure)
{
	const gchar *json = "null";

	if (g_str_equal(procedure, "instance_shutdown"))
		json = "{\"forced\": false}";
	else if (g_str_equal(procedure, "instance_list") || g_str_equal(procedure, "node_info"))
		json = "{}";
	else if (g_str_equal(procedure, "os_diagnose") ||
		 g_str_equal(procedure, "blockdev_assemble") ||
		 g_str_equal(procedure, "export_list"))
		json = "[]";
	return gnt_json_parse(json, -1, NULL);
}

static JsonNode *
fake_transport(const gchar *node_name, const gchar *procedure, JsonArray *args,
	       const GntSecretDict *secrets, gpointer user_data, GError **error)
{
	FakeNode *self = user_data;
	const GntRpcProcedureDef *def = gnt_rpc_procedure_def_lookup(procedure);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	g_autoptr(JsonNode) sent = NULL;
	FakeCall *call;
	GPtrArray *failures;
	JsonNode *answer;
	guint n;

	if (def == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "unknown procedure '%s'",
			    procedure);
		return NULL;
	}
	sent = fake_node_send(args, secrets, error);
	if (sent == NULL)
		return NULL;
	call = g_new0(FakeCall, 1);
	call->node = g_strdup(node_name);
	call->procedure = g_strdup(procedure);
	/* as noded's server: arguments that do not fit the row are refused */
	call->args = gnt_rpc_args_decode(def, json_node_get_array(sent), error);
	if (call->args == NULL) {
		fake_call_free(call);
		return NULL;
	}
	locker = g_mutex_locker_new(&self->lock);
	g_ptr_array_add(self->calls, call);
	n = GPOINTER_TO_UINT(g_hash_table_lookup(self->n_by_name, procedure)) + 1;
	g_hash_table_insert(self->n_by_name, g_strdup(procedure), GUINT_TO_POINTER(n));
	failures = g_hash_table_lookup(self->failures, procedure);
	for (guint i = 0; failures != NULL && i < failures->len; i++) {
		const Failure *failure = g_ptr_array_index(failures, i);

		if (failure->nth == 0 || failure->nth == n) {
			g_set_error_literal(error, GNT_ERROR, failure->code, failure->message);
			return NULL;
		}
	}
	answer = g_hash_table_lookup(self->answers, procedure);
	return answer != NULL ? json_node_copy(answer) : default_answer(procedure);
}

FakeNode *
fake_node_new(void)
{
	FakeNode *self = g_new0(FakeNode, 1);

	g_mutex_init(&self->lock);
	self->calls = g_ptr_array_new_with_free_func((GDestroyNotify)fake_call_free);
	self->answers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      (GDestroyNotify)json_node_unref);
	self->failures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)g_ptr_array_unref);
	self->n_by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	self->client = gnt_rpc_client_new_with_transport(fake_transport, self, NULL);
	return self;
}

void
fake_node_free(FakeNode *self)
{
	if (self == NULL)
		return;
	g_clear_object(&self->client);
	g_ptr_array_unref(self->calls);
	g_hash_table_unref(self->answers);
	g_hash_table_unref(self->failures);
	g_hash_table_unref(self->n_by_name);
	g_mutex_clear(&self->lock);
	g_free(self);
}

GntRpcClient *
fake_node_get_client(FakeNode *self)
{
	return self->client;
}

void
fake_node_answer(FakeNode *self, const gchar *procedure, const gchar *json)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	g_autoptr(GError) error = NULL;
	JsonNode *node = gnt_json_parse(json, -1, &error);

	g_assert_no_error(error);
	g_assert_nonnull(gnt_rpc_procedure_def_lookup(procedure));
	g_hash_table_insert(self->answers, g_strdup(procedure), node);
}

void
fake_node_fail(FakeNode *self, const gchar *procedure, guint nth, GntError code,
	       const gchar *message)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	GPtrArray *failures = g_hash_table_lookup(self->failures, procedure);
	Failure *failure = g_new0(Failure, 1);

	g_assert_nonnull(gnt_rpc_procedure_def_lookup(procedure));
	if (failures == NULL) {
		failures = g_ptr_array_new_with_free_func((GDestroyNotify)failure_free);
		g_hash_table_insert(self->failures, g_strdup(procedure), failures);
	}
	failure->nth = nth;
	failure->code = code;
	failure->message = g_strdup(message);
	g_ptr_array_add(failures, failure);
}

guint
fake_node_get_n_calls(FakeNode *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	return self->calls->len;
}

const FakeCall *
fake_node_get_call(FakeNode *self, guint index)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	g_assert_cmpuint(index, <, self->calls->len);
	return g_ptr_array_index(self->calls, index);
}

const FakeCall *
fake_node_find_call(FakeNode *self, const gchar *procedure, guint nth)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	guint seen = 0;

	for (guint i = 0; i < self->calls->len; i++) {
		const FakeCall *call = g_ptr_array_index(self->calls, i);

		if (g_str_equal(call->procedure, procedure) && ++seen == nth)
			return call;
	}
	return NULL;
}

gchar *
fake_node_dup_trace(FakeNode *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	GString *trace = g_string_new(NULL);

	for (guint i = 0; i < self->calls->len; i++) {
		const FakeCall *call = g_ptr_array_index(self->calls, i);

		g_string_append_printf(trace, "%s%s", i > 0 ? " " : "", call->procedure);
	}
	return g_string_free(trace, FALSE);
}

void
fake_node_clear_calls(FakeNode *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	g_ptr_array_set_size(self->calls, 0);
}
