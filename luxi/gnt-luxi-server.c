#include "gnt-luxi-server.h"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "gnt-error.h"
#include "gnt-paths.h"
#include "gnt-luxi-codec.h"
#include "gnt-luxi-methods.h"
#include "gnt-memory.h"
#include "gnt-secret.h"

#define SERVER_READ_CHUNK 65536
/* While a request is in progress, read ahead at most this much of the
 * next ones: enough to notice a client that goes away, not a way to make
 * the daemon buffer an unbounded pipeline. */
#define SERVER_READ_AHEAD  65536
#define SERVER_SOCKET_MODE 0660
#define SERVER_BACKLOG	   512 /* clients retry on EAGAIN when it is full */

typedef struct _Conn Conn;

struct _GntLuxiServer {
	GObject parent_instance;
	GntQueue *queue;
	GntConfig *config;
	GntRpcClient *rpc; /* NULL: queries get no live data */
	GSocketService *service;
	gchar *socket_path; /* set while listening */
	GHashTable *conns;  /* Conn, each holding one reference */
	gsize max_message;
	guint next_conn_id;
	guint8 *read_buf; /* SERVER_READ_CHUNK bytes, wiped after each read */
};

G_DEFINE_TYPE(GntLuxiServer, gnt_luxi_server, G_TYPE_OBJECT)

/* One client connection; a reference-counted box (g_rc_box) so that an
 * answer still being written can outlive gnt_luxi_server_stop(). */
struct _Conn {
	GntLuxiServer *server; /* NULL once closed */
	guint id;
	GSocketConnection *connection;
	GSocket *socket;
	GSource *source; /* readable (or hung up) */
	GIOCondition source_condition;
	GntLuxiFramer *framer;
	GntLuxiCall *call; /* the request in progress */
	gchar *out;	   /* the answer being written */
	gsize out_len;
	GCancellable *cancellable;
	gboolean eof; /* the client will send no more */
	gboolean close_after_write;
};

static void
conn_process(Conn *conn);
static void
conn_close(Conn *conn);

static void
conn_clear(gpointer data)
{
	Conn *conn = data;

	g_assert(conn->server == NULL);
	g_assert(conn->call == NULL && conn->source == NULL);
	gnt_luxi_framer_free(conn->framer);
	g_free(conn->out);
	g_clear_object(&conn->cancellable);
	g_clear_object(&conn->connection);
}

