/*
 * metadata/gnt-metad-server.c: metad's HTTP listeners (http/gnt-http-server.h,
 * keep-alive): per instance a unix socket and optionally a TCP listener
 * bound to a device (the channel decides who asks), and the control socket.
 */
#include "gnt-metad-server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "gnt-dhcp.h"
#include "gnt-error.h"
#include "gnt-http-server.h"
#include "gnt-json.h"
#include "gnt-metadata-install.h"
#include "gnt-net.h"
#include "gnt-secret.h"

/* a pushed record bigger than this is refused */
#define CONTROL_MAX_BODY (16 * 1024 * 1024)
/* a channel spec bigger than this is refused */
#define CHANNEL_MAX_BODY (64 * 1024)
/* guests: the largest body (a /write of the whole pipe) */
#define GUEST_MAX_BODY GNT_METADATA_PIPE_MAX_BYTES
/* connections of all guests at once, and of the control socket */
#define GUEST_MAX_CLIENTS 1024
/* ... and of one instance's listener: a guest cannot take them all */
#define GUEST_MAX_CLIENTS_PER_LISTENER 64
#define CONTROL_MAX_CLIENTS	       64
/* guests are untrusted: shorter limits than rapi's */
#define GUEST_REQUEST_TIMEOUT_S 15
#define GUEST_KEEP_ALIVE_S	30
#define CHANNEL_DEFAULT_ADDRESS "169.254.169.254"
#define CHANNEL_DEFAULT_PORT	80
#define TEXT_TYPE		"text/plain; charset=utf-8"

/* One instance's listeners; the listener data of each. */
typedef struct {
	GntMetadServer *server; /* not a reference: the server owns us */
	gchar *instance;
	gchar *socket_path;
	guint unix_id;
	guint tcp_id; /* 0: no device-bound channel */
	gchar *device;
	gchar *address;
	guint port;
	GntDhcpResponder *dhcp;
} Channel;

struct _GntMetadServer {
	GObject parent_instance;
	gchar *control_socket;
	gchar *instance_dir;
	GntMetadataStore *store;
	GntHttpServer *guests;
	GntHttpServer *control;
	guint control_id;
	GHashTable *channels;	    /* instance name -> Channel */
	GntMetadInstalls *installs; /* kickstart installs (gnt-metadata-install.h) */
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

/* Closes the device-bound listener and the DHCP responder of @channel. */
static void
channel_close_device(Channel *self)
{
	if (self->tcp_id != 0 && self->server->guests != NULL)
		gnt_http_server_remove_listener(self->server->guests, self->tcp_id);
	self->tcp_id = 0;
	g_clear_pointer(&self->dhcp, gnt_dhcp_responder_free);
	g_clear_pointer(&self->device, g_free);
	g_clear_pointer(&self->address, g_free);
	self->port = 0;
}

static void
channel_free(Channel *self)
{
	channel_close_device(self);
	if (self->unix_id != 0 && self->server->guests != NULL)
		gnt_http_server_remove_listener(self->server->guests, self->unix_id);
	g_unlink(self->socket_path);
	g_free(self->socket_path);
	g_free(self->instance);
	g_free(self);
}

static void
gnt_metad_server_finalize(GObject *object)
{
	GntMetadServer *self = GNT_METAD_SERVER(object);

	gnt_metad_server_stop(self);
	g_hash_table_unref(self->channels);
	g_clear_pointer(&self->installs, gnt_metad_installs_free);
	g_clear_object(&self->guests);
	g_clear_object(&self->control);
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
guest_cb(GntHttpRequest *request, gpointer user_data);
static void
control_cb(GntHttpRequest *request, gpointer user_data);

static void
gnt_metad_server_init(GntMetadServer *self)
{
	self->store = gnt_metadata_store_new();
	self->channels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)channel_free);
	self->installs = gnt_metad_installs_new();
}

