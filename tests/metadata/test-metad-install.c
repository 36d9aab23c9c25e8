/* Kickstart install sessions in gantry-metad (metadata/gnt-metadata-install.h),
 * with metad as a process on a temporary root and raw HTTP over the
 * instances' unix sockets: ks.cfg, stage 2 and the liveimg streamed with
 * Range requests, callbacks and their tokens (wrong, other instance's,
 * stale: the one 404, byte for byte), 413, end before start, reports after
 * end, the long poll noded uses, and nothing of the token left on disk. The
 * callback parser and the message sanitiser are tested directly too. */
#define _GNU_SOURCE
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-metadata-install.h"
#include "gnt-metadata.h"
#include "rpc-test-server.h"

#define WEB1_TOKEN "web1-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DB1_TOKEN  "db1-token-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define KS_TEXT	   "text\nliveimg --url=x\n# token " WEB1_TOKEN "\n"
#define IMAGE_SIZE (8 * 1024 * 1024 + 13)

typedef struct {
	GPtrArray *dirs;
	GntPaths *paths;
	GSubprocess *metad;
	gchar *control;
	gchar *image; /* IMAGE_SIZE random bytes */
	gchar *stage2;
	GBytes *image_bytes;
} Fx;

static void
push_json(Fx *fx, const gchar *name, const gchar *what, const gchar *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	if (what == NULL)
		g_assert_true(gnt_metad_client_push(fx->control, name, json_node_get_object(node),
						    &error));
	else
		g_assert_true(gnt_metad_client_put_install(fx->control, name,
							   json_node_get_object(node), &error));
	g_assert_no_error(error);
}

/* web1's session with @token */
static void
put_session(Fx *fx, const gchar *name, const gchar *token)
{
	g_autofree gchar *spec = g_strdup_printf(
		"{\"token\":\"%s\",\"kickstart\":\"text\\nliveimg --url=x\\n# token %s\\n\","
		"\"stage2\":\"%s\",\"liveimg\":\"%s\",\"liveimg_name\":\"image.tar.gz\"}",
		token, token, fx->stage2, fx->image);

	push_json(fx, name, "install", spec);
}

static void
fx_set_up(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *log = NULL;
	g_autofree guint8 *bytes = g_malloc(IMAGE_SIZE);

	fx->dirs = g_ptr_array_new_with_free_func(g_free);
	fx->paths = make_root(fx->dirs, "node1");
	g_assert_true(gnt_paths_ensure_dirs(fx->paths, &error));
	log = g_build_filename(gnt_paths_get_log_dir(fx->paths), "metad-stderr.log", NULL);
	fx->metad = start_metad(fx->paths, log, TRUE, &fx->control);
	push_json(fx, "web1", NULL, "{\"name\":\"web1\",\"uuid\":\"u-web1\"}");
	push_json(fx, "db1", NULL, "{\"name\":\"db1\",\"uuid\":\"u-db1\"}");
	for (gsize i = 0; i < IMAGE_SIZE; i++)
		bytes[i] = (guint8)g_random_int();
	fx->image = g_build_filename(gnt_paths_get_root(fx->paths), "image.tar.gz", NULL);
	g_assert_true(g_file_set_contents(fx->image, (gchar *)bytes, IMAGE_SIZE, &error));
	fx->image_bytes = g_bytes_new_take(g_steal_pointer(&bytes), IMAGE_SIZE);
	fx->stage2 = g_build_filename(gnt_paths_get_root(fx->paths), "squashfs.img", NULL);
	g_assert_true(g_file_set_contents(fx->stage2, "hsqs-stage2", -1, &error));
}

static void
fx_tear_down(Fx *fx, gconstpointer data)
{
	stop_noded(fx->metad);
	g_clear_object(&fx->metad);
	remove_dirs(g_steal_pointer(&fx->dirs));
	g_clear_pointer(&fx->paths, gnt_paths_free);
	g_free(fx->control);
	g_free(fx->image);
	g_free(fx->stage2);
	g_bytes_unref(fx->image_bytes);
}

/* One raw exchange on @instance's socket: @head (request line and headers,
 * without the blank line), @body (nullable). The whole answer, head and
 * body (its Content-Length), with the Date header taken out so that
 * answers of different seconds compare. */
