/*
 * rpc/gnt-rpc-node-appliance-metad.c: noded's calls on metad's control
 * socket for the channel, the package and the progress of an instance
 * (gnt-rpc-node-appliance-metad.h).
 */
#include "gnt-rpc-node-appliance-metad.h"

#include <gio/gunixsocketaddress.h>
#include <libsoup/soup.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

#define METAD_TIMEOUT_S 30

/* One request on the control socket, for instance @name's sub-resource
 * @what (with @query, nullable); the answer's body on success. */
static GBytes *
metad_request(const gchar *control_socket, const gchar *method, const gchar *name,
	      const gchar *what, const gchar *query, const gchar *content_type, GBytes *body,
	      GError **error)
{
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(control_socket);
	g_autoptr(SoupSession) session =
		soup_session_new_with_options("remote-connectable", address, "proxy-resolver",
					      NULL, "timeout", METAD_TIMEOUT_S, NULL);
	g_autofree gchar *escaped = g_uri_escape_string(name, NULL, FALSE);
	g_autofree gchar *uri = g_strdup_printf("http://localhost/instances/%s/%s%s%s", escaped,
						what, query != NULL ? "?" : "",
						query != NULL ? query : "");
	g_autoptr(SoupMessage) msg = soup_message_new(method, uri);
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) local_error = NULL;
	guint status;

	if (msg == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "bad instance name '%s'", name);
		return NULL;
	}
	if (body != NULL)
		soup_message_set_request_body_from_bytes(msg, content_type, body);
	answer = soup_session_send_and_read(session, msg, NULL, &local_error);
	if (answer == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot reach metad at '%s' (is gantry-metad running?): %s",
			    control_socket, local_error->message);
		return NULL;
	}
	status = soup_message_get_status(msg);
	if (SOUP_STATUS_IS_SUCCESSFUL(status))
		return g_steal_pointer(&answer);
	g_set_error(error, GNT_ERROR,
		    status == SOUP_STATUS_NOT_FOUND ? GNT_ERROR_NOT_FOUND : GNT_ERROR_INVALID,
		    "metad refused %s of the %s of instance '%s' (%u): %.*s", method, what, name,
		    status, (int)MIN(g_bytes_get_size(answer), 512),
		    (const gchar *)g_bytes_get_data(answer, NULL));
	return NULL;
}

gboolean
gnt_rpc_node_appliance_metad_put_channel(const gchar *control_socket, const gchar *name,
					 const gchar *device, const gchar *mac, const gchar *ip,
					 GError **error)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(GBytes) body = NULL;
	g_autoptr(GBytes) answer = NULL;

	g_return_val_if_fail(control_socket != NULL && name != NULL && device != NULL, FALSE);

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "device");
	json_builder_add_string_value(builder, device);
	if (mac != NULL && ip != NULL) {
		json_builder_set_member_name(builder, "dhcp");
		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "mac");
		json_builder_add_string_value(builder, mac);
		json_builder_set_member_name(builder, "ip");
		json_builder_add_string_value(builder, ip);
		json_builder_set_member_name(builder, "netmask");
		json_builder_add_string_value(builder, "255.255.0.0");
		json_builder_end_object(builder);
	}
	json_builder_end_object(builder);
	root = json_builder_get_root(builder);
	text = gnt_json_to_string(root);
	body = g_bytes_new(text, strlen(text));
	answer = metad_request(control_socket, "PUT", name, "channel", NULL, "application/json",
			       body, error);
	return answer != NULL;
}

gboolean
gnt_rpc_node_appliance_metad_put_package(const gchar *control_socket, const gchar *name,
					 GBytes *package, GError **error)
{
	g_autoptr(GBytes) answer = NULL;

	g_return_val_if_fail(control_socket != NULL && name != NULL && package != NULL, FALSE);
	answer = metad_request(control_socket, "PUT", name, "package", NULL,
			       "application/octet-stream", package, error);
	return answer != NULL;
}

JsonObject *
gnt_rpc_node_appliance_metad_get_progress(const gchar *control_socket, const gchar *name,
					  guint64 since, GError **error)
{
	g_autofree gchar *query = g_strdup_printf("since=%" G_GUINT64_FORMAT, since);
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(JsonNode) root = NULL;
	JsonArray *entries = NULL;

	g_return_val_if_fail(control_socket != NULL && name != NULL, NULL);
	answer = metad_request(control_socket, "GET", name, "progress", query, NULL, NULL, error);
	if (answer == NULL)
		return NULL;
	root = gnt_json_parse(g_bytes_get_data(answer, NULL), (gssize)g_bytes_get_size(answer),
			      error);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root) ||
	    !gnt_json_get_array(json_node_get_object(root), "entries", &entries, NULL)) {
		g_clear_error(error);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "metad's progress of instance '%s' is malformed", name);
		return NULL;
	}
	return json_object_ref(json_node_get_object(root));
}

gboolean
gnt_rpc_node_appliance_metad_delete(const gchar *control_socket, const gchar *name,
				    const gchar *what, GError **error)
{
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) local_error = NULL;

	g_return_val_if_fail(control_socket != NULL && name != NULL && what != NULL, FALSE);
	answer = metad_request(control_socket, "DELETE", name, what, NULL, NULL, NULL,
			       &local_error);
	if (answer != NULL || g_error_matches(local_error, GNT_ERROR, GNT_ERROR_NOT_FOUND))
		return TRUE;
	g_propagate_error(error, g_steal_pointer(&local_error));
	return FALSE;
}
