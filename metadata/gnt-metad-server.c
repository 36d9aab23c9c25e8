/*
 * metadata/gnt-metad-server.c: metad's HTTP listeners on unix sockets, one
 * per instance (the channel decides who asks) and the control socket.
 */
#include "gnt-metad-server.h"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/stat.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-secret.h"

/* a pushed record bigger than this is refused */
#define CONTROL_MAX_BODY (16 * 1024 * 1024)

/*
 * A unix socket and the HTTP server answering on it. The socket is accepted
 * by our GSocketService and handed to libsoup as a stream: libsoup 3.2's
 * own listener keeps every accepted GSocket (a leak per connection, which a
 * guest could drive at will). libsoup 3.2 closes such a stream after one
 * response, so every answer says "Connection: close" (see close_after()).
 */
typedef struct {
	SoupServer *server;
	GSocketService *service;
} Listener;

static void
listener_free(Listener *self)
{
	g_socket_service_stop(self->service);
	g_socket_listener_close(G_SOCKET_LISTENER(self->service));
	g_object_unref(self->service);
	soup_server_disconnect(self->server);
	g_object_unref(self->server);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Listener, listener_free)

struct _GntMetadServer {
	GObject parent_instance;
	gchar *control_socket;
	gchar *instance_dir;
	GntMetadataStore *store;
	Listener *control;
	GHashTable *servers; /* instance name -> Listener */
};

G_DEFINE_TYPE(GntMetadServer, gnt_metad_server, G_TYPE_OBJECT)

gchar *
gnt_metad_dup_control_socket(const GntPaths *paths)
{
	return g_build_filename(gnt_paths_get_run_dir(paths), "socket", "gantry-metad", NULL);
}

gchar *
gnt_metad_dup_instance_dir(const GntPaths *paths)
{
	return g_build_filename(gnt_paths_get_run_dir(paths), "metad", NULL);
}

/* <dir>/<instance>.sock (transfer full) */
static gchar *
socket_path(const gchar *dir, const gchar *instance)
{
	g_autofree gchar *file = g_strconcat(instance, ".sock", NULL);

	return g_build_filename(dir, file, NULL);
}

gchar *
gnt_metad_dup_instance_socket(const GntPaths *paths, const gchar *instance)
{
	g_autofree gchar *dir = gnt_metad_dup_instance_dir(paths);

	return socket_path(dir, instance);
}

static void
gnt_metad_server_finalize(GObject *object)
{
	GntMetadServer *self = GNT_METAD_SERVER(object);

	gnt_metad_server_stop(self);
	g_hash_table_unref(self->servers);
	g_object_unref(self->store);
	g_free(self->control_socket);
	g_free(self->instance_dir);
	G_OBJECT_CLASS(gnt_metad_server_parent_class)->finalize(object);
}

static void
gnt_metad_server_class_init(GntMetadServerClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_metad_server_finalize;
}

static void
gnt_metad_server_init(GntMetadServer *self)
{
	self->store = gnt_metadata_store_new();
	self->servers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      (GDestroyNotify)listener_free);
}

GntMetadServer *
gnt_metad_server_new(const gchar *control_socket, const gchar *instance_dir)
{
	GntMetadServer *self = g_object_new(GNT_TYPE_METAD_SERVER, NULL);

	g_return_val_if_fail(control_socket != NULL && instance_dir != NULL, NULL);
	self->control_socket = g_strdup(control_socket);
	self->instance_dir = g_strdup(instance_dir);
	return self;
}

GntMetadataStore *
gnt_metad_server_get_store(GntMetadServer *self)
{
	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), NULL);
	return self->store;
}

static gboolean
incoming_cb(GSocketService *service, GSocketConnection *connection, GObject *source_object,
	    gpointer user_data)
{
	SoupServer *server = user_data;
	g_autoptr(GError) error = NULL;
	/* libsoup 3.2 wants both addresses, although the docs say nullable */
	g_autoptr(GSocketAddress) local = g_socket_connection_get_local_address(connection, &error);
	g_autoptr(GSocketAddress) remote = NULL;

	if (local != NULL)
		remote = g_socket_connection_get_remote_address(connection, &error);
	if (remote == NULL ||
	    !soup_server_accept_iostream(server, G_IO_STREAM(connection), local, remote, &error))
		g_warning("cannot accept a connection: %s", error->message);
	return TRUE;
}