static GByteArray *
exchange(Fx *fx, const gchar *instance, const gchar *head, const gchar *body, gsize body_len,
	 guint *status)
{
	g_autofree gchar *path = gnt_metad_dup_instance_socket(fx->paths, instance);
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(path);
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocketConnection)
		conn = g_socket_client_connect(client, G_SOCKET_CONNECTABLE(address), NULL, &error);
	GOutputStream *out = NULL;
	GInputStream *in = NULL;
	g_autoptr(GString) request = NULL;
	GByteArray *answer = g_byte_array_new();
	gsize head_end = 0;
	guint64 length = 0;
	gboolean head_only = g_str_has_prefix(head, "HEAD ");

	g_assert_no_error(error);
	out = g_io_stream_get_output_stream(G_IO_STREAM(conn));
	in = g_io_stream_get_input_stream(G_IO_STREAM(conn));
	request = g_string_new(head);
	if (body != NULL)
		g_string_append_printf(request, "\r\nContent-Length: %" G_GSIZE_FORMAT, body_len);
	g_string_append(request, "\r\n\r\n");
	g_assert_true(
		g_output_stream_write_all(out, request->str, request->len, NULL, NULL, &error));
	if (body != NULL)
		g_output_stream_write_all(out, body, body_len, NULL, NULL, NULL);
	for (;;) {
		guint8 buf[65536];
		gssize n = 0;
		const gchar *end = NULL;

		if (head_end == 0 && answer->len > 0) {
			g_byte_array_append(answer, (const guint8 *)"", 1);
			end = strstr((const gchar *)answer->data, "\r\n\r\n");
			g_byte_array_set_size(answer, answer->len - 1);
			if (end != NULL) {
				const gchar *cl =
					strstr((const gchar *)answer->data, "Content-Length: ");

				head_end = (gsize)(end - (const gchar *)answer->data) + 4;
				length = cl != NULL && cl < end && !head_only
						 ? g_ascii_strtoull(cl + 16, NULL, 10)
						 : 0;
			}
		}
		if (head_end != 0 && answer->len >= head_end + length)
			break;
		n = g_input_stream_read(in, buf, sizeof(buf), NULL, &error);
		if (n <= 0)
			break;
		g_byte_array_append(answer, buf, (guint)n);
	}
	g_assert_cmpuint(head_end, >, 0);
	*status = (guint)g_ascii_strtoull((const gchar *)answer->data + 9, NULL, 10);
	{
		/* drop "Date: ...\r\n" */
		g_byte_array_append(answer, (const guint8 *)"", 1);
		gchar *date = strstr((gchar *)answer->data, "\r\nDate: ");

		if (date != NULL && (guint8 *)date < answer->data + head_end) {
			gchar *eol = strstr(date + 2, "\r\n");

			g_byte_array_remove_range(answer, (guint)(date - (gchar *)answer->data),
						  (guint)(eol - date));
		}
		g_byte_array_set_size(answer, answer->len - 1);
	}
	return answer;
}

static GByteArray *
get(Fx *fx, const gchar *instance, const gchar *path, const gchar *extra, guint *status)
{
	g_autofree gchar *head = g_strdup_printf("GET %s HTTP/1.1\r\nHost: 169.254.169.254%s%s",
						 path, extra != NULL ? "\r\n" : "",
						 extra != NULL ? extra : "");

	return exchange(fx, instance, head, NULL, 0, status);
}

static GByteArray *
callback(Fx *fx, const gchar *instance, const gchar *status_word, const gchar *token,
	 const gchar *message, guint *status)
{
	g_autofree gchar *body = g_strdup_printf("{\"agent_status\":\"%s\",\"agent_token\":\"%s\","
						 "\"agent_status_message\":\"%s\"}",
						 status_word, token, message);

	return exchange(fx, instance,
			"POST /gantry/latest/install/callback HTTP/1.1\r\nHost: x\r\n"
			"Content-Type: application/json",
			body, strlen(body), status);
}