GntMetadServer *
gnt_metad_server_new(const gchar *control_socket, const gchar *instance_dir)
{
	GntMetadServer *self = g_object_new(GNT_TYPE_METAD_SERVER, NULL);

	g_return_val_if_fail(control_socket != NULL && instance_dir != NULL, NULL);
	self->control_socket = g_strdup(control_socket);
	self->instance_dir = g_strdup(instance_dir);
	/* two servers: guests filling their connection limit cannot lock
	 * noded out of the control socket */
	self->guests = gnt_http_server_new(
		&(const GntHttpServerOptions){
			.max_clients = GUEST_MAX_CLIENTS,
			.max_clients_per_listener = GUEST_MAX_CLIENTS_PER_LISTENER,
			.request_timeout_s = GUEST_REQUEST_TIMEOUT_S,
			.keep_alive_s = GUEST_KEEP_ALIVE_S,
			.max_body = GUEST_MAX_BODY,
		},
		guest_cb, self);
	self->control = gnt_http_server_new(
		&(const GntHttpServerOptions){
			.max_clients = CONTROL_MAX_CLIENTS,
			.max_body = GNT_METADATA_PACKAGE_MAX,
		},
		control_cb, self);
	return self;
}

GntMetadataStore *
gnt_metad_server_get_store(GntMetadServer *self)
{
	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), NULL);
	return self->store;
}

/* A socket listening on a new unix socket at @path, mode @mode. */
static GSocket *
listen_unix(const gchar *path, mode_t mode, GError **error)
{
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(path);
	g_autoptr(GError) local_error = NULL;
	mode_t old_umask = 0;
	gboolean bound = FALSE;

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
	if (bound)
		g_socket_set_listen_backlog(socket, GNT_NET_LISTEN_BACKLOG);
	if (!bound || !g_socket_listen(socket, &local_error)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot listen on '%s': %s",
			    path, local_error->message);
		g_unlink(path);
		return NULL;
	}
	return g_steal_pointer(&socket);
}

/* A TCP socket listening on @address:@port that only connections through
 * @device reach (SO_BINDTODEVICE): GNT_ERROR_INVALID naming a device that
 * does not exist or a bad address, GNT_ERROR_ENVIRONMENT otherwise. */
static GSocket *
listen_device(const gchar *device, const gchar *address, guint port, GError **error)
{
	g_autoptr(GInetAddress) inet = g_inet_address_new_from_string(address);
	g_autoptr(GSocketAddress) sockaddr = NULL;
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GError) local_error = NULL;

	if (strlen(device) == 0 || strlen(device) >= IFNAMSIZ || if_nametoindex(device) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "device '%s' does not exist",
			    device);
		return NULL;
	}
	if (inet == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "address '%s' is not an IP address", address);
		return NULL;
	}
	sockaddr = g_inet_socket_address_new(inet, (guint16)port);
	socket = g_socket_new(g_inet_address_get_family(inet), G_SOCKET_TYPE_STREAM,
			      G_SOCKET_PROTOCOL_TCP, &local_error);
	if (socket == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot make a socket: %s",
			    local_error->message);
		return NULL;
	}
	/* before bind(): several devices may each have their own listener on
	 * the same address and port */
	if (setsockopt(g_socket_get_fd(socket), SOL_SOCKET, SO_BINDTODEVICE, device,
		       (socklen_t)strlen(device) + 1) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot bind a socket to device '%s': %s", device, g_strerror(errno));
		return NULL;
	}
	g_socket_set_listen_backlog(socket, GNT_NET_LISTEN_BACKLOG);
	if (!g_socket_bind(socket, sockaddr, TRUE, &local_error) ||
	    !g_socket_listen(socket, &local_error)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot listen on %s port %u on device '%s': %s", address, port, device,
			    local_error->message);
		return NULL;
	}
	return g_steal_pointer(&socket);
}

/* --- answers ---------------------------------------------------------------- */

