#include "image-test-server.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gnt-tls.h"

typedef struct {
	guint status;
	GBytes *body;
	gsize claimed;
	gsize hold_at; /* 0: none */
} Resource;

struct _ImageServer {
	GSocketService *service;
	GMainContext *context; /* the accepting thread's */
	GMainLoop *loop;
	GThread *thread;
	GTlsCertificate *certificate;
	gchar *base;
	GMutex lock;
	GCond cond;
	GHashTable *resources; /* path -> Resource */
	gboolean released;
	guint n_requests;
};

static void
resource_free(Resource *self)
{
	g_bytes_unref(self->body);
	g_free(self);
}

static const gchar *
reason(guint status)
{
	switch (status) {
	case 200:
		return "OK";
	case 404:
		return "Not Found";
	default:
		return "Error";
	}
}

/* The path of "GET /path HTTP/1.1", after the headers are read. */
static gchar *
read_request(GDataInputStream *in)
{
	g_autofree gchar *line = g_data_input_stream_read_line(in, NULL, NULL, NULL);
	g_auto(GStrv) words = NULL;

	if (line == NULL)
		return NULL;
	for (;;) {
		g_autofree gchar *header = g_data_input_stream_read_line(in, NULL, NULL, NULL);

		if (header == NULL || header[0] == '\r' || header[0] == '\0')
			break;
	}
	words = g_strsplit(g_strchomp(line), " ", 3);
	return g_strv_length(words) >= 2 ? g_strdup(words[1]) : NULL;
}

static void
answer(ImageServer *self, GIOStream *stream, const gchar *path)
{
	GOutputStream *out = g_io_stream_get_output_stream(stream);
	g_autofree gchar *head = NULL;
	g_autoptr(GBytes) body = NULL;
	Resource found = {.status = 404};
	gsize len = 0;
	const guint8 *data;

	g_mutex_lock(&self->lock);
	if (path != NULL && g_hash_table_lookup(self->resources, path) != NULL)
		found = *(Resource *)g_hash_table_lookup(self->resources, path);
	body = found.body != NULL ? g_bytes_ref(found.body) : g_bytes_new_static("not found\n", 10);
	self->n_requests++;
	g_mutex_unlock(&self->lock);
	data = g_bytes_get_data(body, &len);
	head = g_strdup_printf("HTTP/1.1 %u %s\r\nContent-Type: application/octet-stream\r\n"
			       "Content-Length: %" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n",
			       found.status, reason(found.status),
			       found.claimed > 0 ? found.claimed : len);
	if (!g_output_stream_write_all(out, head, strlen(head), NULL, NULL, NULL))
		return;
	if (found.hold_at > 0 && found.hold_at < len) {
		if (!g_output_stream_write_all(out, data, found.hold_at, NULL, NULL, NULL))
			return;
		g_mutex_lock(&self->lock);
		while (!self->released)
			g_cond_wait(&self->cond, &self->lock);
		g_mutex_unlock(&self->lock);
		data += found.hold_at;
		len -= found.hold_at;
	}
	(void)g_output_stream_write_all(out, data, len, NULL, NULL, NULL);
}

static gboolean
run_cb(GThreadedSocketService *service, GSocketConnection *connection, GObject *source,
       gpointer user_data)
{
	ImageServer *self = user_data;
	g_autoptr(GIOStream) stream = NULL;
	g_autoptr(GDataInputStream) in = NULL;
	g_autofree gchar *path = NULL;

	if (self->certificate != NULL) {
		stream = G_IO_STREAM(g_tls_server_connection_new(G_IO_STREAM(connection),
								 self->certificate, NULL));
		if (stream == NULL ||
		    !g_tls_connection_handshake(G_TLS_CONNECTION(stream), NULL, NULL))
			return TRUE; /* the client refused us */
	} else {
		stream = G_IO_STREAM(g_object_ref(connection));
	}
	in = g_data_input_stream_new(g_io_stream_get_input_stream(stream));
	g_filter_input_stream_set_close_base_stream(G_FILTER_INPUT_STREAM(in), FALSE);
	path = read_request(in);
	answer(self, stream, path);
	(void)g_io_stream_close(stream, NULL, NULL);
	return TRUE;
}