/* The body of @answer (after the head). */
static const gchar *
body_of(GByteArray *answer, gsize *len)
{
	g_byte_array_append(answer, (const guint8 *)"", 1);
	g_byte_array_set_size(answer, answer->len - 1);
	const gchar *end = strstr((const gchar *)answer->data, "\r\n\r\n") + 4;

	*len = answer->len - (gsize)(end - (const gchar *)answer->data);
	return end;
}

static JsonObject *
poll_state(Fx *fx, const gchar *name, guint64 since, guint wait)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode)
		node = gnt_metad_client_get_install(fx->control, name, since, wait, &error);

	g_assert_no_error(error);
	return json_object_ref(json_node_get_object(node));
}

static void
assert_same(GByteArray *a, GByteArray *b)
{
	g_assert_cmpmem(a->data, a->len, b->data, b->len);
}

static void
test_files(Fx *fx, gconstpointer data)
{
	guint status = 0;
	gsize len = 0;
	const gchar *body = NULL;
	g_autoptr(GByteArray) ks = NULL;
	g_autoptr(GByteArray) image = NULL;
	g_autoptr(GByteArray) part = NULL;
	g_autoptr(GByteArray) tail = NULL;
	g_autoptr(GByteArray) bad = NULL;
	g_autoptr(GByteArray) stage2 = NULL;
	g_autoptr(GByteArray) head = NULL;
	g_autoptr(GByteArray) none = NULL;
	const guint8 *want = g_bytes_get_data(fx->image_bytes, NULL);

	none = get(fx, "web1", "/gantry/latest/install/ks.cfg", NULL, &status);
	g_assert_cmpuint(status, ==, 404);
	put_session(fx, "web1", WEB1_TOKEN);
	ks = get(fx, "web1", "/gantry/latest/install/ks.cfg", NULL, &status);
	g_assert_cmpuint(status, ==, 200);
	body = body_of(ks, &len);
	g_assert_cmpmem(body, len, KS_TEXT, strlen(KS_TEXT));
	/* db1 has no session: its ks.cfg is the one 404 */
	g_clear_pointer(&ks, g_byte_array_unref);
	ks = get(fx, "db1", "/gantry/latest/install/ks.cfg", NULL, &status);
	g_assert_cmpuint(status, ==, 404);
	assert_same(ks, none);

	image = get(fx, "web1", "/gantry/latest/install/image.tar.gz", NULL, &status);
	g_assert_cmpuint(status, ==, 200);
	body = body_of(image, &len);
	g_assert_cmpmem(body, len, want, IMAGE_SIZE);
	g_assert_nonnull(strstr((const gchar *)image->data, "Accept-Ranges: bytes\r\n"));
	part = get(fx, "web1", "/gantry/latest/install/image.tar.gz", "Range: bytes=1000-1999",
		   &status);
	g_assert_cmpuint(status, ==, 206);
	body = body_of(part, &len);
	g_assert_cmpmem(body, len, want + 1000, 1000);
	g_assert_nonnull(
		strstr((const gchar *)part->data, "Content-Range: bytes 1000-1999/8388621\r\n"));
	tail = get(fx, "web1", "/gantry/latest/install/image.tar.gz", "Range: bytes=-13", &status);
	g_assert_cmpuint(status, ==, 206);
	body = body_of(tail, &len);
	g_assert_cmpmem(body, len, want + IMAGE_SIZE - 13, 13);
	g_clear_pointer(&tail, g_byte_array_unref);
	tail = get(fx, "web1", "/gantry/latest/install/image.tar.gz", "Range: bytes=8388600-",
		   &status);
	g_assert_cmpuint(status, ==, 206);
	body = body_of(tail, &len);
	g_assert_cmpmem(body, len, want + 8388600, IMAGE_SIZE - 8388600);
	bad = get(fx, "web1", "/gantry/latest/install/image.tar.gz", "Range: bytes=9000000-",
		  &status);
	g_assert_cmpuint(status, ==, 416);
	g_assert_nonnull(strstr((const gchar *)bad->data, "Content-Range: bytes */8388621\r\n"));
	head = exchange(fx, "web1", "HEAD /gantry/latest/install/image.tar.gz HTTP/1.1\r\nHost: x",
			NULL, 0, &status);
	g_assert_cmpuint(status, ==, 200);
	g_assert_nonnull(strstr((const gchar *)head->data, "Content-Length: 8388621\r\n"));
	/* another name for the image is a miss */
	g_clear_pointer(&bad, g_byte_array_unref);
	bad = get(fx, "web1", "/gantry/latest/install/image.img", NULL, &status);
	assert_same(bad, none);
	stage2 =
		get(fx, "web1", "/gantry/latest/install/stage2/LiveOS/squashfs.img", NULL, &status);
	g_assert_cmpuint(status, ==, 200);
	body = body_of(stage2, &len);
	g_assert_cmpmem(body, len, "hsqs-stage2", 11);
}