/* An HTTP server listening on a new unix socket at @path, mode @mode. */
static Listener *
listen_unix(const gchar *path, mode_t mode, GError **error)
{
	g_autoptr(Listener) listener = g_new0(Listener, 1);
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(path);
	g_autoptr(GError) local_error = NULL;
	mode_t old_umask = 0;
	gboolean bound = FALSE;

	listener->server = soup_server_new("server-header", NULL, NULL);
	listener->service = g_socket_service_new();
	if (g_unlink(path) != 0 && errno != ENOENT) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot remove the old socket '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
			      &local_error);
	if (socket != NULL) {
		/* the mode is right from the start: no window where others connect */
		old_umask = umask(~mode & 0777);
		bound = g_socket_bind(socket, address, FALSE, &local_error);
		umask(old_umask);
	}
	if (!bound || !g_socket_listen(socket, &local_error) ||
	    !g_socket_listener_add_socket(G_SOCKET_LISTENER(listener->service), socket, NULL,
					  &local_error)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot listen on '%s': %s",
			    path, local_error->message);
		g_unlink(path);
		return NULL;
	}
	g_signal_connect(listener->service, "incoming", G_CALLBACK(incoming_cb),
			 listener->server);
	return g_steal_pointer(&listener);
}

/* One request a connection (see Listener), said so the client does not try
 * to reuse it. */
static void
close_after(SoupServerMessage *msg)
{
	soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Connection",
				     "close");
}

static void
set_text(SoupServerMessage *msg, guint status, const gchar *text)
{
	soup_server_message_set_status(msg, status, NULL);
	soup_server_message_set_response(msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY, text,
					 strlen(text));
}

/* --- the instances' channels ------------------------------------------- */

typedef struct {
	GntMetadServer *server; /* not a reference: the server owns us */
	gchar *instance;
} Channel;

static void
channel_free(gpointer data)
{
	Channel *self = data;

	g_free(self->instance);
	g_free(self);
}

static void
channel_cb(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	   gpointer user_data)
{
	Channel *channel = user_data;
	const gchar *method = soup_server_message_get_method(msg);
	g_autoptr(GBytes) body = NULL;
	g_auto(GntMetadataAnswer) answer = {0};
	gsize len = 0;
	gconstpointer data = NULL;

	close_after(msg);
	if (g_str_equal(method, "POST"))
		body = soup_message_body_flatten(soup_server_message_get_request_body(msg));
	/* the instance is the channel's, whatever the request names */
	gnt_metadata_store_answer(channel->server->store, channel->instance, method, path, body,
				  &answer);
	data = g_bytes_get_data(answer.body, &len);
	soup_server_message_set_status(msg, answer.status, NULL);
	if (answer.allow != NULL)
		soup_message_headers_replace(soup_server_message_get_response_headers(msg),
					     "Allow", answer.allow);
	soup_server_message_set_response(msg, answer.content_type, SOUP_MEMORY_COPY, data, len);
	if (answer.sensitive)
		gnt_secret_wipe((gpointer)data, len);
	/* never the body: it may hold private values */
	g_debug("instance '%s': %s '%s': %u", channel->instance, method, path, answer.status);
}

gboolean
gnt_metad_server_push(GntMetadServer *self, const gchar *name, JsonObject *record,
		      GError **error)
{
	g_autofree gchar *path = NULL;
	g_autoptr(Listener) listener = NULL;
	Channel *channel = NULL;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), FALSE);

	if (!gnt_metadata_store_push(self->store, name, record, error))
		return FALSE;
	if (g_hash_table_contains(self->servers, name))
		return TRUE;
	path = socket_path(self->instance_dir, name);
	/* the hypervisor (qemu's guestfwd) connects as root */
	listener = listen_unix(path, 0600, error);
	if (listener == NULL) {
		gnt_metadata_store_remove(self->store, name);
		return FALSE;
	}
	channel = g_new0(Channel, 1);
	channel->server = self;
	channel->instance = g_strdup(name);
	soup_server_add_handler(listener->server, NULL, channel_cb, channel, channel_free);
	g_hash_table_insert(self->servers, g_strdup(name), g_steal_pointer(&listener));
	g_info("serving instance '%s' on '%s'", name, path);
	return TRUE;
}

gboolean
gnt_metad_server_remove(GntMetadServer *self, const gchar *name, GError **error)
{
	g_autofree gchar *path = NULL;
	gboolean known = FALSE;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), FALSE);

	known = gnt_metadata_store_remove(self->store, name);
	known = g_hash_table_remove(self->servers, name) || known;
	if (!known) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "metad knows no instance '%s'",
			    name);
		return FALSE;
	}
	path = socket_path(self->instance_dir, name);
	g_unlink(path);
	g_info("stopped serving instance '%s'", name);
	return TRUE;
}

/* --- the control socket ------------------------------------------------ */