static void
wipe_string_free(gpointer data)
{
	GString *text = data;

	gnt_secret_wipe(text->str, text->len);
	g_string_free(text, TRUE);
}

/* Answers @request; @body nullable. A @sensitive answer is wiped once
 * written. */
static void
respond(GntHttpRequest *request, guint status, const gchar *content_type, const gchar *allow,
	GBytes *body, gboolean sensitive)
{
	gsize len = 0;
	gconstpointer data = body != NULL ? g_bytes_get_data(body, &len) : NULL;
	g_autofree gchar *extra = allow != NULL ? g_strdup_printf("Allow: %s\r\n", allow) : NULL;
	gboolean merge = !request->flags.head_only && (sensitive || len <= GNT_HTTP_MERGE_BODY_MAX);
	GString *head = gnt_http_build_head(&request->flags, status, content_type, len, extra,
					    merge ? len : 0);
	GBytes *response = NULL;

	if (merge && len > 0)
		g_string_append_len(head, data, (gssize)len);
	if (sensitive)
		response = g_bytes_new_with_free_func(head->str, head->len, wipe_string_free, head);
	else
		response = g_string_free_to_bytes(head);
	gnt_http_request_respond(request, response,
				 !merge && !request->flags.head_only && len > 0 ? g_bytes_ref(body)
										: NULL);
}

static void
respond_text(GntHttpRequest *request, guint status, const gchar *text)
{
	g_autoptr(GBytes) body = g_bytes_new(text, strlen(text));

	respond(request, status, TEXT_TYPE, NULL, body, FALSE);
}

/* The decoded path of @request's target and its query (NULL: none); FALSE
 * when the path does not decode (an encoded NUL, a bad escape). */
static gboolean
split_target(const gchar *target, gchar **path, GHashTable **query)
{
	const gchar *question = strchr(target, '?');
	g_autofree gchar *raw = question != NULL ? g_strndup(target, (gsize)(question - target))
						 : g_strdup(target);

	*path = g_uri_unescape_string(raw, NULL);
	*query = question != NULL ? gnt_http_parse_query(question + 1) : NULL;
	return *path != NULL;
}

/* --- the instances' channels ------------------------------------------- */

static void
guest_cb(GntHttpRequest *request, gpointer user_data)
{
	GntMetadServer *self = user_data;
	Channel *channel = request->listener_data;
	g_autofree gchar *path = NULL;
	g_autoptr(GHashTable) query = NULL;
	g_autofree gchar *method = g_strdup(request->method);
	g_auto(GntMetadataAnswer) answer = {0};
	gsize len = 0;
	gconstpointer data = NULL;

	if (!split_target(request->target, &path, &query)) {
		g_debug("instance '%s': %s: malformed path: 400", channel->instance, method);
		respond_text(request, 400, "Malformed request URI\n");
		return;
	}
	/* a kickstart install's files and callbacks; what it does not answer
	 * (a wrong token among others) gets the trees' one 404 below */
	if (gnt_metad_installs_answer(
		    self->installs, channel->instance, path,
		    gnt_metadata_store_peek_package(self->store, channel->instance), &request)) {
		if (g_log_get_debug_enabled())
			g_debug("instance '%s': %s '%s': install session", channel->instance,
				method, path);
		return;
	}
	/* during a kickstart install the package goes only to the install's
	 * token (above): not through the tree's path, which asks for none */
	if (gnt_metad_installs_contains(self->installs, channel->instance) &&
	    g_str_has_suffix(path, "/os/package"))
		path[0] = '\0'; /* no path: the tree's one 404 */
	/* the instance is the channel's, whatever the request names */
	gnt_metadata_store_answer(self->store, channel->instance, method, path, query,
				  request->body, &answer);
	if (answer.body != NULL)
		data = g_bytes_get_data(answer.body, &len);
	respond(request, answer.status, answer.content_type, answer.allow, answer.body,
		answer.sensitive);
	if (answer.sensitive && data != NULL)
		gnt_secret_wipe((gpointer)data, len);
	/* never the body: it may hold private values */
	if (g_log_get_debug_enabled())
		g_debug("instance '%s': %s '%s': %u", channel->instance, method, path,
			answer.status);
}

