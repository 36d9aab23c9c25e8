/* The personalization package (install/gnt-package.h): the sanitizer on
 * archives built here with libarchive's write API, and the fetcher against
 * the image test server (and a libsoup server asking for Basic credentials). */
#include <archive.h>
#include <archive_entry.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-package.h"
#include "image-test-server.h"

/* ---- archives for the tests -------------------------------------------------------- */

#define HARDLINK 1 /* Item.type: a hard link to Item.content */

typedef struct {
	const gchar *name;
	guint type;	      /* AE_IF*, or HARDLINK */
	const gchar *content; /* a file's bytes, a symlink's target */
	guint perm;
	guint uid;
} Item;

static la_ssize_t
append_cb(struct archive *a, void *user_data, const void *buffer, size_t length)
{
	g_byte_array_append(user_data, buffer, (guint)length);
	return (la_ssize_t)length;
}

/* A tar (gzip'd when @gzip) of @items (ended by a NULL name). (transfer full) */
static GBytes *
make_tar(const Item *items, gboolean gzip)
{
	struct archive *a = archive_write_new();
	GByteArray *out = g_byte_array_new();

	g_assert_cmpint(archive_write_set_format_pax_restricted(a), ==, ARCHIVE_OK);
	if (gzip)
		g_assert_cmpint(archive_write_add_filter_gzip(a), ==, ARCHIVE_OK);
	g_assert_cmpint(archive_write_open(a, out, NULL, append_cb, NULL), ==, ARCHIVE_OK);
	for (const Item *item = items; item->name != NULL; item++) {
		struct archive_entry *entry = archive_entry_new();
		gsize len = item->type == AE_IFREG ? strlen(item->content) : 0;

		archive_entry_set_pathname(entry, item->name);
		archive_entry_set_perm(entry, item->perm != 0 ? item->perm : 0644);
		archive_entry_set_uid(entry, item->uid);
		archive_entry_set_gid(entry, item->uid);
		archive_entry_set_mtime(entry, 1700000000, 0);
		if (item->type == HARDLINK) {
			archive_entry_set_filetype(entry, AE_IFREG);
			archive_entry_set_hardlink(entry, item->content);
		} else {
			archive_entry_set_filetype(entry, item->type);
		}
		if (item->type == AE_IFLNK)
			archive_entry_set_symlink(entry, item->content);
		archive_entry_set_size(entry, (la_int64_t)len);
		g_assert_cmpint(archive_write_header(a, entry), ==, ARCHIVE_OK);
		if (len > 0)
			g_assert_cmpint(archive_write_data(a, item->content, len), ==,
					(la_ssize_t)len);
		archive_entry_free(entry);
	}
	g_assert_cmpint(archive_write_close(a), ==, ARCHIVE_OK);
	archive_write_free(a);
	return g_byte_array_free_to_bytes(out);
}

/* @data gzip'd. (transfer full) */
static GBytes *
gzip_bytes(const void *data, gsize len)
{
	g_autoptr(GZlibCompressor) zlib = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
	g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable();
	g_autoptr(GOutputStream) out = g_converter_output_stream_new(memory, G_CONVERTER(zlib));
	g_autoptr(GError) error = NULL;

	g_assert_true(g_output_stream_write_all(out, data, len, NULL, NULL, &error));
	g_assert_true(g_output_stream_close(out, NULL, &error));
	g_assert_no_error(error);
	return g_memory_output_stream_steal_as_bytes(G_MEMORY_OUTPUT_STREAM(memory));
}

/* One line an entry of the gzip'd tar @tarball (libarchive writes directories
 * with a "/" at the end): "TYPE PATH PERM UID GID
 * [-> TARGET | :CONTENT]". (transfer full) */