static void
control_push(GntMetadServer *self, SoupServerMessage *msg, const gchar *name)
{
	SoupMessageBody *request = soup_server_message_get_request_body(msg);
	g_autoptr(GBytes) body = soup_message_body_flatten(request);
	g_autoptr(JsonNode) node = NULL;
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(body, &len);

	if (len > CONTROL_MAX_BODY) {
		g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the record of instance '%s' is too large (%" G_GSIZE_FORMAT " bytes)",
			    name, len);
	} else if ((node = gnt_json_parse(data, (gssize)len, &error)) != NULL &&
		   !JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the record of instance '%s' must be a JSON object", name);
	}
	/* the request held the secrets: wipe it (the store has its copies) */
	if (error == NULL)
		gnt_metad_server_push(self, name, json_node_get_object(node), &error);
	gnt_secret_wipe((gpointer)data, len);
	if (request->data != NULL && request->data != data)
		gnt_secret_wipe((gpointer)request->data, (gsize)request->length);
	if (error != NULL) {
		g_warning("refusing a push: %s", error->message);
		set_text(msg, SOUP_STATUS_BAD_REQUEST, error->message);
		return;
	}
	g_info("metadata of instance '%s' pushed", name);
	soup_server_message_set_status(msg, SOUP_STATUS_NO_CONTENT, NULL);
}

static void
control_cb(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	   gpointer user_data)
{
	GntMetadServer *self = user_data;
	const gchar *method = soup_server_message_get_method(msg);
	g_autoptr(GError) error = NULL;
	const gchar *name = NULL;

	close_after(msg);
	if (g_str_equal(path, "/instances") && g_str_equal(method, "GET")) {
		g_auto(GStrv) names = gnt_metadata_store_dup_names(self->store);
		g_autoptr(GString) out = g_string_new("[");

		for (guint i = 0; names[i] != NULL; i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			gnt_json_append_string(out, names[i]);
		}
		g_string_append_c(out, ']');
		soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
		soup_server_message_set_response(msg, "application/json", SOUP_MEMORY_COPY,
						 out->str, out->len);
		return;
	}
	if (!g_str_has_prefix(path, "/instances/")) {
		set_text(msg, SOUP_STATUS_NOT_FOUND, GNT_METADATA_NOT_FOUND_BODY);
		return;
	}
	name = path + strlen("/instances/");
	if (!gnt_metadata_check_instance_name(name, &error)) {
		set_text(msg, SOUP_STATUS_BAD_REQUEST, error->message);
		return;
	}
	if (g_str_equal(method, "PUT")) {
		control_push(self, msg, name);
		return;
	}
	if (g_str_equal(method, "DELETE")) {
		if (!gnt_metad_server_remove(self, name, &error)) {
			set_text(msg, SOUP_STATUS_NOT_FOUND, error->message);
			return;
		}
		soup_server_message_set_status(msg, SOUP_STATUS_NO_CONTENT, NULL);
		return;
	}
	soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Allow",
				     "PUT, DELETE");
	set_text(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "Method not allowed\n");
}

static gboolean
remove_stale_sockets(const gchar *dir, GError **error)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, error);
	const gchar *entry = NULL;

	if (handle == NULL)
		return FALSE;
	while ((entry = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = NULL;

		if (!g_str_has_suffix(entry, ".sock"))
			continue;
		path = g_build_filename(dir, entry, NULL);
		g_unlink(path);
	}
	return TRUE;
}

gboolean
gnt_metad_server_listen(GntMetadServer *self, GError **error)
{
	g_autofree gchar *control_dir = NULL;
	g_autoptr(GError) local_error = NULL;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), FALSE);
	g_return_val_if_fail(self->control == NULL, FALSE);

	control_dir = g_path_get_dirname(self->control_socket);
	if (g_mkdir_with_parents(self->instance_dir, 0755) != 0 ||
	    g_mkdir_with_parents(control_dir, 0755) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot make metad's directories '%s' and '%s': %s", self->instance_dir,
			    control_dir, g_strerror(errno));
		return FALSE;
	}
	if (!remove_stale_sockets(self->instance_dir, &local_error)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s", local_error->message);
		return FALSE;
	}
	self->control = listen_unix(self->control_socket, 0600, error);
	if (self->control == NULL)
		return FALSE;
	soup_server_add_handler(self->control->server, NULL, control_cb, self, NULL);
	return TRUE;
}

void
gnt_metad_server_stop(GntMetadServer *self)
{
	g_autofree const gchar **names = NULL;

	g_return_if_fail(GNT_IS_METAD_SERVER(self));

	names = (const gchar **)g_hash_table_get_keys_as_array(self->servers, NULL);
	for (guint i = 0; names[i] != NULL; i++) {
		g_autofree gchar *path = socket_path(self->instance_dir, names[i]);

		g_unlink(path);
	}
	g_clear_pointer(&names, g_free);
	g_hash_table_remove_all(self->servers);
	if (self->control != NULL) {
		g_clear_pointer(&self->control, listener_free);
		g_unlink(self->control_socket);
	}
}