static void
conn_release(gpointer data)
{
	g_rc_box_release_full(data, conn_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Conn, conn_release)

static gboolean
conn_busy(Conn *conn)
{
	return conn->call != NULL || conn->out != NULL;
}

/* What the socket source should wake us for: data while we want to read,
 * otherwise only a hang-up (always reported) so that a client that goes
 * away during a long request is noticed. */
static GIOCondition
conn_wanted_condition(Conn *conn)
{
	GntLuxiFramer *framer = conn->framer;

	if (conn->eof || gnt_luxi_framer_is_overflowed(framer))
		return 0;
	if ((conn_busy(conn) || gnt_luxi_framer_has_message(framer)) &&
	    gnt_luxi_framer_get_buffered(framer) >= SERVER_READ_AHEAD)
		return 0;
	return G_IO_IN;
}

static gboolean
conn_on_socket(GSocket *socket, GIOCondition condition, gpointer user_data);

static void
conn_clear_source(Conn *conn)
{
	if (conn->source == NULL)
		return;
	g_source_destroy(conn->source);
	g_clear_pointer(&conn->source, g_source_unref);
}

static void
conn_update_source(Conn *conn)
{
	GIOCondition wanted;

	if (conn->server == NULL)
		return;
	wanted = conn_wanted_condition(conn);
	if (conn->source != NULL && conn->source_condition == wanted)
		return;
	conn_clear_source(conn);
	conn->source = g_socket_create_source(conn->socket, wanted, NULL);
	conn->source_condition = wanted;
	g_source_set_callback(conn->source, G_SOURCE_FUNC(conn_on_socket), conn, NULL);
	g_source_set_name(conn->source, "gnt-luxi connection");
	g_source_attach(conn->source, g_main_context_get_thread_default());
}

static void
conn_write_done(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(Conn) conn = user_data;
	g_autoptr(GError) error = NULL;
	gboolean ok = g_output_stream_write_all_finish(G_OUTPUT_STREAM(source), res, NULL, &error);

	g_clear_pointer(&conn->out, g_free);
	if (conn->server == NULL) {
		/* closed while writing: the close waited for us */
		g_io_stream_close(G_IO_STREAM(conn->connection), NULL, NULL);
		return;
	}
	if (!ok) {
		g_debug("connection %u: cannot write the answer: %s", conn->id, error->message);
		conn_close(conn);
		return;
	}
	if (conn->close_after_write) {
		conn_close(conn);
		return;
	}
	conn_process(conn);
}

#define LARGE_ANSWER_BYTES (256 * 1024)

/* Starts writing one answer, the whole message. (transfer full: @message) */
static void
conn_send(Conn *conn, gchar *message, gsize len)
{
	GOutputStream *output = g_io_stream_get_output_stream(G_IO_STREAM(conn->connection));

	g_assert(conn->out == NULL);
	conn->out = message;
	conn->out_len = len;
	g_output_stream_write_all_async(output, conn->out, conn->out_len, G_PRIORITY_DEFAULT,
					conn->cancellable, conn_write_done, g_rc_box_acquire(conn));
}

static void
conn_reply(gchar *message, gsize len, gpointer user_data)
{
	Conn *conn = user_data;

	/* an aborted call never answers, so the connection is still open */
	g_clear_pointer(&conn->call, gnt_luxi_call_unref);
	/* a large answer (a Query of thousands of rows) was built in
	 * megabytes that malloc would keep */
	if (len >= LARGE_ANSWER_BYTES)
		gnt_memory_trim_soon();
	conn_send(conn, message, len);
}

static void
conn_send_request_error(Conn *conn, const GError *error)
{
	g_autoptr(JsonNode) result = gnt_luxi_encode_request_error(error->message);
	gsize len = 0;
	gchar *message = gnt_luxi_build_response(FALSE, result, &len);

	g_debug("connection %u: refusing a request: %s", conn->id, error->message);
	conn_send(conn, message, len);
}

/* Starts the next buffered request if the previous one was answered. */
static void
conn_process(Conn *conn)
{
	while (conn->server != NULL && !conn_busy(conn)) {
		g_autoptr(GError) error = NULL;
		g_autofree gchar *method = NULL;
		g_autoptr(JsonArray) args = NULL;
		const gchar *msg = NULL;
		gsize len = 0;
		gboolean parsed;

		if (!gnt_luxi_framer_next(conn->framer, &msg, &len, &error)) {
			conn->close_after_write = TRUE;
			conn_send_request_error(conn, error);
			break;
		}
		if (msg == NULL) {
			if (conn->eof) {
				if (gnt_luxi_framer_get_partial(conn->framer) > 0)
					g_debug("connection %u: closed with %" G_GSIZE_FORMAT
						" bytes of an unterminated message",
						conn->id,
						gnt_luxi_framer_get_partial(conn->framer));
				conn_close(conn);
			}
			break;
		}
		/* the request text may hold secrets: wipe it once parsed */
		parsed = gnt_luxi_parse_request(msg, len, &method, &args, &error);
		gnt_luxi_framer_release(conn->framer);
		if (!parsed) {
			conn_send_request_error(conn, error);
			continue;
		}
		g_debug("connection %u: %s", conn->id, method);
		conn->call = gnt_luxi_call_new(conn->server->queue, conn->server->config,
					       conn_reply, conn);
		gnt_luxi_call_set_rpc(conn->call, conn->server->rpc);
		gnt_luxi_call_dispatch(conn->call, method, args);
	}
	conn_update_source(conn);
}

static void
conn_on_eof(Conn *conn)
{
	conn->eof = TRUE;
	if (g_socket_condition_check(conn->socket, G_IO_HUP) & G_IO_HUP) {
		/* gone for good: nobody to answer */
		g_debug("connection %u: the client went away", conn->id);
		conn_close(conn);
		return;
	}
	/* half-closed: answer what was asked, then close */
	conn_process(conn);
}

static gboolean
conn_on_socket(GSocket *socket, GIOCondition condition, gpointer user_data)
{
	g_autoptr(Conn) conn = g_rc_box_acquire((Conn *)user_data);
	GntLuxiServer *server = conn->server;
	GSource *source = g_main_current_source();

	if (condition & G_IO_IN) {
		g_autoptr(GError) error = NULL;
		gssize n = g_socket_receive_with_blocking(socket, (gchar *)server->read_buf,
							  SERVER_READ_CHUNK, FALSE, NULL, &error);

		if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
			return G_SOURCE_CONTINUE;
		if (n < 0) {
			g_debug("connection %u: cannot read: %s", conn->id, error->message);
			conn_close(conn);
		} else if (n == 0) {
			conn_on_eof(conn);
		} else {
			gnt_luxi_framer_feed(conn->framer, server->read_buf, (gsize)n);
			gnt_secret_wipe(server->read_buf, (gsize)n);
			conn_process(conn);
		}
	} else if (condition & (G_IO_HUP | G_IO_ERR | G_IO_NVAL)) {
		g_debug("connection %u: the client hung up", conn->id);
		conn_close(conn);
	}
	return conn->source == source ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
conn_close(Conn *conn)
{
	GntLuxiServer *server = conn->server;

	if (server == NULL)
		return;
	g_debug("connection %u: closing", conn->id);
	conn->server = NULL;
	if (conn->call != NULL) {
		gnt_luxi_call_abort(conn->call);
		g_clear_pointer(&conn->call, gnt_luxi_call_unref);
	}
	conn_clear_source(conn);
	g_cancellable_cancel(conn->cancellable);
	if (conn->out == NULL)
		g_io_stream_close(G_IO_STREAM(conn->connection), NULL, NULL);
	/* drops the set's reference: last, conn may be freed here */
	g_hash_table_remove(server->conns, conn);
}

static gboolean
server_incoming(GSocketService *service, GSocketConnection *connection, GObject *source_object,
		gpointer user_data)
{
	GntLuxiServer *self = user_data;
	Conn *conn = g_rc_box_new0(Conn);

	conn->server = self;
	conn->id = ++self->next_conn_id;
	conn->connection = g_object_ref(connection);
	conn->socket = g_socket_connection_get_socket(connection);
	conn->framer = gnt_luxi_framer_new(self->max_message);
	conn->cancellable = g_cancellable_new();
	g_hash_table_add(self->conns, conn);
	g_debug("connection %u: accepted", conn->id);
	conn_update_source(conn);
	return TRUE;
}

static void
gnt_luxi_server_dispose(GObject *object)
{
	GntLuxiServer *self = GNT_LUXI_SERVER(object);

	gnt_luxi_server_stop(self);
	g_clear_object(&self->service);
	g_clear_object(&self->queue);
	g_clear_object(&self->config);
	g_clear_object(&self->rpc);
	G_OBJECT_CLASS(gnt_luxi_server_parent_class)->dispose(object);
}

static void
gnt_luxi_server_finalize(GObject *object)
{
	GntLuxiServer *self = GNT_LUXI_SERVER(object);

	g_hash_table_unref(self->conns);
	g_free(self->read_buf);
	g_free(self->socket_path);
	G_OBJECT_CLASS(gnt_luxi_server_parent_class)->finalize(object);
}

static void
gnt_luxi_server_class_init(GntLuxiServerClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = gnt_luxi_server_dispose;
	object_class->finalize = gnt_luxi_server_finalize;
}

static void
gnt_luxi_server_init(GntLuxiServer *self)
{
	self->conns = g_hash_table_new_full(g_direct_hash, g_direct_equal, conn_release, NULL);
	self->max_message = GNT_LUXI_DEFAULT_MAX_MESSAGE;
	self->read_buf = g_malloc0(SERVER_READ_CHUNK);
}

GntLuxiServer *
gnt_luxi_server_new(GntQueue *queue, GntConfig *config)
{
	GntLuxiServer *self;

	g_return_val_if_fail(GNT_IS_QUEUE(queue), NULL);
	g_return_val_if_fail(config == NULL || GNT_IS_CONFIG(config), NULL);

	self = g_object_new(GNT_TYPE_LUXI_SERVER, NULL);
	self->queue = g_object_ref(queue);
	self->config = config != NULL ? g_object_ref(config) : NULL;
	return self;
}

void
gnt_luxi_server_set_rpc(GntLuxiServer *self, GntRpcClient *rpc)
{
	g_return_if_fail(GNT_IS_LUXI_SERVER(self));
	g_return_if_fail(rpc == NULL || GNT_IS_RPC_CLIENT(rpc));

	g_set_object(&self->rpc, rpc);
}

void
gnt_luxi_server_set_max_message(GntLuxiServer *self, gsize max_message)
{
	g_return_if_fail(GNT_IS_LUXI_SERVER(self));
	self->max_message = max_message > 0 ? max_message : GNT_LUXI_DEFAULT_MAX_MESSAGE;
}

/* Removes a socket file no daemon answers on; fails for a live one or
 * for anything that is not a socket. */
static gboolean
remove_stale_socket(const gchar *path, GError **error)
{
	g_autoptr(GSocket) probe = NULL;
	g_autoptr(GSocketAddress) address = NULL;
	g_autoptr(GError) probe_error = NULL;
	GStatBuf st;

	if (g_lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return TRUE;
		gnt_error_set_errno(error, errno, path);
		return FALSE;
	}
	if (!S_ISSOCK(st.st_mode)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "'%s' exists and is not a socket; not removing it", path);
		return FALSE;
	}
	probe = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
			     error);
	if (probe == NULL) {
		gnt_error_convert(error);
		return FALSE;
	}
	address = g_unix_socket_address_new(path);
	if (g_socket_connect(probe, address, NULL, &probe_error)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "another master daemon is listening on '%s'", path);
		return FALSE;
	}
	/* only a refused connection proves nobody listens: a full backlog or
	 * a permission problem does not */
	if (!g_error_matches(probe_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot tell whether '%s' is in use: %s", path, probe_error->message);
		return FALSE;
	}
	if (g_unlink(path) != 0 && errno != ENOENT) {
		gnt_error_set_errno(error, errno, path);
		return FALSE;
	}
	g_info("removed the stale socket '%s'", path);
	return TRUE;
}