gboolean
gnt_metad_server_push(GntMetadServer *self, const gchar *name, JsonObject *record, GError **error)
{
	g_autoptr(GSocket) socket = NULL;
	g_autofree gchar *path = NULL;
	Channel *channel = NULL;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), FALSE);

	if (!gnt_metadata_store_push(self->store, name, record, error))
		return FALSE;
	if (g_hash_table_contains(self->channels, name))
		return TRUE;
	path = socket_path(self->instance_dir, name);
	/* the hypervisor (qemu's guestfwd) connects as root */
	socket = listen_unix(path, 0600, error);
	if (socket == NULL) {
		gnt_metadata_store_remove(self->store, name);
		return FALSE;
	}
	channel = g_new0(Channel, 1);
	channel->server = self;
	channel->instance = g_strdup(name);
	channel->socket_path = g_steal_pointer(&path);
	channel->unix_id = gnt_http_server_add_listener(self->guests, socket, 0, channel);
	/* the slirp fallback's guestfwd carries all of a guest's connections
	 * on one stream to this socket (doc/metad.md) */
	gnt_http_server_set_listener_shared_streams(self->guests, channel->unix_id, TRUE);
	g_hash_table_insert(self->channels, g_strdup(name), channel);
	g_info("serving instance '%s' on '%s'", name, channel->socket_path);
	return TRUE;
}

gboolean
gnt_metad_server_remove(GntMetadServer *self, const gchar *name, GError **error)
{
	gboolean known = FALSE;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), FALSE);

	known = gnt_metadata_store_remove(self->store, name);
	known = g_hash_table_remove(self->channels, name) || known;
	gnt_metad_installs_remove(self->installs, name);
	if (!known) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "metad knows no instance '%s'",
			    name);
		return FALSE;
	}
	g_info("stopped serving instance '%s'", name);
	return TRUE;
}

static Channel *
lookup_channel(GntMetadServer *self, const gchar *name, GError **error)
{
	Channel *channel = g_hash_table_lookup(self->channels, name);

	if (channel == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "metad knows no instance '%s'",
			    name);
	return channel;
}

/* The DHCP responder of @spec's "dhcp" member for @device (NULL and no
 * error: none asked). */
static GntDhcpResponder *
start_dhcp(const gchar *device, const gchar *server_address, JsonObject *dhcp, GError **error)
{
	g_autofree gchar *mac = NULL;
	g_autofree gchar *ip = NULL;
	g_autofree gchar *netmask = NULL;
	guint8 mac_bytes[6];
	struct in_addr client;
	struct in_addr server;
	struct in_addr mask;

	if (!gnt_json_dup_string(dhcp, "mac", &mac, error) ||
	    !gnt_json_dup_string(dhcp, "ip", &ip, error) ||
	    !gnt_json_dup_string(dhcp, "netmask", &netmask, error)) {
		g_prefix_error(error, "'dhcp': ");
		return NULL;
	}
	if (!gnt_net_parse_mac(mac, mac_bytes)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'dhcp': MAC '%s' is not valid",
			    mac);
		return NULL;
	}
	if (inet_pton(AF_INET, ip, &client) != 1 || inet_pton(AF_INET, netmask, &mask) != 1 ||
	    inet_pton(AF_INET, server_address, &server) != 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'dhcp': '%s', netmask '%s' and the channel's address '%s' must be "
			    "IPv4 addresses",
			    ip, netmask, server_address);
		return NULL;
	}
	{
		GntDhcpLease lease = {
			.device = (gchar *)device,
			.client = client,
			.server = server,
			.netmask = mask,
			.lease_s = 86400,
		};

		memcpy(lease.mac, mac_bytes, sizeof(lease.mac));
		return gnt_dhcp_responder_new(&lease, error);
	}
}