/* Accepts connections (each is answered in a thread of the service's). */
static gpointer
accept_thread(gpointer data)
{
	ImageServer *self = data;

	g_main_context_push_thread_default(self->context);
	g_socket_service_start(self->service);
	g_main_loop_run(self->loop);
	g_socket_service_stop(self->service);
	g_socket_listener_close(G_SOCKET_LISTENER(self->service));
	g_main_context_pop_thread_default(self->context);
	return NULL;
}

ImageServer *
image_server_new(GTlsCertificate *certificate)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) address = g_inet_socket_address_new(loopback, 0);
	g_autoptr(GSocketAddress) bound = NULL;
	ImageServer *self = g_new0(ImageServer, 1);

	/* The server's thread makes the process's first GTask while the test's
	 * thread may be initializing libsoup's classes, which need GTask's type
	 * too: GLib 2.74 can deadlock on such concurrent first registrations
	 * (seen: one thread in g_type_add_interface_static(), the other in
	 * g_once_init_enter() of g_task_get_type()). Registered here first. */
	g_type_ensure(G_TYPE_TASK);
	g_mutex_init(&self->lock);
	g_cond_init(&self->cond);
	self->resources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						(GDestroyNotify)resource_free);
	self->certificate = certificate != NULL ? g_object_ref(certificate) : NULL;
	self->context = g_main_context_new();
	self->loop = g_main_loop_new(self->context, FALSE);
	g_main_context_push_thread_default(self->context);
	self->service = g_threaded_socket_service_new(8);
	g_socket_service_stop(self->service);
	g_assert_true(g_socket_listener_add_address(G_SOCKET_LISTENER(self->service), address,
						    G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
						    NULL, &bound, &error));
	g_assert_no_error(error);
	g_main_context_pop_thread_default(self->context);
	g_signal_connect(self->service, "run", G_CALLBACK(run_cb), self);
	self->base = g_strdup_printf("%s://127.0.0.1:%u", certificate != NULL ? "https" : "http",
				     g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound)));
	self->thread = g_thread_new("image-server", accept_thread, self);
	return self;
}

static gboolean
quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

void
image_server_free(ImageServer *self)
{
	if (self == NULL)
		return;
	image_server_release(self);
	/* from inside the loop: a quit before it runs would be lost */
	g_main_context_invoke(self->context, quit_cb, self->loop);
	g_thread_join(self->thread);
	/* the threaded service's threads end with it */
	g_clear_object(&self->service);
	g_main_loop_unref(self->loop);
	g_main_context_unref(self->context);
	g_clear_object(&self->certificate);
	g_hash_table_unref(self->resources);
	g_mutex_clear(&self->lock);
	g_cond_clear(&self->cond);
	g_free(self->base);
	g_free(self);
}

const gchar *
image_server_get_base(ImageServer *self)
{
	return self->base;
}

void
image_server_add(ImageServer *self, const gchar *path, guint status, GBytes *body,
		 gsize claimed_length)
{
	Resource *resource = g_new0(Resource, 1);

	resource->status = status;
	resource->body = g_bytes_ref(body);
	resource->claimed = claimed_length;
	g_mutex_lock(&self->lock);
	g_hash_table_replace(self->resources, g_strdup(path), resource);
	g_mutex_unlock(&self->lock);
}

void
image_server_add_file(ImageServer *self, const gchar *path, const gchar *file)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GMappedFile) mapped = g_mapped_file_new(file, FALSE, &error);
	g_autoptr(GBytes) body = NULL;

	g_assert_no_error(error);
	body = g_mapped_file_get_bytes(mapped);
	image_server_add(self, path, 200, body, 0);
}

void
image_server_hold(ImageServer *self, const gchar *path, gsize hold_at)
{
	Resource *resource;

	g_mutex_lock(&self->lock);
	resource = g_hash_table_lookup(self->resources, path);
	g_assert_nonnull(resource);
	resource->hold_at = hold_at;
	self->released = FALSE;
	g_mutex_unlock(&self->lock);
}

