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

static gboolean
control_call(const gchar *control_socket, const gchar *method, const gchar *name,
	     GBytes *body, GError **error)
{
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(control_socket);
	g_autoptr(SoupSession) session = soup_session_new_with_options(
		"remote-connectable", address, "proxy-resolver", NULL, "timeout", 30, NULL);
	g_autofree gchar *escaped = g_uri_escape_string(name, NULL, FALSE);
	g_autofree gchar *uri = g_strconcat("http://localhost/instances/", escaped, NULL);
	g_autoptr(SoupMessage) msg = soup_message_new(method, uri);
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) local_error = NULL;
	guint status = 0;

	if (msg == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "bad instance name '%s'", name);
		return FALSE;
	}
	if (body != NULL)
		soup_message_set_request_body_from_bytes(msg, "application/json", body);
	answer = soup_session_send_and_read(session, msg, NULL, &local_error);
	if (answer == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot reach metad at '%s' (is gantry-metad running?): %s",
			    control_socket, local_error->message);
		return FALSE;
	}
	status = soup_message_get_status(msg);
	if (SOUP_STATUS_IS_SUCCESSFUL(status))
		return TRUE;
	g_set_error(error, GNT_ERROR,
		    status == SOUP_STATUS_NOT_FOUND ? GNT_ERROR_NOT_FOUND : GNT_ERROR_INVALID,
		    "metad refused %s of instance '%s' (%u): %.*s", method, name, status,
		    (int)g_bytes_get_size(answer), (const gchar *)g_bytes_get_data(answer, NULL));
	return FALSE;
}

gboolean
gnt_metad_client_push(const gchar *control_socket, const gchar *name, JsonObject *record,
		      GError **error)
{
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(GBytes) body = NULL;
	gboolean ok = FALSE;

	g_return_val_if_fail(control_socket != NULL && name != NULL && record != NULL, FALSE);

	node = json_node_init_object(json_node_alloc(), record);
	text = gnt_json_to_string(node);
	body = g_bytes_new_static(text, strlen(text));
	ok = control_call(control_socket, "PUT", name, body, error);
	g_clear_pointer(&body, g_bytes_unref);
	gnt_secret_wipe_string(text);
	return ok;
}

gboolean
gnt_metad_client_remove(const gchar *control_socket, const gchar *name, GError **error)
{
	g_return_val_if_fail(control_socket != NULL && name != NULL, FALSE);
	return control_call(control_socket, "DELETE", name, NULL, error);
}
