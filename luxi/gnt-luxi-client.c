#include "gnt-luxi-client.h"

#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"
#include "gnt-secret.h"

#define CLIENT_DEFAULT_TIMEOUT_S 180 /* Ganeti's LUXI_DEF_RWTO */
#define CLIENT_WFJC_MAX_S	 89
#define CLIENT_CONNECT_TIMEOUT_S 30 /* Ganeti's LUXI_DEF_CTMO */
#define CLIENT_READ_CHUNK	 65536

struct _GntLuxiClient {
	GObject parent_instance;
	gchar *socket_path;
	GSocket *socket; /* NULL once the connection broke */
	GntLuxiFramer *framer;
	guint timeout_s;
	gchar *error_class;
	JsonNode *error_args; /* the encoded exception's arguments, or NULL */
};

G_DEFINE_TYPE(GntLuxiClient, gnt_luxi_client, G_TYPE_OBJECT)

static void
gnt_luxi_client_finalize(GObject *object)
{
	GntLuxiClient *self = GNT_LUXI_CLIENT(object);

	if (self->socket != NULL)
		g_socket_close(self->socket, NULL);
	g_clear_object(&self->socket);
	gnt_luxi_framer_free(self->framer);
	g_free(self->socket_path);
	g_free(self->error_class);
	g_clear_pointer(&self->error_args, json_node_unref);
	G_OBJECT_CLASS(gnt_luxi_client_parent_class)->finalize(object);
}

static void
gnt_luxi_client_class_init(GntLuxiClientClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_luxi_client_finalize;
}

static void
gnt_luxi_client_init(GntLuxiClient *self)
{
	self->timeout_s = CLIENT_DEFAULT_TIMEOUT_S;
	self->framer = gnt_luxi_framer_new(0);
}

/* Connects, retrying while the daemon's backlog is full (EAGAIN) for up
 * to Ganeti's connect timeout. */
static gboolean
client_connect(GSocket *socket, GSocketAddress *address, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + CLIENT_CONNECT_TIMEOUT_S * G_USEC_PER_SEC;
	gulong pause_us = 1000;

	for (;;) {
		g_autoptr(GError) error_local = NULL;

		if (g_socket_connect(socket, address, NULL, &error_local))
			return TRUE;
		if (!g_error_matches(error_local, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK) ||
		    g_get_monotonic_time() > deadline) {
			g_propagate_error(error, g_steal_pointer(&error_local));
			return FALSE;
		}
		g_usleep(pause_us);
		pause_us = MIN(pause_us * 2, 50000);
	}
}