/* A session without a kickstart (the install appliance's payload for
 * appliance.write_payload): the liveimg streams, there is no ks.cfg. */
static void
test_payload_only(Fx *fx, gconstpointer data)
{
	g_autofree gchar *spec =
		g_strdup_printf("{\"token\":\"%s\",\"kickstart\":null,\"liveimg\":\"%s\","
				"\"liveimg_name\":\"image.tar.gz\"}",
				WEB1_TOKEN, fx->image);
	const guint8 *want = g_bytes_get_data(fx->image_bytes, NULL);
	g_autoptr(GByteArray) none = NULL;
	g_autoptr(GByteArray) ks = NULL;
	g_autoptr(GByteArray) image = NULL;
	guint status = 0;
	gsize len = 0;
	const gchar *body = NULL;

	none = get(fx, "web1", "/gantry/latest/install/image.tar.gz", NULL, &status);
	g_assert_cmpuint(status, ==, 404);
	push_json(fx, "web1", "install", spec);
	image = get(fx, "web1", "/gantry/latest/install/image.tar.gz", NULL, &status);
	g_assert_cmpuint(status, ==, 200);
	body = body_of(image, &len);
	g_assert_cmpmem(body, len, want, IMAGE_SIZE);
	ks = get(fx, "web1", "/gantry/latest/install/ks.cfg", NULL, &status);
	g_assert_cmpuint(status, ==, 404);
	assert_same(ks, none);
}