gboolean
gnt_metad_server_set_channel(GntMetadServer *self, const gchar *name, JsonObject *spec,
			     GError **error)
{
	Channel *channel = NULL;
	g_autofree gchar *device = NULL;
	g_autofree gchar *address = NULL;
	gint64 port = CHANNEL_DEFAULT_PORT;
	JsonObject *dhcp = NULL;
	JsonNode *node = NULL;
	g_autoptr(GSocket) socket = NULL;
	GntDhcpResponder *responder = NULL;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self) && name != NULL && spec != NULL, FALSE);

	channel = lookup_channel(self, name, error);
	if (channel == NULL)
		return FALSE;
	if (!gnt_json_dup_string(spec, "device", &device, error))
		return FALSE;
	node = json_object_get_member(spec, "address");
	if (node != NULL && !JSON_NODE_HOLDS_NULL(node) &&
	    !gnt_json_dup_string(spec, "address", &address, error))
		return FALSE;
	if (address == NULL)
		address = g_strdup(CHANNEL_DEFAULT_ADDRESS);
	node = json_object_get_member(spec, "port");
	if (node != NULL && !JSON_NODE_HOLDS_NULL(node) &&
	    !gnt_json_get_int(spec, "port", &port, error))
		return FALSE;
	if (port < 1 || port > 65535) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "port %" G_GINT64_FORMAT " is not in 1..65535", port);
		return FALSE;
	}
	node = json_object_get_member(spec, "dhcp");
	if (node != NULL && !JSON_NODE_HOLDS_NULL(node) &&
	    !gnt_json_get_object(spec, "dhcp", &dhcp, error))
		return FALSE;
	/* the old channel goes first: the new one may use the same device,
	 * address and port */
	channel_close_device(channel);
	socket = listen_device(device, address, (guint)port, error);
	if (socket == NULL)
		return FALSE;
	if (dhcp != NULL) {
		responder = start_dhcp(device, address, dhcp, error);
		if (responder == NULL)
			return FALSE;
	}
	channel->dhcp = responder;
	channel->device = g_steal_pointer(&device);
	channel->address = g_steal_pointer(&address);
	channel->port = (guint)port;
	channel->tcp_id = gnt_http_server_add_listener(self->guests, socket, 0, channel);
	g_info("serving instance '%s' on %s port %u through device '%s'%s", name, channel->address,
	       channel->port, channel->device, channel->dhcp != NULL ? ", with DHCP" : "");
	return TRUE;
}

gboolean
gnt_metad_server_remove_channel(GntMetadServer *self, const gchar *name, GError **error)
{
	Channel *channel = NULL;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self) && name != NULL, FALSE);

	channel = lookup_channel(self, name, error);
	if (channel == NULL)
		return FALSE;
	if (channel->tcp_id != 0)
		g_info("closing the channel of instance '%s' on device '%s'", name,
		       channel->device);
	channel_close_device(channel);
	return TRUE;
}

/* --- the control socket ------------------------------------------------ */

/* The JSON object in @body (wiped afterwards: records hold secrets). */
static JsonNode *
parse_body_object(GBytes *body, const gchar *what, const gchar *name, gsize max, GError **error)
{
	gsize len = 0;
	const gchar *data = body != NULL ? g_bytes_get_data(body, &len) : NULL;
	g_autoptr(JsonNode) node = NULL;

	if (len > max) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the %s of instance '%s' is too large (%" G_GSIZE_FORMAT " bytes)",
			    what, name, len);
		return NULL;
	}
	node = gnt_json_parse(data != NULL ? data : "", (gssize)len, error);
	if (node != NULL && !JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the %s of instance '%s' must be a JSON object", what, name);
		return NULL;
	}
	return g_steal_pointer(&node);
}