static gchar *
list_tar(GBytes *tarball)
{
	struct archive *a = archive_read_new();
	struct archive_entry *entry;
	GString *text = g_string_new(NULL);
	gsize len = 0;
	const void *data = g_bytes_get_data(tarball, &len);

	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	g_assert_cmpint(archive_read_open_memory(a, data, len), ==, ARCHIVE_OK);
	while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
		mode_t type = archive_entry_filetype(entry);

		g_string_append_printf(text, "%s %s %04o %d %d",
				       type == AE_IFDIR	  ? "d"
				       : type == AE_IFLNK ? "l"
							  : "f",
				       archive_entry_pathname(entry),
				       (guint)archive_entry_perm(entry),
				       (gint)archive_entry_uid(entry),
				       (gint)archive_entry_gid(entry));
		if (type == AE_IFLNK) {
			g_string_append_printf(text, " -> %s", archive_entry_symlink(entry));
		} else if (type == AE_IFREG) {
			gchar buffer[256] = {0};
			la_ssize_t got = archive_read_data(a, buffer, sizeof buffer - 1);

			g_assert_cmpint(got, >=, 0);
			g_string_append_printf(text, " :%s", buffer);
		}
		g_string_append_c(text, '\n');
	}
	g_assert_cmpint(archive_filter_code(a, 0), ==, ARCHIVE_FILTER_GZIP);
	archive_read_free(a);
	return g_string_free(text, FALSE);
}

static void
assert_refused(GBytes *tarball, const gchar *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) clean = gnt_package_sanitize(tarball, &error);

	g_assert_null(clean);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	if (strstr(error->message, message) == NULL)
		g_error("expected '%s' in '%s'", message, error->message);
}

static void
assert_items_refused(const Item *items, const gchar *message)
{
	g_autoptr(GBytes) tarball = make_tar(items, TRUE);

	assert_refused(tarball, message);
}

/* ---- the sanitizer ----------------------------------------------------------------- */

static void
test_sanitize_good(void)
{
	static const Item items[] = {
		{"./", AE_IFDIR, NULL, 0700, 0},
		{"./etc/", AE_IFDIR, NULL, 0755, 0},
		{"./etc/motd", AE_IFREG, "hello\n", 0644, 0},
		{"etc//ssh/./keys", AE_IFREG, "ssh-ed25519 AAAA", 0600, 1000},
		{"usr/bin/tool", AE_IFREG, "#!/bin/sh\n", 04755, 0},
		{"srv/shared", AE_IFDIR, NULL, 03775, 0},
		{"etc/localtime", AE_IFLNK, "../usr/share/zoneinfo/UTC", 0777, 0},
		{"etc/alias", AE_IFLNK, "./motd", 0777, 0},
		{"usr/bin/tool2", AE_IFLNK, "tool", 0777, 0},
		{NULL},
	};
	static const gchar *expected = "d etc/ 0755 0 0\n"
				       "f etc/motd 0644 0 0 :hello\n\n"
				       "f etc/ssh/keys 0600 1000 1000 :ssh-ed25519 AAAA\n"
				       "f usr/bin/tool 0755 0 0 :#!/bin/sh\n\n"
				       "d srv/shared/ 1775 0 0\n"
				       "l etc/localtime 0777 0 0 -> ../usr/share/zoneinfo/UTC\n"
				       "l etc/alias 0777 0 0 -> ./motd\n"
				       "l usr/bin/tool2 0777 0 0 -> tool\n";
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) tarball = make_tar(items, TRUE);
	g_autoptr(GBytes) clean = gnt_package_sanitize(tarball, &error);
	g_autoptr(GBytes) again = NULL;
	g_autofree gchar *listing = NULL;
	g_autofree gchar *listing_again = NULL;

	g_assert_no_error(error);
	listing = list_tar(clean);
	g_assert_cmpstr(listing, ==, expected);
	/* a clean package stays as it is */
	again = gnt_package_sanitize(clean, &error);
	g_assert_no_error(error);
	listing_again = list_tar(again);
	g_assert_cmpstr(listing_again, ==, expected);
}

