/*
 * metadata/gnt-metad-client.c: noded's calls on metad's control socket
 * (HTTP over a root-only unix socket, gnt-metad-server.h).
 */
#include "gnt-metad-client.h"

#include <gio/gunixsocketaddress.h>
#include <libsoup/soup.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-secret.h"

/* @method on /instances/<name>[/@what][?@query] with @body (nullable) of
 * @content_type; the answer's body in *@answer_out (nullable). */
static gboolean
control_call(const gchar *control_socket, const gchar *method, const gchar *name, const gchar *what,
	     const gchar *query, const gchar *content_type, GBytes *body, GBytes **answer_out,
	     GError **error)
{
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(control_socket);
	g_autoptr(SoupSession) session = soup_session_new_with_options(
		"remote-connectable", address, "proxy-resolver", NULL, "timeout", 30, NULL);
	g_autofree gchar *escaped = g_uri_escape_string(name, NULL, FALSE);
	g_autofree gchar *uri = g_strconcat("http://localhost/instances/", escaped,
					    what != NULL ? "/" : "", what != NULL ? what : "",
					    query != NULL ? "?" : "", query != NULL ? query : "",
					    NULL);
	g_autoptr(SoupMessage) msg = soup_message_new(method, uri);
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) local_error = NULL;
	guint status = 0;

	if (msg == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "bad instance name '%s'", name);
		return FALSE;
	}
	if (body != NULL)
		soup_message_set_request_body_from_bytes(msg, content_type, body);
	answer = soup_session_send_and_read(session, msg, NULL, &local_error);
	if (answer == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot reach metad at '%s' (is gantry-metad running?): %s",
			    control_socket, local_error->message);
		return FALSE;
	}
	status = soup_message_get_status(msg);
	if (SOUP_STATUS_IS_SUCCESSFUL(status)) {
		if (answer_out != NULL)
			*answer_out = g_steal_pointer(&answer);
		return TRUE;
	}
	g_set_error(error, GNT_ERROR,
		    status == SOUP_STATUS_NOT_FOUND ? GNT_ERROR_NOT_FOUND : GNT_ERROR_INVALID,
		    "metad refused %s of %s%sinstance '%s' (%u): %.*s", method,
		    what != NULL ? what : "", what != NULL ? " of " : "", name, status,
		    (int)g_bytes_get_size(answer), (const gchar *)g_bytes_get_data(answer, NULL));
	return FALSE;
}

/* PUTs @obj as JSON; the serialized text is wiped once sent (records hold
 * secrets). */
static gboolean
put_json(const gchar *control_socket, const gchar *name, const gchar *what, JsonObject *obj,
	 GError **error)
{
	g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), obj);
	g_autofree gchar *text = gnt_json_to_string(node);
	g_autoptr(GBytes) body = g_bytes_new_static(text, strlen(text));
	gboolean ok = control_call(control_socket, "PUT", name, what, NULL, "application/json",
				   body, NULL, error);

	g_clear_pointer(&body, g_bytes_unref);
	gnt_secret_wipe_string(text);
	return ok;
}

gboolean
gnt_metad_client_push(const gchar *control_socket, const gchar *name, JsonObject *record,
		      GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL && record != NULL, FALSE);
	return put_json(control_socket, name, NULL, record, error);
}

gboolean
gnt_metad_client_remove(const gchar *control_socket, const gchar *name, GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL, FALSE);
	return control_call(control_socket, "DELETE", name, NULL, NULL, NULL, NULL, NULL, error);
}

gboolean
gnt_metad_client_set_channel(const gchar *control_socket, const gchar *name, JsonObject *spec,
			     GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL && spec != NULL, FALSE);
	return put_json(control_socket, name, "channel", spec, error);
}

gboolean
gnt_metad_client_remove_channel(const gchar *control_socket, const gchar *name, GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL, FALSE);
	return control_call(control_socket, "DELETE", name, "channel", NULL, NULL, NULL, NULL,
			    error);
}

gboolean
gnt_metad_client_put_package(const gchar *control_socket, const gchar *name, GBytes *package,
			     GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL && package != NULL, FALSE);
	return control_call(control_socket, "PUT", name, "package", NULL,
			    "application/octet-stream", package, NULL, error);
}

gboolean
gnt_metad_client_set_boot_token(const gchar *control_socket, const gchar *name, const gchar *token,
				GError **error)
{
	g_autoptr(GBytes) body = NULL;

	g_return_val_if_fail(control_socket != NULL && name != NULL && token != NULL, FALSE);
	body = g_bytes_new(token, strlen(token));
	return control_call(control_socket, "PUT", name, "boot-token", NULL, "text/plain", body,
			    NULL, error);
}

gboolean
gnt_metad_client_remove_package(const gchar *control_socket, const gchar *name, GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL, FALSE);
	return control_call(control_socket, "DELETE", name, "package", NULL, NULL, NULL, NULL,
			    error);
}

/* GETs /instances/<name>/@what?@query: the answer's JSON. */
static JsonNode *
get_json(const gchar *control_socket, const gchar *name, const gchar *what, const gchar *query,
	 GError **error)
{
	g_autoptr(GBytes) answer = NULL;
	gsize len = 0;
	const gchar *data = NULL;

	if (!control_call(control_socket, "GET", name, what, query, NULL, NULL, &answer, error))
		return NULL;
	data = g_bytes_get_data(answer, &len);
	return gnt_json_parse(data != NULL ? data : "", (gssize)len, error);
}

JsonNode *
gnt_metad_client_get_progress(const gchar *control_socket, const gchar *name, guint64 since,
			      GError **error)
{
	g_autofree gchar *query = g_strdup_printf("since=%" G_GUINT64_FORMAT, since);

	g_return_val_if_fail(control_socket != NULL && name != NULL, NULL);
	return get_json(control_socket, name, "progress", query, error);
}

gboolean
gnt_metad_client_clear_progress(const gchar *control_socket, const gchar *name, GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL, FALSE);
	return control_call(control_socket, "DELETE", name, "progress", NULL, NULL, NULL, NULL,
			    error);
}

/* --- kickstart install sessions (gnt-metadata-install.h) --- */

gboolean
gnt_metad_client_put_install(const gchar *control_socket, const gchar *name, JsonObject *spec,
			     GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL && spec != NULL, FALSE);
	return put_json(control_socket, name, "install", spec, error);
}

JsonNode *
gnt_metad_client_get_install(const gchar *control_socket, const gchar *name, guint64 since,
			     guint wait_s, GError **error)
{
	g_autofree gchar *query =
		g_strdup_printf("since=%" G_GUINT64_FORMAT "&wait=%u", since, wait_s);

	g_return_val_if_fail(control_socket != NULL && name != NULL, NULL);
	return get_json(control_socket, name, "install", query, error);
}

gboolean
gnt_metad_client_remove_install(const gchar *control_socket, const gchar *name, GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL, FALSE);
	return control_call(control_socket, "DELETE", name, "install", NULL, NULL, NULL, NULL,
			    error);
}