gboolean
gnt_luxi_server_listen(GntLuxiServer *self, const gchar *socket_path, GError **error)
{
	g_autoptr(GSocket) socket = NULL;
	g_autoptr(GSocketAddress) address = NULL;

	g_return_val_if_fail(GNT_IS_LUXI_SERVER(self), FALSE);
	g_return_val_if_fail(socket_path != NULL, FALSE);
	g_return_val_if_fail(self->socket_path == NULL, FALSE);

	if (!gnt_paths_check_socket(socket_path, error) ||
	    !remove_stale_socket(socket_path, error)) {
		g_prefix_error(error, "listening for LUXI: ");
		return FALSE;
	}
	socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
			      error);
	if (socket == NULL) {
		gnt_error_convert(error);
		return FALSE;
	}
	/* Linux creates the file with the socket's own mode (less the umask):
	 * never wider than 0660, not even between bind() and chmod() */
	if (fchmod(g_socket_get_fd(socket), SERVER_SOCKET_MODE) != 0) {
		gnt_error_set_errno(error, errno, "setting the LUXI socket's mode");
		return FALSE;
	}
	address = g_unix_socket_address_new(socket_path);
	g_socket_set_listen_backlog(socket, SERVER_BACKLOG);
	if (!g_socket_bind(socket, address, FALSE, error) || !g_socket_listen(socket, error)) {
		gnt_error_convert(error);
		g_prefix_error(error, "listening on '%s': ", socket_path);
		return FALSE;
	}
	if (g_chmod(socket_path, SERVER_SOCKET_MODE) != 0) {
		gnt_error_set_errno(error, errno, socket_path);
		g_unlink(socket_path);
		return FALSE;
	}
	if (self->service == NULL) {
		self->service = g_socket_service_new();
		g_signal_connect(self->service, "incoming", G_CALLBACK(server_incoming), self);
	}
	if (!g_socket_listener_add_socket(G_SOCKET_LISTENER(self->service), socket, NULL, error)) {
		gnt_error_convert(error);
		g_unlink(socket_path);
		return FALSE;
	}
	g_socket_service_start(self->service);
	self->socket_path = g_strdup(socket_path);
	g_info("listening for LUXI on '%s'", socket_path);
	return TRUE;
}

