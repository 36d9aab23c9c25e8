#include "gnt-secret-dict.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

struct _GntSecretDict {
	gint ref_count;
	GTree *values; /* name → GntSecret, sorted for a stable order */
};

/* A placeholder is a JSON string no request otherwise holds: it starts
 * with a control character, which gnt_json_to_string() writes as
 * "\u0001". MARK_ALL stands for the whole dictionary, MARK_VALUE + NAME +
 * MARK_END for one value. */
#define MARK_ALL       "\001gantry-secrets\001"
#define MARK_VALUE     "\001gantry-secret:"
#define MARK_END       "\001"
#define ENCODED_PREFIX "\"\\u0001gantry-secret"
#define ENCODED_ALL    "\"\\u0001gantry-secrets\\u0001\""
#define ENCODED_VALUE  "\"\\u0001gantry-secret:"
#define ENCODED_END    "\\u0001\""

static gint
compare_names(gconstpointer a, gconstpointer b, gpointer data)
{
	return strcmp(a, b);
}

GntSecretDict *
gnt_secret_dict_new(void)
{
	GntSecretDict *self = g_new0(GntSecretDict, 1);

	self->ref_count = 1;
	self->values =
		g_tree_new_full(compare_names, NULL, g_free, (GDestroyNotify)gnt_secret_free);
	return self;
}

GntSecretDict *
gnt_secret_dict_new_from_json(const GntSecret *json, GError **error)
{
	g_autoptr(GntSecretDict) self = gnt_secret_dict_new();
	g_autoptr(JsonNode) node = NULL;
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;
	gboolean ok = TRUE;

	g_return_val_if_fail(json != NULL, NULL);

	/* the fast reader wipes its own buffers; the tree's strings are
	 * wiped below */
	node = gnt_json_parse(gnt_secret_get(json), (gssize)gnt_secret_get_length(json), error);
	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a secret dictionary must be an object, not %s",
			    gnt_json_node_type_name(node));
		return NULL;
	}
	json_object_iter_init(&iter, json_node_get_object(node));
	while (ok && json_object_iter_next(&iter, &name, &value)) {
		const gchar *text = NULL;

		ok = gnt_json_node_get_string(value, name, &text, error);
		if (ok)
			gnt_secret_dict_set(self, name, text);
	}
	gnt_json_node_wipe_strings(node);
	return ok ? g_steal_pointer(&self) : NULL;
}

GntSecretDict *
gnt_secret_dict_ref(GntSecretDict *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	g_atomic_int_inc(&self->ref_count);
	return self;
}

void
gnt_secret_dict_unref(GntSecretDict *self)
{
	if (self == NULL || !g_atomic_int_dec_and_test(&self->ref_count))
		return;
	g_tree_destroy(self->values);
	g_free(self);
}

void
gnt_secret_dict_set(GntSecretDict *self, const gchar *name, const gchar *value)
{
	g_return_if_fail(self != NULL && name != NULL && value != NULL);
	g_tree_replace(self->values, g_strdup(name), gnt_secret_new(value, -1));
}

void
gnt_secret_dict_remove(GntSecretDict *self, const gchar *name)
{
	g_return_if_fail(self != NULL && name != NULL);
	g_tree_remove(self->values, name);
}

const gchar *
gnt_secret_dict_lookup(const GntSecretDict *self, const gchar *name)
{
	const GntSecret *value;

	g_return_val_if_fail(self != NULL && name != NULL, NULL);
	value = g_tree_lookup(self->values, name);
	return value != NULL ? gnt_secret_get(value) : NULL;
}

gboolean
gnt_secret_dict_contains(const GntSecretDict *self, const gchar *name)
{
	return gnt_secret_dict_lookup(self, name) != NULL;
}

guint
gnt_secret_dict_size(const GntSecretDict *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return (guint)g_tree_nnodes(self->values);
}

static gboolean
add_name(gpointer key, gpointer value, gpointer data)
{
	g_ptr_array_add(data, key);
	return FALSE;
}

GPtrArray *
gnt_secret_dict_dup_names(const GntSecretDict *self)
{
	GPtrArray *out = g_ptr_array_new();

	g_return_val_if_fail(self != NULL, out);
	g_tree_foreach(self->values, add_name, out);
	return out;
}

typedef struct {
	GntSecretDict *out;
	const gchar *const *drop;
} CopyCtx;

static gboolean
copy_entry(gpointer key, gpointer value, gpointer data)
{
	CopyCtx *ctx = data;

	if (ctx->drop == NULL || !g_strv_contains(ctx->drop, key))
		g_tree_insert(ctx->out->values, g_strdup(key), gnt_secret_copy(value));
	return FALSE;
}

