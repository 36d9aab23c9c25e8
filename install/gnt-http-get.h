#pragma once /* install/gnt-http-get.h: the install's downloads over http(s) */

#include <gio/gio.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * One GET for what a node downloads to install an instance (disk images,
 * personalization packages): the bytes as served (no content decoding:
 * a .tar.gz or a qcow2 served with Content-Encoding stays what it is),
 * TLS verified, a redirect from https to plain http refused. Errors carry
 * no prefix: the caller names what was fetched.
 */
typedef struct {
	SoupSession *session;
	SoupMessage *msg;
	GInputStream *body; /* after gnt_http_get_send() */
	guint64 length;	    /* Content-Length; 0: unknown */
} GntHttpGet;

/*
 * Sends GET @url with @timeout_s (seconds) and @tls_database (nullable:
 * the system's CAs); @authenticate (nullable) is connected to the
 * message's "authenticate" signal with @auth_data. FALSE when no answer
 * came: GNT_ERROR_ENVIRONMENT "TLS failure: the server's certificate is
 * ... (...)" or "unreachable: ...", GNT_ERROR_INVALID "malformed URL".
 */
gboolean
gnt_http_get_send(GntHttpGet *self, const gchar *url, guint timeout_s, GTlsDatabase *tls_database,
		  GCallback authenticate, gpointer auth_data, GError **error);

/* Whether the answer is a 2xx, not downgraded from https to http:
 * GNT_ERROR_NOT_FOUND "HTTP 404 Not Found" (also 410), else
 * GNT_ERROR_ENVIRONMENT. Sets self->length. */
gboolean
gnt_http_get_check(GntHttpGet *self, const gchar *url, GError **error);

/* Closes the body and frees the rest (self->length stays); may be called
 * again. */
void
gnt_http_get_clear(GntHttpGet *self);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntHttpGet, gnt_http_get_clear)

G_END_DECLS