/* Ganeti's class for a failed send or receive (rpc/transport.py). */
static const gchar *
transport_error_class(const GError *cause)
{
	if (g_error_matches(cause, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
		return GNT_LUXI_EXC_TIMEOUT;
	if (g_error_matches(cause, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
		return GNT_LUXI_EXC_PERMISSION;
	return GNT_LUXI_EXC_PROTOCOL;
}

/* Ganeti's class for a failed connect: the daemon is absent, the socket
 * forbidden, or the connect (or its retries on a full backlog) timed out. */
static const gchar *
connect_error_class(const GError *cause)
{
	if (g_error_matches(cause, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
	    g_error_matches(cause, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
		return GNT_LUXI_EXC_TIMEOUT;
	if (g_error_matches(cause, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
		return GNT_LUXI_EXC_PERMISSION;
	return GNT_LUXI_EXC_NO_MASTER;
}

GntLuxiClient *
gnt_luxi_client_new(const gchar *socket_path, GError **error)
{
	return gnt_luxi_client_new_full(socket_path, NULL, error);
}

GntLuxiClient *
gnt_luxi_client_new_full(const gchar *socket_path, const gchar **exc_class, GError **error)
{
	g_autoptr(GntLuxiClient) self = NULL;
	g_autoptr(GSocketAddress) address = NULL;
	g_autoptr(GError) error_local = NULL;

	g_return_val_if_fail(socket_path != NULL, NULL);

	if (exc_class != NULL)
		*exc_class = NULL;

	self = g_object_new(GNT_TYPE_LUXI_CLIENT, NULL);
	self->socket_path = g_strdup(socket_path);
	self->socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
				    G_SOCKET_PROTOCOL_DEFAULT, &error_local);
	if (self->socket == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot create a socket for the master daemon at '%s': %s", socket_path,
			    error_local->message);
		if (exc_class != NULL)
			*exc_class = GNT_LUXI_EXC_NO_MASTER;
		return NULL;
	}
	g_socket_set_timeout(self->socket, self->timeout_s);
	address = g_unix_socket_address_new(socket_path);
	if (!client_connect(self->socket, address, &error_local)) {
		gboolean absent =
			g_error_matches(error_local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
			g_error_matches(error_local, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);

		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot connect to the master daemon at '%s': %s%s", socket_path,
			    error_local->message, absent ? " (is gantry-masterd running?)" : "");
		if (exc_class != NULL)
			*exc_class = connect_error_class(error_local);
		return NULL;
	}
	return g_steal_pointer(&self);
}

void
gnt_luxi_client_set_timeout(GntLuxiClient *self, guint timeout_s)
{
	g_return_if_fail(GNT_IS_LUXI_CLIENT(self));

	self->timeout_s = timeout_s;
	if (self->socket != NULL)
		g_socket_set_timeout(self->socket, timeout_s);
}

const gchar *
gnt_luxi_client_get_error_class(GntLuxiClient *self)
{
	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), NULL);
	return self->error_class;
}

JsonNode *
gnt_luxi_client_get_error_args(GntLuxiClient *self)
{
	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), NULL);
	return self->error_args;
}

/* A transport failure of Ganeti's class @exc_class: the connection is
 * unusable from now on. */
static void
client_broken(GntLuxiClient *self, GError **error, const gchar *exc_class, const gchar *what,
	      const GError *cause)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s the master daemon at '%s': %s",
		    what, self->socket_path, cause->message);
	g_free(self->error_class);
	self->error_class = g_strdup(exc_class);
	if (self->socket != NULL)
		g_socket_close(self->socket, NULL);
	g_clear_object(&self->socket);
}

static gboolean
client_send(GntLuxiClient *self, const gchar *data, gsize len, GError **error)
{
	gsize done = 0;

	while (done < len) {
		g_autoptr(GError) error_local = NULL;
		gssize n = g_socket_send(self->socket, data + done, len - done, NULL, &error_local);

		if (n < 0) {
			client_broken(self, error, transport_error_class(error_local),
				      "sending a request to", error_local);
			return FALSE;
		}
		done += (gsize)n;
	}
	return TRUE;
}

/* Reads until one whole answer is framed, then parses it. */
static gboolean
client_receive(GntLuxiClient *self, gboolean *success, JsonNode **result, GError **error)
{
	guint8 buf[CLIENT_READ_CHUNK];

	for (;;) {
		g_autoptr(GError) error_local = NULL;
		const gchar *msg = NULL;
		gsize len = 0;
		gssize n;

		if (!gnt_luxi_framer_next(self->framer, &msg, &len, &error_local)) {
			client_broken(self, error, GNT_LUXI_EXC_PROTOCOL, "reading the answer of",
				      error_local);
			return FALSE;
		}
		if (msg != NULL) {
			gboolean ok =
				gnt_luxi_parse_response(msg, len, success, result, &error_local);

			gnt_luxi_framer_release(self->framer);
			if (!ok) {
				g_propagate_prefixed_error(
					error, g_steal_pointer(&error_local),
					"master daemon at '%s': ", self->socket_path);
				self->error_class = g_strdup(GNT_LUXI_EXC_PROTOCOL);
				g_socket_close(self->socket, NULL);
				g_clear_object(&self->socket);
			}
			return ok;
		}
		n = g_socket_receive(self->socket, (gchar *)buf, sizeof(buf), NULL, &error_local);
		if (n < 0) {
			client_broken(self, error, transport_error_class(error_local),
				      "reading the answer of", error_local);
			return FALSE;
		}
		if (n == 0) {
			g_autoptr(GError) closed = g_error_new_literal(
				GNT_ERROR, GNT_ERROR_ENVIRONMENT, "the connection was closed");

			client_broken(self, error, GNT_LUXI_EXC_CONNECTION_CLOSED,
				      "reading the answer of", closed);
			return FALSE;
		}
		gnt_luxi_framer_feed(self->framer, buf, (gsize)n);
		gnt_secret_wipe(buf, (gsize)n);
	}
}

static JsonNode *
client_call_timeout(GntLuxiClient *self, const gchar *method, JsonNode *args, guint timeout_s,
		    GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	g_autofree gchar *request = NULL;
	gboolean success = FALSE;
	gboolean sent;
	gsize len = 0;

	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), NULL);
	g_return_val_if_fail(method != NULL, NULL);
	g_return_val_if_fail(args != NULL && JSON_NODE_HOLDS_ARRAY(args), NULL);

	g_clear_pointer(&self->error_class, g_free);
	g_clear_pointer(&self->error_args, json_node_unref);
	if (self->socket == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "the connection to the master daemon at '%s' is closed",
			    self->socket_path);
		self->error_class = g_strdup(GNT_LUXI_EXC_PROTOCOL);
		return NULL;
	}
	g_socket_set_timeout(self->socket, timeout_s);
	request = gnt_luxi_build_request(method, args, &len);
	sent = client_send(self, request, len, error);
	gnt_secret_wipe(request, len);
	if (!sent || !client_receive(self, &success, &result, error))
		return NULL;
	if (self->socket != NULL)
		g_socket_set_timeout(self->socket, self->timeout_s);
	if (!success) {
		g_propagate_error(error, gnt_luxi_decode_error(result, &self->error_class));
		/* decoded with a class: the answer is [class, [args...]] */
		if (self->error_class != NULL)
			self->error_args = json_node_copy(
				json_array_get_element(json_node_get_array(result), 1));
		return NULL;
	}
	return g_steal_pointer(&result);
}

