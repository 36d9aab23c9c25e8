#include "gnt-kickstart-render.h"

#include <string.h>

#include "gnt-error.h"

static const gchar *const var_names[GNT_KICKSTART_N_VARS] = {
	[GNT_KICKSTART_VAR_LIVEIMG_URL] = "liveimg_url",
	[GNT_KICKSTART_VAR_CALLBACK_URL] = "callback_url",
	[GNT_KICKSTART_VAR_AGENT_TOKEN] = "agent_token",
	[GNT_KICKSTART_VAR_INSTANCE_NAME] = "instance_name",
	[GNT_KICKSTART_VAR_HOSTNAME] = "hostname",
	[GNT_KICKSTART_VAR_SSH_KEYS] = "ssh_keys",
	[GNT_KICKSTART_VAR_STAGE2_URL] = "stage2_url",
};
#define VAR_LIST                                                                                   \
	"liveimg_url, callback_url, agent_token, instance_name, hostname, ssh_keys, stage2_url"

const gchar *
gnt_kickstart_var_get_name(GntKickstartVar var)
{
	g_return_val_if_fail(var < GNT_KICKSTART_N_VARS, NULL);
	return var_names[var];
}

const gchar *
gnt_kickstart_var_list_names(void)
{
	return VAR_LIST;
}

/* One piece of a template: text, or a variable (@var < N_VARS). */
typedef struct {
	gsize start, len; /* the text's bytes, or the whole {{ }} */
	guint var;
} Piece;

struct _GntKickstartTemplate {
	gchar *text;
	GArray *pieces; /* of Piece */
	guint used;	/* bit per variable */
};

static guint
count_lines(const gchar *data, gsize upto)
{
	guint line = 1;
	for (const gchar *p = data; (p = memchr(p, '\n', upto - (gsize)(p - data))) != NULL; p++)
		line++;
	return line;
}

/* Whether @len bytes are ASCII without NUL, 8 at a time: what templates
 * almost always are, checked far faster than by g_utf8_validate(). */
static gboolean
is_plain_ascii(const gchar *data, gsize len)
{
	const guint64 high = 0x8080808080808080ull, ones = 0x0101010101010101ull;
	gsize i = 0;

	for (; i + 8 <= len; i += 8) {
		guint64 w;

		memcpy(&w, data + i, 8);
		/* a byte >= 0x80, or a zero byte */
		if ((w & high) != 0 || ((w - ones) & ~w & high) != 0)
			return FALSE;
	}
	for (; i < len; i++) {
		if ((guchar)data[i] >= 0x80 || data[i] == '\0')
			return FALSE;
	}
	return TRUE;
}

gboolean
gnt_kickstart_check_input(const gchar *data, gsize len, GError **error)
{
	const gchar *end = NULL;
	const gchar *nul;

	if (len > GNT_KICKSTART_MAX_BYTES) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "line %u: the template is larger than %" G_GSIZE_FORMAT " bytes",
			    count_lines(data, GNT_KICKSTART_MAX_BYTES), GNT_KICKSTART_MAX_BYTES);
		return FALSE;
	}
	if (is_plain_ascii(data, len))
		return TRUE;
	nul = memchr(data, '\0', len);
	if (!g_utf8_validate(data, (gssize)(nul != NULL ? (gsize)(nul - data) : len), &end)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "line %u: invalid UTF-8",
			    count_lines(data, (gsize)(end - data)));
		return FALSE;
	}
	if (nul != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "line %u: a NUL byte",
			    count_lines(data, (gsize)(nul - data)));
		return FALSE;
	}
	return TRUE;
}

static gboolean
is_name_start(gchar c)
{
	return g_ascii_isalpha(c) || c == '_';
}

static gboolean
is_name_char(gchar c)
{
	return g_ascii_isalnum(c) || c == '_';
}