void
gnt_luxi_server_stop(GntLuxiServer *self)
{
	g_autoptr(GList) conns = NULL;

	g_return_if_fail(GNT_IS_LUXI_SERVER(self));

	if (self->service != NULL) {
		g_socket_service_stop(self->service);
		g_socket_listener_close(G_SOCKET_LISTENER(self->service));
	}
	if (self->socket_path != NULL) {
		g_unlink(self->socket_path);
		g_clear_pointer(&self->socket_path, g_free);
	}
	conns = g_hash_table_get_keys(self->conns);
	for (GList *l = conns; l != NULL; l = l->next)
		conn_close(l->data);
}

guint
gnt_luxi_server_get_n_connections(GntLuxiServer *self)
{
	g_return_val_if_fail(GNT_IS_LUXI_SERVER(self), 0);
	return g_hash_table_size(self->conns);
}

guint
gnt_luxi_server_get_n_watching(GntLuxiServer *self)
{
	GHashTableIter iter;
	gpointer key;
	guint n = 0;

	g_return_val_if_fail(GNT_IS_LUXI_SERVER(self), 0);

	g_hash_table_iter_init(&iter, self->conns);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		Conn *conn = key;

		if (conn->call != NULL && gnt_luxi_call_is_watching(conn->call))
			n++;
	}
	return n;
}