static void
test_callbacks(Fx *fx, gconstpointer data)
{
	guint status = 0;
	g_autoptr(GByteArray) unknown = NULL;
	g_autoptr(GByteArray) wrong = NULL;
	g_autoptr(GByteArray) other = NULL;
	g_autoptr(GByteArray) stale = NULL;
	g_autoptr(GByteArray) answer = NULL;
	g_autoptr(JsonObject) state = NULL;
	JsonArray *events = NULL;
	g_autofree gchar *big = NULL;
	g_autofree gchar *long_message = NULL;

	put_session(fx, "web1", "an-old-token-of-a-first-attempt-xxxxxxxxxxx");
	put_session(fx, "web1", WEB1_TOKEN); /* a reinstall: a new attempt */
	put_session(fx, "db1", DB1_TOKEN);
	unknown = exchange(fx, "web1", "POST /gantry/latest/install/nothing HTTP/1.1\r\nHost: x",
			   "{}", 2, &status);
	g_assert_cmpuint(status, ==, 404);
	wrong = callback(fx, "web1", "start", "wrong-token-cccccccccccccccccccccccccccccccccc", "",
			 &status);
	other = callback(fx, "web1", "start", DB1_TOKEN, "", &status);
	stale = callback(fx, "web1", "start", "an-old-token-of-a-first-attempt-xxxxxxxxxxx", "",
			 &status);
	assert_same(unknown, wrong);
	assert_same(unknown, other);
	assert_same(unknown, stale);
	g_assert_cmpuint(status, ==, 404);

	/* end before start is refused; start, end; a second end and an error
	 * after it are ignored */
	answer = callback(fx, "web1", "end", WEB1_TOKEN, "", &status);
	g_assert_cmpuint(status, ==, 409);
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = callback(fx, "web1", "start", WEB1_TOKEN, "installing", &status);
	g_assert_cmpuint(status, ==, 200);
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = callback(fx, "web1", "end", WEB1_TOKEN, "done", &status);
	g_assert_cmpuint(status, ==, 200);
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = callback(fx, "web1", "end", WEB1_TOKEN, "", &status);
	g_assert_cmpuint(status, ==, 200);
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = callback(fx, "web1", "error", WEB1_TOKEN, "late", &status);
	g_assert_cmpuint(status, ==, 200);
	state = poll_state(fx, "web1", 0, 0);
	g_assert_cmpstr(json_object_get_string_member(state, "state"), ==, "ended");
	events = json_object_get_array_member(state, "events");
	g_assert_cmpuint(json_array_get_length(events), ==, 5);
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(events, 0),
						      "status"),
			==, "refused");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(events, 1),
						      "message"),
			==, "installing");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(events, 2),
						      "status"),
			==, "end");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(events, 3),
						      "status"),
			==, "ignored");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(events, 4),
						      "message"),
			==, "'error' after 'end' ignored: late");
	/* the kickstart went with the end */
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = get(fx, "web1", "/gantry/latest/install/ks.cfg", NULL, &status);
	assert_same(answer, unknown);

	/* db1: an error fails it, its message sanitised and cut */
	long_message = g_strnfill(6000, 'm');
	long_message[0] = '\\';
	long_message[1] = 'u';
	memcpy(long_message + 2, "001b", 4);
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = callback(fx, "db1", "error", DB1_TOKEN, long_message, &status);
	g_assert_cmpuint(status, ==, 200);
	g_clear_pointer(&state, json_object_unref);
	state = poll_state(fx, "db1", 0, 0);
	g_assert_cmpstr(json_object_get_string_member(state, "state"), ==, "failed");
	{
		const gchar *message = json_object_get_string_member(
			json_array_get_object_element(json_object_get_array_member(state, "events"),
						      0),
			"message");

		g_assert_cmpuint(strlen(message), ==, GNT_INSTALL_MESSAGE_MAX);
		g_assert_true(g_str_has_prefix(message, "?mmm"));
		g_assert_true(g_str_has_suffix(message, "m..."));
	}

	/* 2 MiB: 413 before the body is read */
	big = g_strnfill(2 * 1024 * 1024, 'x');
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = exchange(fx, "web1", "POST /gantry/latest/install/callback HTTP/1.1\r\nHost: x",
			  big, strlen(big), &status);
	g_assert_cmpuint(status, ==, 413);

	/* the session's end: everything is the one 404 */
	g_assert_true(gnt_metad_client_remove_install(fx->control, "web1", NULL));
	g_assert_true(gnt_metad_client_remove_install(fx->control, "web1", NULL));
	g_clear_pointer(&answer, g_byte_array_unref);
	answer = callback(fx, "web1", "start", WEB1_TOKEN, "", &status);
	assert_same(answer, unknown);
}

typedef struct {
	Fx *fx;
	gint64 sent;
} PostLater;

static gpointer
post_later_thread(gpointer data)
{
	PostLater *later = data;
	guint status = 0;

	g_usleep(300 * 1000);
	later->sent = g_get_monotonic_time();
	g_byte_array_unref(callback(later->fx, "web1", "start", WEB1_TOKEN, "", &status));
	return NULL;
}

/* noded's long poll: answered when the callback comes, not at its timeout */
static void
test_long_poll(Fx *fx, gconstpointer data)
{
	PostLater later = {fx, 0};
	GThread *thread = NULL;
	g_autoptr(JsonObject) state = NULL;
	g_autoptr(JsonObject) empty = NULL;
	gint64 got = 0;

	put_session(fx, "web1", WEB1_TOKEN);
	empty = poll_state(fx, "web1", 0, 0);
	g_assert_cmpint(json_object_get_int_member(empty, "next"), ==, 0);
	g_assert_cmpstr(json_object_get_string_member(empty, "state"), ==, "waiting");
	thread = g_thread_new("post", post_later_thread, &later);
	state = poll_state(fx, "web1", 0, 10);
	got = g_get_monotonic_time();
	g_thread_join(thread);
	g_assert_cmpstr(json_object_get_string_member(state, "state"), ==, "started");
	g_assert_cmpint(json_object_get_int_member(state, "next"), ==, 1);
	/* well before the 10 s wait ran out */
	g_assert_cmpint(got - later.sent, <, 5 * G_USEC_PER_SEC);
	g_test_message("callback to poll answer: %.1f ms", (got - later.sent) / 1000.0);
}