/* Jinja2's whitespace inside a tag: spaces, tabs, newlines. */
static gsize
skip_blanks(const gchar *s, gsize i, gsize len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* How much of a refused tag at @s[@at] a message quotes: up to its close
 * ("}}", "%}", "#}") or the end of the line, 40 bytes at most. */
static int
quote_len(const gchar *s, gsize len, gsize at)
{
	gsize n = 0;

	while (at + n < len && n < 40 && s[at + n] != '\n') {
		n++;
		if (n >= 4 && s[at + n - 1] == '}' && strchr("}%#", s[at + n - 2]) != NULL)
			break;
	}
	return (int)n;
}

static gint
lookup_var(const gchar *name, gsize len)
{
	for (guint v = 0; v < GNT_KICKSTART_N_VARS; v++) {
		if (var_names[v][0] == name[0] && strlen(var_names[v]) == len &&
		    memcmp(var_names[v], name, len) == 0)
			return (gint)v;
	}
	return -1;
}

/* The tag "{{ name }}" at @s[@i] (after "{{"): its variable and the
 * index after "}}", or an error saying what it holds instead. */
static gboolean
read_tag(const gchar *s, gsize len, gsize *i, guint *var, GError **error)
{
	gsize j = skip_blanks(s, *i, len);
	gsize name_start = j;
	gint found;

	if (j < len && is_name_start(s[j])) {
		while (j < len && is_name_char(s[j]))
			j++;
		found = lookup_var(s + name_start, j - name_start);
		gsize k = skip_blanks(s, j, len);
		if (k + 1 < len && s[k] == '}' && s[k + 1] == '}') {
			if (found < 0) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "'%.*s' is undefined: a template may use only "
					    "{{ name }} with one of " VAR_LIST,
					    (int)MIN(j - name_start, 64), s + name_start);
				return FALSE;
			}
			*var = (guint)found;
			*i = k + 2;
			return TRUE;
		}
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "'%.*s' is not allowed: a template may use only {{ name }} with "
		    "one of " VAR_LIST " (no filters, attributes, calls or expressions)",
		    quote_len(s, len, *i - 2), s + *i - 2);
	return FALSE;
}

GntKickstartTemplate *
gnt_kickstart_template_new(const gchar *data, gsize len, GError **error)
{
	if (!gnt_kickstart_check_input(data, len, error))
		return NULL;
	return gnt_kickstart_template_new_unchecked(data, len, error);
}

GntKickstartTemplate *
gnt_kickstart_template_new_unchecked(const gchar *data, gsize len, GError **error)
{
	g_autoptr(GntKickstartTemplate) self = g_new0(GntKickstartTemplate, 1);
	gsize text_start = 0;

	/* line numbers are counted only for an error: reading stays one
	 * memchr() pass */
	self->text = g_strndup(data, len);
	self->pieces = g_array_sized_new(FALSE, FALSE, sizeof(Piece), 64);
	for (gsize i = 0; i < len;) {
		const gchar *open = memchr(data + i, '{', len - i);
		gsize at;
		guint var = 0;

		if (open == NULL)
			break;
		at = (gsize)(open - data);
		if (at + 1 >= len ||
		    (data[at + 1] != '{' && data[at + 1] != '%' && data[at + 1] != '#')) {
			i = at + 1;
			continue;
		}
		if (data[at + 1] != '{') {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"line %u: '%.*s' is not allowed: a template may use only {{ name "
				"}} with one of " VAR_LIST " (no statements or comments)",
				count_lines(data, at), quote_len(data, len, at), data + at);
			return NULL;
		}
		gsize after = at + 2;
		if (!read_tag(data, len, &after, &var, error)) {
			g_prefix_error(error, "line %u: ", count_lines(data, at));
			return NULL;
		}
		if (at > text_start) {
			Piece text = {text_start, at - text_start, GNT_KICKSTART_N_VARS};
			g_array_append_val(self->pieces, text);
		}
		Piece tag = {at, after - at, var};
		g_array_append_val(self->pieces, tag);
		self->used |= 1u << var;
		text_start = i = after;
	}
	if (len > text_start) {
		Piece text = {text_start, len - text_start, GNT_KICKSTART_N_VARS};
		g_array_append_val(self->pieces, text);
	}
	return g_steal_pointer(&self);
}