static gboolean
control_push(GntMetadServer *self, GntHttpRequest *request, const gchar *name, GError **error)
{
	g_autoptr(JsonNode)
		node = parse_body_object(request->body, "record", name, CONTROL_MAX_BODY, error);
	gboolean ok = node != NULL &&
		      gnt_metad_server_push(self, name, json_node_get_object(node), error);

	/* the request held the secrets: wipe it (the store has its copies;
	 * the body's buffer is wiped when freed) */
	if (node != NULL)
		gnt_metadata_wipe_secrets(json_node_get_object(node));
	if (ok)
		g_info("metadata of instance '%s' pushed", name);
	return ok;
}

static gboolean
parse_since(GHashTable *query, guint64 *since, GError **error)
{
	GPtrArray *values = query != NULL ? g_hash_table_lookup(query, "since") : NULL;
	const gchar *text = values != NULL && values->len > 0 ? g_ptr_array_index(values, 0) : "0";

	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, since, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "since '%s' is not a sequence number", text);
		return FALSE;
	}
	return TRUE;
}

/* What the control socket does for @method on /instances/<name>/<what>
 * (@what NULL: the instance itself). FALSE with @error set when refused;
 * *@json set for an answer with a body. *@allow for 405. */
static gboolean
control_instance(GntMetadServer *self, GntHttpRequest *request, const gchar *name,
		 const gchar *what, GHashTable *query, gchar **json, const gchar **allow,
		 GError **error)
{
	const gchar *method = request->method;
	g_autoptr(JsonNode) node = NULL;

	/* tearing down is idempotent: what an unknown instance had is gone */
	if (what != NULL && g_str_equal(method, "DELETE") &&
	    !gnt_metadata_store_contains(self->store, name) &&
	    (g_str_equal(what, "channel") || g_str_equal(what, "package") ||
	     g_str_equal(what, "progress")))
		return TRUE;
	if (what == NULL) {
		*allow = "PUT, DELETE";
		if (g_str_equal(method, "PUT"))
			return control_push(self, request, name, error);
		if (g_str_equal(method, "DELETE"))
			return gnt_metad_server_remove(self, name, error);
		return FALSE;
	}
	if (g_str_equal(what, "channel")) {
		*allow = "PUT, DELETE";
		if (g_str_equal(method, "PUT")) {
			node = parse_body_object(request->body, "channel", name, CHANNEL_MAX_BODY,
						 error);
			return node != NULL &&
			       gnt_metad_server_set_channel(self, name, json_node_get_object(node),
							    error);
		}
		if (g_str_equal(method, "DELETE"))
			return gnt_metad_server_remove_channel(self, name, error);
		return FALSE;
	}
	if (g_str_equal(what, "package")) {
		*allow = "PUT, DELETE";
		if (g_str_equal(method, "PUT")) {
			g_autoptr(GBytes) empty = g_bytes_new(NULL, 0);

			return gnt_metadata_store_set_package(
				self->store, name, request->body != NULL ? request->body : empty,
				error);
		}
		if (g_str_equal(method, "DELETE"))
			return gnt_metadata_store_set_package(self->store, name, NULL, error);
		return FALSE;
	}
	/* the install appliance's boot token (doc/metad.md "In-band steps") */
	if (g_str_equal(what, "boot-token")) {
		g_autofree gchar *token = NULL;

		*allow = "PUT";
		if (!g_str_equal(method, "PUT"))
			return FALSE;
		token = request->body != NULL ? g_strndup(g_bytes_get_data(request->body, NULL),
							  g_bytes_get_size(request->body))
					      : NULL;
		return gnt_metadata_store_set_boot_token(self->store, name, token, error);
	}
	if (g_str_equal(what, "progress")) {
		guint64 since = 0;

		*allow = "GET, DELETE";
		if (g_str_equal(method, "GET")) {
			if (!parse_since(query, &since, error))
				return FALSE;
			*json = gnt_metadata_store_dup_progress(self->store, name, since, error);
			return *json != NULL;
		}
		if (g_str_equal(method, "DELETE"))
			return gnt_metadata_store_clear_progress(self->store, name, error);
		return FALSE;
	}
	*allow = NULL;
	return FALSE;
}