/* Nothing of a token on disk: metad's debug log and every file of the root */
static gboolean
file_holds(const gchar *path, const gchar *needle)
{
	g_autofree gchar *text = NULL;
	gsize len = 0;

	if (!g_file_get_contents(path, &text, &len, NULL))
		return FALSE;
	return memmem(text, len, needle, strlen(needle)) != NULL;
}

static void
assert_not_under(const gchar *dir, const gchar *needle)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *entry = NULL;

	if (handle == NULL)
		return;
	while ((entry = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, entry, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			continue;
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			assert_not_under(path, needle);
		else if (file_holds(path, needle))
			g_error("'%s' holds the token", path);
	}
}

static void
test_token_off_disk(Fx *fx, gconstpointer data)
{
	guint status = 0;

	put_session(fx, "web1", WEB1_TOKEN);
	g_byte_array_unref(get(fx, "web1", "/gantry/latest/install/ks.cfg", NULL, &status));
	g_byte_array_unref(callback(fx, "web1", "start", WEB1_TOKEN, "", &status));
	g_byte_array_unref(
		callback(fx, "web1", "start", "wrong-token-ddddddddddddddddd", "", &status));
	g_byte_array_unref(callback(fx, "web1", "end", WEB1_TOKEN, "", &status));
	g_assert_true(gnt_metad_client_remove_install(fx->control, "web1", NULL));
	assert_not_under(gnt_paths_get_root(fx->paths), WEB1_TOKEN);
}

/* The personalization package during a kickstart install: only to a GET
 * with this install's token in X-Gantry-Agent-Token; without it, with a
 * stale or another instance's token, and through the tree's own path, the
 * one 404 of an unknown path, byte for byte; after the session, nothing. */
static void
test_package(Fx *fx, gconstpointer data)
{
	static const gchar package[] = "\x1f\x8b not really gzip, metad does not care";
	g_autoptr(GBytes) bytes = g_bytes_new_static(package, sizeof(package) - 1);
	g_autoptr(GByteArray) unknown = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *path = "/gantry/latest/install/package.tar.gz";
	const gchar *const refused[][2] = {
		{path, NULL},
		{path, "X-Gantry-Agent-Token: " DB1_TOKEN},
		{path, "X-Gantry-Agent-Token: " WEB1_TOKEN "x"},
		{"/ganeti/latest/os/package", NULL},
	};
	guint status = 0;

	g_assert_true(gnt_metad_client_put_package(fx->control, "web1", bytes, &error));
	g_assert_no_error(error);
	put_session(fx, "web1", WEB1_TOKEN);
	put_session(fx, "db1", DB1_TOKEN);
	unknown = get(fx, "web1", "/gantry/latest/install/nothing-here", NULL, &status);
	g_assert_cmpuint(status, ==, 404);
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GByteArray)
			answer = get(fx, "web1", refused[i][0], refused[i][1], &status);

		g_assert_cmpuint(status, ==, 404);
		g_assert_cmpmem(answer->data, answer->len, unknown->data, unknown->len);
	}
	{
		g_autoptr(GByteArray) answer =
			get(fx, "web1", path, "X-Gantry-Agent-Token: " WEB1_TOKEN, &status);

		g_assert_cmpuint(status, ==, 200);
		g_assert_cmpuint(answer->len, >, sizeof(package) - 1);
		g_assert_cmpmem(answer->data + answer->len - (sizeof(package) - 1),
				sizeof(package) - 1, package, sizeof(package) - 1);
	}
	/* a reinstall: the old token no longer fetches it */
	put_session(fx, "web1", DB1_TOKEN);
	{
		g_autoptr(GByteArray) answer =
			get(fx, "web1", path, "X-Gantry-Agent-Token: " WEB1_TOKEN, &status);

		g_assert_cmpuint(status, ==, 404);
		g_assert_cmpmem(answer->data, answer->len, unknown->data, unknown->len);
	}
	/* the session over: no path serves it with any token */
	g_assert_true(gnt_metad_client_remove_install(fx->control, "web1", &error));
	g_assert_no_error(error);
	{
		g_autoptr(GByteArray)
			answer = get(fx, "web1", path, "X-Gantry-Agent-Token: " DB1_TOKEN, &status);

		g_assert_cmpuint(status, ==, 404);
		g_assert_cmpmem(answer->data, answer->len, unknown->data, unknown->len);
	}
}