GntSecretDict *
gnt_secret_dict_copy_without(const GntSecretDict *self, const gchar *const *drop)
{
	CopyCtx ctx = {gnt_secret_dict_new(), drop};

	g_return_val_if_fail(self != NULL, ctx.out);
	g_tree_foreach(self->values, copy_entry, &ctx);
	return ctx.out;
}

JsonNode *
gnt_secret_dict_placeholder_all(void)
{
	return gnt_json_node_new_string(MARK_ALL);
}

JsonNode *
gnt_secret_dict_placeholder_value(const gchar *name)
{
	g_autofree gchar *mark = g_strconcat(MARK_VALUE, name, MARK_END, NULL);

	return gnt_json_node_new_string(mark);
}

/* ---- writing JSON into protected memory ---- */

/* A writer that first only counts (out == NULL), then writes: the buffer
 * is allocated once at its final size, so nothing is ever reallocated. */
typedef struct {
	gchar *out;
	gsize len;
} Writer;

static void
put(Writer *w, const gchar *data, gsize n)
{
	if (w->out != NULL)
		memcpy(w->out + w->len, data, n);
	w->len += n;
}

/* @str as a JSON string, escaped as gnt_json_append_string() does. */
static void
put_string(Writer *w, const gchar *str)
{
	static const gchar hex[] = "0123456789abcdef";

	put(w, "\"", 1);
	for (const guchar *p = (const guchar *)str; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			gchar escape[2] = {'\\', (gchar)*p};

			put(w, escape, 2);
		} else if (*p == '\n') {
			put(w, "\\n", 2);
		} else if (*p == '\t') {
			put(w, "\\t", 2);
		} else if (*p == '\r') {
			put(w, "\\r", 2);
		} else if (*p < 0x20) {
			gchar escape[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf]};

			put(w, escape, 6);
		} else {
			put(w, (const gchar *)p, 1);
		}
	}
	put(w, "\"", 1);
}

typedef struct {
	Writer *w;
	gboolean first;
} ObjectCtx;

static gboolean
put_entry(gpointer key, gpointer value, gpointer data)
{
	ObjectCtx *ctx = data;

	if (!ctx->first)
		put(ctx->w, ",", 1);
	ctx->first = FALSE;
	put_string(ctx->w, key);
	put(ctx->w, ":", 1);
	put_string(ctx->w, gnt_secret_get(value));
	return FALSE;
}

/* @text with its placeholders filled in, to @w. FALSE: a placeholder for
 * a name that is not valid (not terminated). */
static gboolean
put_filled(Writer *w, const GntSecretDict *self, const gchar *text)
{
	const gchar *rest = text;
	const gchar *at;

	while ((at = strstr(rest, ENCODED_PREFIX)) != NULL) {
		put(w, rest, (gsize)(at - rest));
		if (g_str_has_prefix(at, ENCODED_ALL)) {
			ObjectCtx ctx = {w, TRUE};

			put(w, "{", 1);
			g_tree_foreach(self->values, put_entry, &ctx);
			put(w, "}", 1);
			rest = at + strlen(ENCODED_ALL);
		} else if (g_str_has_prefix(at, ENCODED_VALUE)) {
			const gchar *name = at + strlen(ENCODED_VALUE);
			const gchar *end = strstr(name, ENCODED_END);
			g_autofree gchar *key = NULL;
			const gchar *value;

			if (end == NULL)
				return FALSE;
			key = g_strndup(name, (gsize)(end - name));
			value = gnt_secret_dict_lookup(self, key);
			if (value != NULL)
				put_string(w, value);
			else
				put(w, "null", 4);
			rest = end + strlen(ENCODED_END);
		} else {
			/* a string that only starts like one */
			put(w, at, 1);
			rest = at + 1;
		}
	}
	put(w, rest, strlen(rest));
	return TRUE;
}

static gboolean
check_utf8(gpointer key, gpointer value, gpointer data)
{
	gboolean *valid = data;

	*valid = *valid && g_utf8_validate(gnt_secret_get(value), -1, NULL);
	return !*valid;
}

GntSecret *
gnt_secret_dict_fill(const GntSecretDict *self, const gchar *text, GError **error)
{
	Writer count = {NULL, 0};
	Writer write = {NULL, 0};
	GntSecret *out;
	gboolean valid = TRUE;

	g_return_val_if_fail(self != NULL && text != NULL, NULL);

	g_tree_foreach(self->values, check_utf8, &valid);
	if (!valid || !put_filled(&count, self, text)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    valid ? "a secret placeholder is not terminated"
					  : "a secret value is not valid UTF-8");
		return NULL;
	}
	out = gnt_secret_new_zeroed(count.len);
	write.out = gnt_secret_get_data(out);
	put_filled(&write, self, text);
	g_assert(write.len == count.len);
	return out;
}