static void
control_cb(GntHttpRequest *request, gpointer user_data)
{
	GntMetadServer *self = user_data;
	g_autofree gchar *path = NULL;
	g_autoptr(GHashTable) query = NULL;
	g_auto(GStrv) parts = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *json = NULL;
	const gchar *allow = NULL;
	guint n = 0;

	if (!split_target(request->target, &path, &query)) {
		respond_text(request, 400, "Malformed request URI");
		return;
	}
	parts = g_strsplit(path, "/", 0);
	n = g_strv_length(parts);
	if (n == 2 && g_str_equal(parts[1], "instances") && g_str_equal(request->method, "GET")) {
		g_auto(GStrv) names = gnt_metadata_store_dup_names(self->store);
		g_autoptr(GString) out = g_string_new("[");
		g_autoptr(GBytes) body = NULL;

		for (guint i = 0; names[i] != NULL; i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			gnt_json_append_string(out, names[i]);
		}
		g_string_append_c(out, ']');
		body = g_bytes_new(out->str, out->len);
		respond(request, 200, "application/json", NULL, body, FALSE);
		return;
	}
	if (n < 3 || n > 4 || parts[0][0] != '\0' || !g_str_equal(parts[1], "instances")) {
		respond_text(request, 404, GNT_METADATA_NOT_FOUND_BODY);
		return;
	}
	if (!gnt_metadata_check_instance_name(parts[2], &error)) {
		respond_text(request, 400, error->message);
		return;
	}
	if (n == 4 && g_str_equal(parts[3], "install")) {
		gnt_metad_installs_control(self->installs, parts[2], request, query);
		return;
	}
	if (control_instance(self, request, parts[2], n == 4 ? parts[3] : NULL, query, &json,
			     &allow, &error)) {
		if (json != NULL) {
			g_autoptr(GBytes)
				body = g_bytes_new_take(g_steal_pointer(&json), strlen(json));

			respond(request, 200, "application/json", NULL, body, FALSE);
		} else {
			respond(request, 204, NULL, NULL, NULL, FALSE);
		}
		return;
	}
	if (error == NULL && allow == NULL) {
		respond_text(request, 404, GNT_METADATA_NOT_FOUND_BODY);
	} else if (error == NULL) {
		g_autoptr(GBytes) body = g_bytes_new_static("Method not allowed\n", 19);

		respond(request, 405, TEXT_TYPE, allow, body, FALSE);
	} else {
		g_warning("refusing %s '%s': %s", request->method, path, error->message);
		respond_text(request,
			     g_error_matches(error, GNT_ERROR, GNT_ERROR_NOT_FOUND) ? 404 : 400,
			     error->message);
	}
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
	g_autoptr(GSocket) socket = NULL;

	g_return_val_if_fail(GNT_IS_METAD_SERVER(self), FALSE);
	g_return_val_if_fail(self->control_id == 0, FALSE);

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
	socket = listen_unix(self->control_socket, 0600, error);
	if (socket == NULL)
		return FALSE;
	self->control_id = gnt_http_server_add_listener(self->control, socket, 0, NULL);
	return TRUE;
}

void
gnt_metad_server_stop(GntMetadServer *self)
{
	g_return_if_fail(GNT_IS_METAD_SERVER(self));

	g_hash_table_remove_all(self->channels);
	if (self->guests != NULL)
		gnt_http_server_stop(self->guests);
	if (self->control != NULL)
		gnt_http_server_stop(self->control);
	if (self->control_id != 0) {
		self->control_id = 0;
		g_unlink(self->control_socket);
	}
}