JsonNode *
gnt_luxi_client_call(GntLuxiClient *self, const gchar *method, JsonNode *args, GError **error)
{
	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), NULL);
	return client_call_timeout(self, method, args, self->timeout_s, error);
}

/* A one-element argument list holding a reference to @array. */
static JsonNode *
args_of_array(JsonArray *array)
{
	JsonArray *args = json_array_new();

	json_array_add_array_element(args, json_array_ref(array));
	return gnt_json_node_new_array(args);
}

gboolean
gnt_luxi_client_submit_job(GntLuxiClient *self, JsonArray *ops, guint64 *job_id, GError **error)
{
	g_autoptr(JsonNode) args = NULL;
	g_autoptr(JsonNode) result = NULL;
	gint64 id = 0;

	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), FALSE);
	g_return_val_if_fail(ops != NULL, FALSE);

	args = args_of_array(ops);
	result = gnt_luxi_client_call(self, "SubmitJob", args, error);
	if (result == NULL)
		return FALSE;
	if (!gnt_json_node_get_int(result, "the job ID SubmitJob returned", &id, error))
		return FALSE;
	if (id < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "SubmitJob returned the negative job ID %" G_GINT64_FORMAT, id);
		return FALSE;
	}
	if (job_id != NULL)
		*job_id = (guint64)id;
	return TRUE;
}

JsonNode *
gnt_luxi_client_wait_for_job_change(GntLuxiClient *self, guint64 job_id, JsonArray *fields,
				    JsonNode *prev_info, gint64 prev_serial, guint timeout_s,
				    GError **error)
{
	g_autoptr(JsonNode) args = NULL;
	JsonArray *list = json_array_new();
	guint socket_timeout;

	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), NULL);
	g_return_val_if_fail(fields != NULL, NULL);

	json_array_add_int_element(list, (gint64)job_id);
	json_array_add_array_element(list, json_array_ref(fields));
	json_array_add_element(list, prev_info != NULL ? json_node_copy(prev_info)
						       : gnt_json_node_new_null());
	if (prev_serial < 0)
		json_array_add_null_element(list);
	else
		json_array_add_int_element(list, prev_serial);
	json_array_add_int_element(list, timeout_s);
	args = gnt_json_node_new_array(list);

	/* the server answers after at most 89 s; leave it room */
	socket_timeout = self->timeout_s;
	if (socket_timeout != 0)
		socket_timeout = MAX(socket_timeout, MIN(timeout_s, CLIENT_WFJC_MAX_S) + 30);
	return client_call_timeout(self, "WaitForJobChange", args, socket_timeout, error);
}

JsonNode *
gnt_luxi_client_query(GntLuxiClient *self, const gchar *what, JsonArray *fields, JsonNode *filter,
		      GError **error)
{
	g_autoptr(JsonNode) args = NULL;
	JsonArray *list = json_array_new();

	g_return_val_if_fail(GNT_IS_LUXI_CLIENT(self), NULL);
	g_return_val_if_fail(what != NULL && fields != NULL, NULL);

	json_array_add_string_element(list, what);
	json_array_add_array_element(list, json_array_ref(fields));
	json_array_add_element(list,
			       filter != NULL ? json_node_copy(filter) : gnt_json_node_new_null());
	args = gnt_json_node_new_array(list);
	return gnt_luxi_client_call(self, "Query", args, error);
}