static void
test_control_refused(Fx *fx, gconstpointer data)
{
	static const gchar *const bad[] = {
		"{\"kickstart\":\"x\"}",
		"{\"token\":\"short\",\"kickstart\":\"x\"}",
		"{\"token\":\"0123456789abcdefgh\"}",
		"{\"token\":\"0123456789abcdefgh\",\"kickstart\":\"x\",\"liveimg\":\"rel/path\"}",
		("{\"token\":\"0123456789abcdefgh\",\"kickstart\":\"x\",\"liveimg\":\"/x\","
		 "\"liveimg_name\":\"../etc\"}"),
		"[]",
	};

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(bad[i], -1, NULL);

		if (!JSON_NODE_HOLDS_OBJECT(node))
			continue;
		g_assert_false(gnt_metad_client_put_install(fx->control, "web1",
							    json_node_get_object(node), &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_test_message("%s: %s", bad[i], error->message);
	}
}

/* The parser alone */
static void
test_parse(void)
{
	static const struct {
		const gchar *body;
		const gchar *error; /* NULL: accepted */
	} cases[] = {
		{"{\"agent_status\":\"start\",\"agent_token\":\"t\"}", NULL},
		{"{\"agent_status\":\"end\",\"agent_token\":\"t\",\"agent_status_message\":null,"
		 "\"callback_url\":\"\"}",
		 NULL},
		{"{\"agent_status\":\"error\",\"agent_token\":\"t\",\"agent_status_message\":\"x\"}",
		 NULL},
		{"", "not JSON"},
		{"[1]", "must be a JSON object"},
		{"{\"agent_token\":\"t\"}", "agent_status must be a string"},
		{"{\"agent_status\":\"done\",\"agent_token\":\"t\"}", "'done' is not start"},
		{"{\"agent_status\":\"end\"}", "agent_token must be a string"},
		{"{\"agent_status\":\"end\",\"agent_token\":1}", "agent_token must be a string"},
		{"{\"agent_status\":\"end\",\"agent_token\":\"t\",\"agent_status_message\":[]}",
		 "agent_status_message must be a string"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_auto(GntInstallCallback) cb = {0};
		g_autoptr(GError) error = NULL;
		gboolean ok = gnt_install_callback_parse(cases[i].body, strlen(cases[i].body), &cb,
							 &error);

		if (cases[i].error == NULL) {
			g_assert_no_error(error);
			g_assert_true(ok);
			g_assert_cmpstr(gnt_secret_get(cb.token), ==, "t");
		} else {
			g_assert_false(ok);
			g_assert_nonnull(strstr(error->message, cases[i].error));
		}
	}
	{
		g_autofree gchar *s = gnt_install_message_sanitise("a\x1b[31mb\nc\t\xff", 11);

		g_assert_cmpstr(s, ==, "a?[31mb\nc\t\xef\xbf\xbd");
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/metad-install/parse", test_parse);
	g_test_add("/metad-install/files", Fx, NULL, fx_set_up, test_files, fx_tear_down);
	g_test_add("/metad-install/payload-only", Fx, NULL, fx_set_up, test_payload_only,
		   fx_tear_down);
	g_test_add("/metad-install/callbacks", Fx, NULL, fx_set_up, test_callbacks, fx_tear_down);
	g_test_add("/metad-install/long-poll", Fx, NULL, fx_set_up, test_long_poll, fx_tear_down);
	g_test_add("/metad-install/package", Fx, NULL, fx_set_up, test_package, fx_tear_down);
	g_test_add("/metad-install/token-off-disk", Fx, NULL, fx_set_up, test_token_off_disk,
		   fx_tear_down);
	g_test_add("/metad-install/control-refused", Fx, NULL, fx_set_up, test_control_refused,
		   fx_tear_down);
	return g_test_run();
}
