#include "gnt-net.h"

#include <stdio.h>
#include <string.h>

#include "gnt-error.h"

GSocket *
gnt_net_listen(const gchar *address, guint port, const gchar *scheme, guint *bound_port,
	       gchar **uri, GError **error)
{
	g_autoptr(GInetAddress) inet = NULL;
	g_autoptr(GSocketAddress) socket_address = NULL;
	g_autoptr(GSocketAddress) bound = NULL;
	g_autoptr(GSocket) listener = NULL;
	g_autofree gchar *host = NULL;
	GInetSocketAddress *bound_inet;

	g_return_val_if_fail(address != NULL && scheme != NULL, NULL);
	g_return_val_if_fail(bound_port != NULL && uri != NULL, NULL);

	inet = g_inet_address_new_from_string(address);
	if (inet == NULL || port > G_MAXUINT16) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "cannot listen on '%s' port %u: not an IP address and port", address,
			    port);
		return NULL;
	}
	socket_address = g_inet_socket_address_new(inet, (guint16)port);
	listener = g_socket_new(g_inet_address_get_family(inet), G_SOCKET_TYPE_STREAM,
				G_SOCKET_PROTOCOL_TCP, error);
	if (listener != NULL) {
		g_socket_set_blocking(listener, FALSE);
		g_socket_set_listen_backlog(listener, GNT_NET_LISTEN_BACKLOG);
	}
	/* g_socket_bind() with allow_reuse sets SO_REUSEADDR */
	if (listener == NULL || !g_socket_bind(listener, socket_address, TRUE, error) ||
	    !g_socket_listen(listener, error) ||
	    (bound = g_socket_get_local_address(listener, error)) == NULL) {
		gnt_error_convert(error);
		g_prefix_error(error, "listening on %s port %u: ", address, port);
		return NULL;
	}
	bound_inet = G_INET_SOCKET_ADDRESS(bound);
	host = g_inet_address_to_string(g_inet_socket_address_get_address(bound_inet));
	*bound_port = g_inet_socket_address_get_port(bound_inet);
	*uri = g_uri_join(G_URI_FLAGS_NONE, scheme, NULL, host, (gint)*bound_port, "/", NULL, NULL);
	return g_steal_pointer(&listener);
}

gboolean
gnt_net_parse_mac(const gchar *text, guint8 *out)
{
	if (text == NULL || strlen(text) != 17)
		return FALSE;
	for (guint i = 0; i < 17; i++) {
		if (i % 3 == 2 ? text[i] != ':' : !g_ascii_isxdigit(text[i]))
			return FALSE;
	}
	for (guint i = 0; out != NULL && i < 6; i++)
		out[i] = (guint8)(g_ascii_xdigit_value(text[i * 3]) * 16 +
				  g_ascii_xdigit_value(text[i * 3 + 1]));
	return TRUE;
}