void
gnt_kickstart_template_free(GntKickstartTemplate *self)
{
	if (self == NULL)
		return;
	g_free(self->text);
	if (self->pieces != NULL)
		g_array_unref(self->pieces);
	g_free(self);
}

gboolean
gnt_kickstart_template_uses(const GntKickstartTemplate *self, GntKickstartVar var)
{
	g_return_val_if_fail(self != NULL && var < GNT_KICKSTART_N_VARS, FALSE);
	return (self->used & (1u << var)) != 0;
}

static gboolean
set_undefined(const GntKickstartTemplate *self, const Piece *piece, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "line %u: '%s' is undefined for this install",
		    count_lines(self->text, piece->start), var_names[piece->var]);
	return FALSE;
}

gboolean
gnt_kickstart_template_check_defined(const GntKickstartTemplate *self,
				     const gchar *const values[GNT_KICKSTART_N_VARS],
				     GError **error)
{
	for (guint i = 0; i < self->pieces->len; i++) {
		const Piece *p = &g_array_index(self->pieces, Piece, i);

		if (p->var < GNT_KICKSTART_N_VARS && values[p->var] == NULL)
			return set_undefined(self, p, error);
	}
	return TRUE;
}

gboolean
gnt_kickstart_template_render_range(const GntKickstartTemplate *self,
				    const gchar *const values[GNT_KICKSTART_N_VARS], gsize from,
				    gsize to, GString *out, GError **error)
{
	g_return_val_if_fail(self != NULL && from <= to, FALSE);
	for (guint i = 0; i < self->pieces->len; i++) {
		const Piece *p = &g_array_index(self->pieces, Piece, i);
		gsize start = MAX(p->start, from), end = MIN(p->start + p->len, to);

		if (start >= end)
			continue;
		if (p->var == GNT_KICKSTART_N_VARS) {
			g_string_append_len(out, self->text + start, (gssize)(end - start));
		} else if (values[p->var] == NULL) {
			return set_undefined(self, p, error);
		} else {
			g_return_val_if_fail(start == p->start && end == p->start + p->len, FALSE);
			g_string_append(out, values[p->var]);
		}
	}
	return TRUE;
}

gboolean
gnt_kickstart_check_rendered_size(const GString *out, GError **error)
{
	if (out->len <= GNT_KICKSTART_MAX_BYTES)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "line %u: the rendered file is larger than %" G_GSIZE_FORMAT " bytes",
		    count_lines(out->str, GNT_KICKSTART_MAX_BYTES), GNT_KICKSTART_MAX_BYTES);
	return FALSE;
}

GString *
gnt_kickstart_template_render(const GntKickstartTemplate *self,
			      const gchar *const values[GNT_KICKSTART_N_VARS], GError **error)
{
	g_autoptr(GString) out = NULL;

	g_return_val_if_fail(self != NULL, NULL);
	out = g_string_sized_new(strlen(self->text) + 1024);
	if (!gnt_kickstart_template_render_range(self, values, 0, strlen(self->text), out, error) ||
	    !gnt_kickstart_check_rendered_size(out, error))
		return NULL;
	return g_steal_pointer(&out);
}

gboolean
gnt_kickstart_text_uses(const gchar *text, gsize len, GntKickstartVar var)
{
	const gchar *name = var_names[var];
	gsize name_len = strlen(name);
	const gchar *p = text;

	while ((p = memchr(p, '{', len - (gsize)(p - text))) != NULL) {
		gsize i = (gsize)(p - text), j;

		p++;
		if (i + 1 >= len || text[i + 1] != '{')
			continue;
		j = skip_blanks(text, i + 2, len);
		if (j + name_len <= len && memcmp(text + j, name, name_len) == 0 &&
		    (j + name_len == len || !is_name_char(text[j + name_len])))
			return TRUE;
	}
	return FALSE;
}