void
image_server_release(ImageServer *self)
{
	g_mutex_lock(&self->lock);
	self->released = TRUE;
	g_cond_broadcast(&self->cond);
	g_mutex_unlock(&self->lock);
}

guint
image_server_get_n_requests(ImageServer *self)
{
	guint n;

	g_mutex_lock(&self->lock);
	n = self->n_requests;
	g_mutex_unlock(&self->lock);
	return n;
}

/* ---- images for the tests ---------------------------------------------- */

#define UNTOUCHED_BYTE 0x5a

GBytes *
image_test_pattern(gsize len, guint seed)
{
	guint8 *data = g_malloc(len);
	guint32 x = seed * 2654435761u + 1;

	for (gsize i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (guint8)((x >> 16) % 255 + 1);
	}
	return g_bytes_new_take(data, len);
}

void
image_test_write_file(const gchar *path, GBytes *data)
{
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *bytes = g_bytes_get_data(data, &len);

	g_assert_true(g_file_set_contents(path, bytes, (gssize)len, &error));
	g_assert_no_error(error);
}

GBytes *
image_test_read_file(const gchar *path)
{
	g_autoptr(GError) error = NULL;
	gchar *data = NULL;
	gsize len = 0;

	g_assert_true(g_file_get_contents(path, &data, &len, &error));
	g_assert_no_error(error);
	return g_bytes_new_take(data, len);
}

void
image_test_qemu_img(const gchar *first, ...)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	gint status = 0;
	va_list args;

	g_ptr_array_add(argv, "qemu-img");
	va_start(args, first);
	for (const gchar *arg = first; arg != NULL; arg = va_arg(args, const gchar *))
		g_ptr_array_add(argv, (gpointer)arg);
	va_end(args);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (gchar **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL,
				   NULL, &out, &err, &status, &error));
	g_assert_no_error(error);
	if (!g_spawn_check_wait_status(status, NULL))
		g_error("qemu-img failed: %s%s", out, err);
}

void
image_test_make_disk(const gchar *path, gsize size)
{
	g_autofree guint8 *data = g_malloc(size);
	g_autoptr(GBytes) bytes = NULL;

	memset(data, UNTOUCHED_BYTE, size);
	bytes = g_bytes_new_take(g_steal_pointer(&data), size);
	image_test_write_file(path, bytes);
}

gboolean
image_test_disk_holds(const gchar *path, GBytes *image)
{
	g_autoptr(GBytes) disk = image_test_read_file(path);
	gsize disk_len = 0, len = 0;
	const guint8 *on_disk = g_bytes_get_data(disk, &disk_len);
	const guint8 *want = g_bytes_get_data(image, &len);

	if (disk_len < len || memcmp(on_disk, want, len) != 0)
		return FALSE;
	return TRUE;
}

gboolean
image_test_disk_untouched(const gchar *path)
{
	g_autoptr(GBytes) disk = image_test_read_file(path);
	gsize len = 0;
	const guint8 *data = g_bytes_get_data(disk, &len);

	for (gsize i = 0; i < len; i++) {
		if (data[i] != UNTOUCHED_BYTE)
			return FALSE;
	}
	return len > 0;
}

ImageServer *
image_server_new_unknown_ca(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-image-ca-XXXXXX", &error);
	g_autoptr(GntTlsCa) ca = gnt_tls_ca_new("images.test", &error);
	g_autofree gchar *cert = g_build_filename(dir, "server.pem", NULL);
	g_autofree gchar *key = g_build_filename(dir, "server.key", NULL);
	const gchar *const addresses[] = {"127.0.0.1", NULL};
	g_autoptr(GTlsCertificate) certificate = NULL;

	g_assert_no_error(error);
	g_assert_true(
		gnt_tls_ca_issue(ca, GNT_TLS_ROLE_NODE, "127.0.0.1", addresses, cert, key, &error));
	g_assert_no_error(error);
	certificate = gnt_tls_load_certificate(cert, key, &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_unlink(cert), ==, 0);
	g_assert_cmpint(g_unlink(key), ==, 0);
	g_assert_cmpint(g_rmdir(dir), ==, 0);
	return image_server_new(certificate);
}