/* (A socket cannot be written in a tar: no case for it.) */
static void
test_sanitize_refused(void)
{
	static const struct {
		Item items[4];
		const gchar *message;
	} cases[] = {
		{{{"/etc/passwd", AE_IFREG, "x"}, {NULL}},
		 "package entry '/etc/passwd' is an absolute path"},
		{{{"etc/../../x", AE_IFREG, "x"}, {NULL}},
		 "package entry 'etc/../../x' has a '..' component"},
		{{{"..", AE_IFDIR}, {NULL}}, "package entry '../' has a '..' component"},
		{{{"a", AE_IFREG, "x"}, {"b", HARDLINK, "a"}, {NULL}},
		 "package entry 'b' is a hard link"},
		{{{"dev/null", AE_IFCHR}, {NULL}},
		 "package entry 'dev/null' is a character device"},
		{{{"dev/sda", AE_IFBLK}, {NULL}}, "package entry 'dev/sda' is a block device"},
		{{{"run/fifo", AE_IFIFO}, {NULL}}, "package entry 'run/fifo' is a FIFO"},
		{{{"etc/l", AE_IFLNK, "/etc/shadow"}, {NULL}},
		 "package entry 'etc/l' is a symlink with an absolute target"},
		{{{"etc/l", AE_IFLNK, "../../x"}, {NULL}},
		 "package entry 'etc/l' is a symlink pointing outside the package"},
		{{{"l", AE_IFLNK, ".."}, {NULL}},
		 "package entry 'l' is a symlink pointing outside the package"},
		{{{"a/l", AE_IFLNK, "b/../../.."}, {NULL}},
		 "package entry 'a/l' is a symlink pointing outside the package"},
		{{{"l", AE_IFLNK, "etc"}, {"l/passwd", AE_IFREG, "x"}, {NULL}},
		 "package entry 'l/passwd' goes through the symlink 'l'"},
		{{{"./a/l", AE_IFLNK, "."}, {"a/l/b/c", AE_IFDIR}, {NULL}},
		 "package entry 'a/l/b/c/' goes through the symlink 'a/l'"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
		assert_items_refused(cases[i].items, cases[i].message);
}

/* A root filesystem tarball (gnt_package_check_root_tarball()): written to
 * a file, checked, removed. */
static gboolean
check_root_items(const Item *items, gboolean gzip, GError **error)
{
	g_autoptr(GBytes) tar = make_tar(items, gzip);
	g_autofree gchar *path = NULL;
	gint fd = g_file_open_tmp("gnt-root-XXXXXX.tar", &path, NULL);
	gboolean ok;

	g_assert_cmpint(fd, >=, 0);
	close(fd);
	g_assert_true(g_file_set_contents(path, g_bytes_get_data(tar, NULL),
					  (gssize)g_bytes_get_size(tar), NULL));
	ok = gnt_package_check_root_tarball(path, error);
	g_unlink(path);
	return ok;
}

/* What a root filesystem has and a package may not: absolute symlinks,
 * hard links, set-user-ID programs. */
static void
test_root_tarball_good(void)
{
	static const Item items[] = {{"./", AE_IFDIR},
				     {"./usr/bin/passwd", AE_IFREG, "elf", 04755},
				     {"./usr/bin/perl", AE_IFREG, "elf"},
				     {"./usr/bin/perl5.36", HARDLINK, "./usr/bin/perl"},
				     {"./etc/alternatives/editor", AE_IFLNK, "/usr/bin/vim.tiny"},
				     {"./lib", AE_IFLNK, "usr/lib"},
				     {NULL}};
	g_autoptr(GError) error = NULL;

	g_assert_true(check_root_items(items, TRUE, &error));
	g_assert_no_error(error);
	g_assert_true(check_root_items(items, FALSE, &error));
	g_assert_no_error(error);
}

static void
test_root_tarball_refused(void)
{
	static const struct {
		Item items[4];
		const gchar *message;
	} cases[] = {
		{{{"/etc/passwd", AE_IFREG, "x"}, {NULL}},
		 "root filesystem tarball entry '/etc/passwd' is an absolute path"},
		{{{"etc/../../x", AE_IFREG, "x"}, {NULL}}, "has a '..' component"},
		{{{"dev/null", AE_IFCHR}, {NULL}},
		 "root filesystem tarball entry 'dev/null' is a character device"},
		{{{"dev/sda", AE_IFBLK}, {NULL}}, "'dev/sda' is a block device"},
		{{{"run/fifo", AE_IFIFO}, {NULL}}, "'run/fifo' is a FIFO"},
		{{{"etc/l", AE_IFLNK, "../../x"}, {NULL}},
		 "'etc/l' is a symlink pointing outside the package"},
		{{{"etc", AE_IFLNK, "/etc"}, {"etc/passwd", AE_IFREG, "x"}, {NULL}},
		 "'etc/passwd' goes through the symlink 'etc'"},
		{{{"sbin/x", AE_IFLNK, "/tmp/x"}, {"sbin/x", AE_IFREG, "x"}, {NULL}},
		 "'sbin/x' replaces the symlink 'sbin/x'"},
		{{{"b", HARDLINK, "/etc/shadow"}, {NULL}}, "'/etc/shadow' is an absolute path"},
		{{{"b", HARDLINK, "a"}, {NULL}}, "'b' is a hard link to no file before it"},
		{{{"l", AE_IFLNK, "/"}, {"m", HARDLINK, "l"}, {NULL}},
		 "'m' is a hard link to no file before it"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(check_root_items(cases[i].items, TRUE, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, cases[i].message) == NULL)
			g_error("case %u: '%s' lacks '%s'", i, error->message, cases[i].message);
	}
}

static void
test_sanitize_not_targz(void)
{
	static const Item items[] = {{"etc/motd", AE_IFREG, "hello\n"}, {NULL}};
	g_autoptr(GBytes) plain = make_tar(items, FALSE);
	g_autoptr(GBytes) text = g_bytes_new_static("just some text\n", 15);
	g_autoptr(GBytes) gzip_text = gzip_bytes("just some text, not a tar at all\n", 33);
	g_autoptr(GBytes) empty = g_bytes_new_static("", 0);
	/* cut inside a file's (incompressible) contents */
	g_autoptr(GBytes) pattern = image_test_pattern(30000, 7);
	g_autofree gchar *contents = g_strndup(g_bytes_get_data(pattern, NULL), 30000);
	const Item big[] = {{"big", AE_IFREG, contents}, {NULL}};
	g_autoptr(GBytes) good = make_tar(big, TRUE);
	g_autoptr(GBytes) truncated = g_bytes_new_from_bytes(good, 0, g_bytes_get_size(good) / 2);

	assert_refused(plain, "not a .tar.gz package: it is not gzip-compressed");
	assert_refused(text, "not a .tar.gz package: ");
	assert_refused(gzip_text, "not a .tar.gz package: ");
	assert_refused(empty, "not a .tar.gz package: it is empty");
	assert_refused(truncated, "not a .tar.gz package: ");
}

static void
test_sanitize_too_many(void)
{
	g_autofree Item *items = g_new0(Item, GNT_PACKAGE_MAX_ENTRIES + 2);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GBytes) tarball = NULL;

	for (guint i = 0; i <= GNT_PACKAGE_MAX_ENTRIES; i++) {
		gchar *name = g_strdup_printf("d%u", i);

		g_ptr_array_add(names, name);
		items[i] = (Item){name, AE_IFDIR, NULL, 0755, 0};
	}
	tarball = make_tar(items, TRUE);
	assert_refused(tarball, "the package has more than 100000 entries");
}

/* Sets a ustar header field to @value in octal. */
static void
set_octal(gchar *field, gsize width, guint64 value)
{
	g_autofree gchar *text =
		g_strdup_printf("%0*" G_GINT64_MODIFIER "o", (gint)width - 1, value);

	g_assert_cmpuint(strlen(text), ==, width - 1);
	memcpy(field, text, width - 1);
	field[width - 1] = '\0';
}

static void
test_sanitize_too_big(void)
{
	/* a file claiming 5 GiB, written by hand: only its header is there */
	gchar header[1024] = {0};
	guint sum = 0;
	g_autoptr(GBytes) tarball = NULL;

	strcpy(header, "huge");
	set_octal(header + 100, 8, 0644);
	set_octal(header + 108, 8, 0);
	set_octal(header + 116, 8, 0);
	set_octal(header + 124, 12, G_GUINT64_CONSTANT(5) << 30);
	set_octal(header + 136, 12, 1700000000);
	header[156] = '0';
	memcpy(header + 257, "ustar", 6);
	memcpy(header + 263, "00", 2);
	memset(header + 148, ' ', 8);
	for (guint i = 0; i < 512; i++)
		sum += (guchar)header[i];
	g_snprintf(header + 148, 8, "%06o", sum);
	tarball = gzip_bytes(header, sizeof header);
	assert_refused(tarball, "the package unpacks to more than 4294967296 bytes");
}

/* ---- the fetcher ------------------------------------------------------------------- */

static GBytes *
sample_package(void)
{
	static const Item items[] = {{"etc/motd", AE_IFREG, "hello\n"}, {NULL}};

	return make_tar(items, TRUE);
}

static void
assert_fetch_fails(const gchar *url, const gchar *username, const gchar *password, gsize max_bytes,
		   gint code, const gchar *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) got = gnt_package_fetch(url, username, password, max_bytes, &error);

	g_assert_null(got);
	g_assert_error(error, GNT_ERROR, code);
	if (strstr(error->message, message) == NULL)
		g_error("expected '%s' in '%s'", message, error->message);
}

static void
test_fetch(void)
{
	g_autoptr(ImageServer) server = image_server_new(NULL);
	g_autoptr(GBytes) package = sample_package();
	g_autoptr(GBytes) got = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *good = g_strconcat(image_server_get_base(server), "/p/site.tar.gz", NULL);
	g_autofree gchar *tgz = g_strconcat(image_server_get_base(server), "/site.tgz", NULL);
	g_autofree gchar *missing = g_strconcat(image_server_get_base(server), "/no.tgz", NULL);
	g_autofree gchar *locked = g_strconcat(image_server_get_base(server), "/locked.tgz", NULL);
	g_autofree gchar *zip = g_strconcat(image_server_get_base(server), "/site.zip", NULL);

	image_server_add(server, "/p/site.tar.gz", 200, package, 0);
	image_server_add(server, "/site.tgz", 200, package, 0);
	image_server_add(server, "/locked.tgz", 401, package, 0);
	got = gnt_package_fetch(good, NULL, NULL, GNT_PACKAGE_MAX_BYTES, &error);
	g_assert_no_error(error);
	g_assert_true(g_bytes_equal(got, package));
	g_clear_pointer(&got, g_bytes_unref);
	got = gnt_package_fetch(tgz, NULL, NULL, g_bytes_get_size(package), &error);
	g_assert_no_error(error);
	g_assert_true(g_bytes_equal(got, package));

	assert_fetch_fails(missing, NULL, NULL, GNT_PACKAGE_MAX_BYTES, GNT_ERROR_NOT_FOUND,
			   "HTTP 404");
	assert_fetch_fails(good, NULL, NULL, 10, GNT_ERROR_INVALID, "is larger than 10 bytes");
	assert_fetch_fails(locked, NULL, NULL, GNT_PACKAGE_MAX_BYTES, GNT_ERROR_ENVIRONMENT,
			   "the package server wants credentials");
	assert_fetch_fails(locked, "alice", "wrong", GNT_PACKAGE_MAX_BYTES, GNT_ERROR_ENVIRONMENT,
			   "the package server refused the credentials");
	/* none of these reach the server */
	assert_fetch_fails(zip, NULL, NULL, GNT_PACKAGE_MAX_BYTES, GNT_ERROR_INVALID,
			   "must end in .tar.gz or .tgz");
	assert_fetch_fails("ftp://127.0.0.1/site.tgz", NULL, NULL, GNT_PACKAGE_MAX_BYTES,
			   GNT_ERROR_INVALID, "must be http:// or https://");
	assert_fetch_fails("http://alice:pw@127.0.0.1/site.tgz", NULL, NULL, GNT_PACKAGE_MAX_BYTES,
			   GNT_ERROR_INVALID, "the package URL must not hold credentials");
	assert_fetch_fails("site.tgz", NULL, NULL, GNT_PACKAGE_MAX_BYTES, GNT_ERROR_INVALID,
			   "is not a valid URL");
	g_assert_cmpuint(image_server_get_n_requests(server), ==, 6);
}

static void
test_fetch_https_unknown_ca(void)
{
	g_autoptr(ImageServer) server = image_server_new_unknown_ca();
	g_autoptr(GBytes) package = sample_package();
	g_autofree gchar *url = NULL;

	image_server_add(server, "/site.tgz", 200, package, 0);
	url = g_strconcat(image_server_get_base(server), "/site.tgz", NULL);
	/* the system's CAs do not know the test's CA */
	assert_fetch_fails(url, NULL, NULL, GNT_PACKAGE_MAX_BYTES, GNT_ERROR_ENVIRONMENT,
			   "TLS failure");
}

/* A libsoup server asking for Basic credentials alice:secret, in a thread. */
typedef struct {
	GMainContext *context;
	GMainLoop *loop;
	GThread *thread;
	SoupServer *server;
	gchar *base;
	GMutex lock;
	GCond cond;
	GBytes *package;
} AuthServer;

static gboolean
auth_check_cb(SoupAuthDomain *domain, SoupServerMessage *msg, const gchar *username,
	      const gchar *password, gpointer user_data)
{
	return g_strcmp0(username, "alice") == 0 && g_strcmp0(password, "secret") == 0;
}

static void
auth_handler_cb(SoupServer *server, SoupServerMessage *msg, const gchar *path, GHashTable *query,
		gpointer user_data)
{
	AuthServer *self = user_data;
	gsize len = 0;
	const gchar *data = g_bytes_get_data(self->package, &len);

	soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
	soup_server_message_set_response(msg, "application/gzip", SOUP_MEMORY_COPY, data, len);
}

static gpointer
auth_thread(gpointer data)
{
	AuthServer *self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(SoupAuthDomain) domain = NULL;
	GSList *uris;

	g_main_context_push_thread_default(self->context);
	self->server = soup_server_new(NULL, NULL);
	domain = soup_auth_domain_basic_new("realm", "packages", NULL);
	soup_auth_domain_add_path(domain, "/");
	soup_auth_domain_basic_set_auth_callback(domain, auth_check_cb, NULL, NULL);
	soup_server_add_auth_domain(self->server, domain);
	soup_server_add_handler(self->server, "/", auth_handler_cb, self, NULL);
	g_assert_true(
		soup_server_listen_local(self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
	g_assert_no_error(error);
	uris = soup_server_get_uris(self->server);
	g_mutex_lock(&self->lock);
	self->base = g_uri_to_string(uris->data);
	g_cond_signal(&self->cond);
	g_mutex_unlock(&self->lock);
	g_slist_free_full(uris, (GDestroyNotify)g_uri_unref);
	g_main_loop_run(self->loop);
	soup_server_disconnect(self->server);
	g_clear_object(&self->server);
	g_main_context_pop_thread_default(self->context);
	return NULL;
}

static gboolean
quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static void
test_fetch_basic_auth(void)
{
	AuthServer self = {0};
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) got = NULL;
	g_autofree gchar *url = NULL;

	self.package = sample_package();
	self.context = g_main_context_new();
	self.loop = g_main_loop_new(self.context, FALSE);
	g_mutex_init(&self.lock);
	g_cond_init(&self.cond);
	self.thread = g_thread_new("auth-server", auth_thread, &self);
	g_mutex_lock(&self.lock);
	while (self.base == NULL)
		g_cond_wait(&self.cond, &self.lock);
	g_mutex_unlock(&self.lock);
	url = g_strconcat(self.base, "site.tar.gz", NULL);

	got = gnt_package_fetch(url, "alice", "secret", GNT_PACKAGE_MAX_BYTES, &error);
	g_assert_no_error(error);
	g_assert_true(g_bytes_equal(got, self.package));
	assert_fetch_fails(url, "alice", "guess", GNT_PACKAGE_MAX_BYTES, GNT_ERROR_ENVIRONMENT,
			   "the package server refused the credentials (HTTP 401)");
	assert_fetch_fails(url, NULL, NULL, GNT_PACKAGE_MAX_BYTES, GNT_ERROR_ENVIRONMENT,
			   "the package server wants credentials (HTTP 401)");

	g_main_context_invoke(self.context, quit_cb, self.loop);
	g_thread_join(self.thread);
	g_main_loop_unref(self.loop);
	g_main_context_unref(self.context);
	g_mutex_clear(&self.lock);
	g_cond_clear(&self.cond);
	g_bytes_unref(self.package);
	g_free(self.base);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install/package/sanitize/good", test_sanitize_good);
	g_test_add_func("/install/package/sanitize/refused", test_sanitize_refused);
	g_test_add_func("/install/package/sanitize/not-targz", test_sanitize_not_targz);
	g_test_add_func("/install/package/root-tarball/good", test_root_tarball_good);
	g_test_add_func("/install/package/root-tarball/refused", test_root_tarball_refused);
	g_test_add_func("/install/package/sanitize/too-many", test_sanitize_too_many);
	g_test_add_func("/install/package/sanitize/too-big", test_sanitize_too_big);
	g_test_add_func("/install/package/fetch/http", test_fetch);
	g_test_add_func("/install/package/fetch/https-unknown-ca", test_fetch_https_unknown_ca);
	g_test_add_func("/install/package/fetch/basic-auth", test_fetch_basic_auth);
	return g_test_run();
}
