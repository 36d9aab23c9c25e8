#include "gnt-kickstart-prepare.h"

#include <string.h>
#include <sys/random.h>

#include "gnt-error.h"
#include "gnt-kickstart-additions.h"
#include "gnt-kickstart-ksvalidator.h"

#define REDACTED "<redacted>"

void
gnt_kickstart_free(GntKickstart *self)
{
	if (self == NULL)
		return;
	if (self->text != NULL) {
		memset(self->text->str, 0, self->text->len); /* it holds the token */
		g_string_free(self->text, TRUE);
	}
	if (self->notes != NULL)
		g_ptr_array_unref(self->notes);
	g_free(self->token);
	g_free(self);
}

/* @self->text: the template's rendering with the additions' edits, each
 * part rendered where it stands (the template is read once, the block on
 * its own). */
static gboolean
render_with_additions(GntKickstart *self, const GntKickstartTemplate *tpl, gsize len,
		      const GntKickstartAdditions *additions, const gchar *const *values,
		      GError **error)
{
	g_autoptr(GntKickstartTemplate) block = gnt_kickstart_template_new_unchecked(
		additions->block->str, additions->block->len, error);
	gsize shutdown_end = additions->shutdown_offset + additions->shutdown_len;
	gboolean shutdown_first = additions->shutdown_len > 0 &&
				  additions->shutdown_offset < additions->insert_at;
	gboolean shutdown_last = additions->shutdown_len > 0 && !shutdown_first;
	gsize cursor = 0;

	if (block == NULL)
		return FALSE;
	self->text = g_string_sized_new(len + additions->block->len + 1024);
	if (shutdown_first) {
		if (!gnt_kickstart_template_render_range(tpl, values, 0, additions->shutdown_offset,
							 self->text, error))
			return FALSE;
		g_string_append(self->text, GNT_KICKSTART_POWEROFF);
		cursor = shutdown_end;
	}
	if (!gnt_kickstart_template_render_range(tpl, values, cursor, additions->insert_at,
						 self->text, error) ||
	    !gnt_kickstart_template_render_range(block, values, 0, additions->block->len,
						 self->text, error))
		return FALSE;
	cursor = additions->insert_at;
	if (shutdown_last) {
		if (!gnt_kickstart_template_render_range(
			    tpl, values, cursor, additions->shutdown_offset, self->text, error))
			return FALSE;
		g_string_append(self->text, GNT_KICKSTART_POWEROFF);
		cursor = shutdown_end;
	}
	return gnt_kickstart_template_render_range(tpl, values, cursor, len, self->text, error) &&
	       gnt_kickstart_check_rendered_size(self->text, error);
}

/* The token out of an error about the rendered file (a word the validator
 * or ksvalidator quotes may hold it): errors go to job logs. */
static void
redact_error(GError **error, const gchar *token)
{
	g_autoptr(GString) message = NULL;

	if (error == NULL || *error == NULL || token == NULL || *token == '\0' ||
	    strstr((*error)->message, token) == NULL)
		return;
	message = g_string_new((*error)->message);
	g_string_replace(message, token, REDACTED, 0);
	g_free((*error)->message);
	(*error)->message = g_string_free(g_steal_pointer(&message), FALSE);
}

GntKickstart *
gnt_kickstart_prepare(const GntKickstartRequest *request, GError **error)
{
	g_autoptr(GntKickstart) self = g_new0(GntKickstart, 1);
	g_autoptr(GntKickstartTemplate) tpl = NULL;
	g_auto(GntKickstartAdditions) additions = {0};
	gsize len = 0;
	const gchar *data;
	g_autofree gchar *syntax = NULL;

	g_return_val_if_fail(request != NULL && request->template != NULL, NULL);
	data = g_bytes_get_data(request->template, &len);
	if (data == NULL)
		data = "";
	self->notes = g_ptr_array_new_with_free_func(g_free);
	self->token = g_strdup(request->values[GNT_KICKSTART_VAR_AGENT_TOKEN]);
	/* the template as given: its errors name the lines the author wrote */
	tpl = gnt_kickstart_template_new(data, len, error);
	if (tpl == NULL || !gnt_kickstart_template_check_defined(tpl, request->values, error) ||
	    !gnt_kickstart_additions_find(data, len, &request->target.release, request->package,
					  self->notes, &additions, error) ||
	    !render_with_additions(self, tpl, len, &additions, request->values, error)) {
		g_prefix_error(error, "kickstart template: ");
		return NULL;
	}
	if (!gnt_kickstart_validate(self->text->str, self->text->len, &request->target, error)) {
		redact_error(error, self->token);
		g_prefix_error(error, "kickstart file (as rendered): ");
		return NULL;
	}
	syntax = gnt_kickstart_release_get_syntax(&request->target.release);
	if (request->ksvalidator == NULL) {
		g_ptr_array_add(self->notes,
				g_strdup("kickstart: ksvalidator is not installed: only "
					 "Gantry's own checks ran"));
		return g_steal_pointer(&self);
	}
	if (!gnt_kickstart_ksvalidator_check(request->ksvalidator, syntax,
					     (const gchar *const *)&self->text->str,
					     &self->text->len, 1, error)) {
		redact_error(error, self->token);
		g_prefix_error(error, "kickstart file (as rendered): ");
		return NULL;
	}
	g_ptr_array_add(self->notes, g_strdup_printf("kickstart: Gantry's checks and ksvalidator "
						     "-v %s passed",
						     syntax));
	return g_steal_pointer(&self);
}

gchar *
gnt_kickstart_dup_redacted(const GntKickstart *self)
{
	g_autoptr(GString) out = g_string_new_len(self->text->str, (gssize)self->text->len);

	if (self->token != NULL && *self->token != '\0')
		g_string_replace(out, self->token, REDACTED, 0);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

gchar *
gnt_kickstart_liveimg_url(const gchar *image_location, gboolean tarball)
{
	static const gchar *const tarballs[] = {".tar",	   ".tbz",     ".tgz",	 ".txz",
						".tar.gz", ".tar.bz2", ".tar.xz"};
	const gchar *ext = tarball ? ".tar" : ".img";

	for (guint i = 0; image_location != NULL && i < G_N_ELEMENTS(tarballs); i++) {
		if (g_str_has_suffix(image_location, tarballs[i]))
			ext = tarballs[i];
	}
	return g_strconcat(GNT_KICKSTART_METAD_INSTALL "/image", ext, NULL);
}

gchar *
gnt_kickstart_token_new(void)
{
	guint8 bytes[32];
	gsize got = 0;
	gchar *token;

	while (got < sizeof(bytes)) {
		gssize n = getrandom(bytes + got, sizeof(bytes) - got, 0);
		if (n > 0)
			got += (gsize)n;
	}
	token = g_base64_encode(bytes, sizeof(bytes));
	memset(bytes, 0, sizeof(bytes));
	for (gchar *p = token; *p != '\0'; p++) {
		if (*p == '+')
			*p = '-';
		else if (*p == '/')
			*p = '_';
		else if (*p == '=')
			*p = '\0';
	}
	return token;
}
