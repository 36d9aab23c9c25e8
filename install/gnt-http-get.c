#include "gnt-http-get.h"

#include "gnt-build-config.h"
#include "gnt-error.h"

/* The certificate problems in words. (transfer full) */
static gchar *
describe_tls_errors(GTlsCertificateFlags flags)
{
	static const struct {
		GTlsCertificateFlags flag;
		const gchar *words;
	} names[] = {
		{G_TLS_CERTIFICATE_UNKNOWN_CA, "not signed by a known CA"},
		{G_TLS_CERTIFICATE_BAD_IDENTITY, "not for this host"},
		{G_TLS_CERTIFICATE_NOT_ACTIVATED, "not valid yet"},
		{G_TLS_CERTIFICATE_EXPIRED, "expired"},
		{G_TLS_CERTIFICATE_REVOKED, "revoked"},
		{G_TLS_CERTIFICATE_INSECURE, "insecure"},
	};
	g_autoptr(GString) text = g_string_new(NULL);

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		if (flags & names[i].flag)
			g_string_append_printf(text, "%s%s", text->len > 0 ? ", " : "",
					       names[i].words);
	}
	if (text->len == 0)
		g_string_append(text, "refused");
	return g_string_free(g_steal_pointer(&text), FALSE);
}

gboolean
gnt_http_get_send(GntHttpGet *self, const gchar *url, guint timeout_s, GTlsDatabase *tls_database,
		  GCallback authenticate, gpointer auth_data, GError **error)
{
	g_autoptr(GError) local_error = NULL;
	GTlsCertificateFlags flags;

	g_return_val_if_fail(self != NULL && self->session == NULL && url != NULL, FALSE);

	self->session = soup_session_new_with_options("timeout", timeout_s, "user-agent",
						      "gantry/" GNT_VERSION, NULL);
	if (tls_database != NULL)
		soup_session_set_tls_database(self->session, tls_database);
	soup_session_remove_feature_by_type(self->session, SOUP_TYPE_CONTENT_DECODER);
	self->msg = soup_message_new("GET", url);
	if (self->msg == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "malformed URL");
		return FALSE;
	}
	if (authenticate != NULL)
		g_signal_connect(self->msg, "authenticate", authenticate, auth_data);
	self->body = soup_session_send(self->session, self->msg, NULL, &local_error);
	if (self->body != NULL)
		return TRUE;
	flags = soup_message_get_tls_peer_certificate_errors(self->msg);
	if (flags != 0 || local_error->domain == G_TLS_ERROR) {
		g_autofree gchar *why = describe_tls_errors(flags);

		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "TLS failure: the server's certificate is %s (%s)", why,
			    local_error->message);
		return FALSE;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "unreachable: %s",
		    local_error->message);
	return FALSE;
}

gboolean
gnt_http_get_check(GntHttpGet *self, const gchar *url, GError **error)
{
	guint status = soup_message_get_status(self->msg);
	SoupMessageHeaders *headers;

	if (!SOUP_STATUS_IS_SUCCESSFUL(status)) {
		g_set_error(error, GNT_ERROR,
			    status == SOUP_STATUS_NOT_FOUND || status == SOUP_STATUS_GONE
				    ? GNT_ERROR_NOT_FOUND
				    : GNT_ERROR_ENVIRONMENT,
			    "HTTP %u %s", status, soup_message_get_reason_phrase(self->msg));
		return FALSE;
	}
	if (g_ascii_strncasecmp(url, "https:", 6) == 0 &&
	    g_strcmp0(g_uri_get_scheme(soup_message_get_uri(self->msg)), "https") != 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "TLS failure: redirected from https to plain http");
		return FALSE;
	}
	headers = soup_message_get_response_headers(self->msg);
	if (soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH)
		self->length = (guint64)soup_message_headers_get_content_length(headers);
	return TRUE;
}

void
gnt_http_get_clear(GntHttpGet *self)
{
	if (self->body != NULL)
		(void)g_input_stream_close(self->body, NULL, NULL);
	g_clear_object(&self->body);
	g_clear_object(&self->msg);
	g_clear_object(&self->session);
}
