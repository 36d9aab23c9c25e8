/* The disk image writer (install/gnt-image-writer.h): local raw and qcow2
 * images, and images over HTTP(S) from a server in the test, written onto a
 * file disk and read back; every refusal leaves the disk untouched, and
 * every case leaves the work directory gone. */
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-image-writer.h"
#include "gnt-tls.h"
#include "image-test-server.h"

#define MIB	  (1024 * 1024)
#define DISK_SIZE (8 * MIB)
/* not a whole number of blocks: the O_DIRECT copy's tail */
#define IMAGE_SIZE (3 * MIB + 5)

typedef struct {
	gchar *dir;
	gchar *disk;	 /* disk 0, raw, DISK_SIZE of 0x5a */
	gchar *work_dir; /* <dir>/run/image/inst */
	gchar *raw;	 /* IMAGE_SIZE of a pattern */
	gchar *qcow2;	 /* the same, as qcow2 */
	GBytes *image;	 /* the raw image's bytes */
	gchar *sha256;	 /* of the raw image */
	ImageServer *server;
	GPtrArray *progress; /* of gchar *, as reported */
	GntImageWriteOptions options;
} WriterFx;

static void
progress_cb(const GntImageProgress *progress, gpointer user_data)
{
	WriterFx *fx = user_data;

	g_ptr_array_add(fx->progress, gnt_image_progress_format(progress));
}

static gchar *
fx_path(WriterFx *fx, const gchar *name)
{
	return g_build_filename(fx->dir, name, NULL);
}

static void
writer_set_up(WriterFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-image-XXXXXX", &error);
	g_assert_no_error(error);
	fx->disk = fx_path(fx, "disk0");
	fx->work_dir = g_build_filename(fx->dir, "run", "image", "inst", NULL);
	fx->raw = fx_path(fx, "image.raw");
	fx->qcow2 = fx_path(fx, "image.qcow2");
	fx->image = image_test_pattern(IMAGE_SIZE, 1);
	fx->sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, fx->image);
	image_test_write_file(fx->raw, fx->image);
	image_test_qemu_img("convert", "-f", "raw", "-O", "qcow2", fx->raw, fx->qcow2, NULL);
	image_test_make_disk(fx->disk, DISK_SIZE);
	fx->server = image_server_new(NULL);
	fx->progress = g_ptr_array_new_with_free_func(g_free);
	fx->options = (GntImageWriteOptions){
		.target = fx->disk,
		.target_format = GNT_DISK_FORMAT_RAW,
		.work_dir = fx->work_dir,
		.http_timeout_s = 10,
		.progress = progress_cb,
		.user_data = fx,
	};
}

static void
writer_tear_down(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);
	g_autofree gchar *image_dir = g_path_get_dirname(fx->work_dir);
	g_autoptr(GDir) listing = g_dir_open(image_dir, 0, NULL);

	/* nothing left behind, whatever happened */
	g_assert_false(g_file_test(fx->work_dir, G_FILE_TEST_EXISTS));
	g_assert_true(listing == NULL || g_dir_read_name(listing) == NULL);
	g_clear_pointer(&fx->server, image_server_free);
	g_ptr_array_unref(fx->progress);
	g_bytes_unref(fx->image);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->dir);
	g_free(fx->disk);
	g_free(fx->work_dir);
	g_free(fx->raw);
	g_free(fx->qcow2);
	g_free(fx->sha256);
}

/* Writes @location (with @sha256, nullable): TRUE, or FALSE with @error. */
static gboolean
write_image(WriterFx *fx, const gchar *location, const gchar *sha256, GntImageResult *result,
	    GError **error)
{
	g_autoptr(GntImageSource) source = gnt_image_source_new(location, sha256, error);

	if (source == NULL)
		return FALSE;
	return gnt_image_write(source, &fx->options, result, error);
}

static void
write_ok(WriterFx *fx, const gchar *location, const gchar *sha256, GntImageResult *result)
{
	g_autoptr(GError) error = NULL;
	gboolean ok = write_image(fx, location, sha256, result, &error);

	g_assert_no_error(error);
	g_assert_true(ok);
}

static void
assert_refused(WriterFx *fx, const gchar *location, const gchar *sha256, gint code,
	       const gchar *needle)
{
	g_autoptr(GError) error = NULL;

	g_assert_false(write_image(fx, location, sha256, NULL, &error));
	g_assert_error(error, GNT_ERROR, code);
	if (strstr(error->message, needle) == NULL)
		g_error("'%s' does not say '%s'", error->message, needle);
	g_test_message("refused: %s", error->message);
}

static gchar *
url(WriterFx *fx, const gchar *path)
{
	return g_strconcat(image_server_get_base(fx->server), path, NULL);
}

/* ---- local images ----------------------------------------------------- */

static void
test_local_raw(WriterFx *fx, gconstpointer data)
{
	g_auto(GntImageResult) result = {NULL};

	write_ok(fx, fx->raw, fx->sha256, &result);
	g_assert_true(image_test_disk_holds(fx->disk, fx->image));
	g_assert_cmpstr(result.format, ==, "raw");
	g_assert_cmpuint(result.image_bytes, ==, IMAGE_SIZE);
	g_assert_cmpuint(result.virtual_bytes, ==, IMAGE_SIZE);
	g_assert_cmpuint(result.target_bytes, ==, DISK_SIZE);
	g_assert_cmpstr(result.sha256, ==, fx->sha256);
	/* the last report: all of it */
	g_assert_cmpuint(fx->progress->len, >, 0);
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->progress, fx->progress->len - 1),
				       "writing 100% (3.1 of 3.1 MB)"));
}

static void
test_local_qcow2(WriterFx *fx, gconstpointer data)
{
	g_auto(GntImageResult) result = {NULL};
	g_autofree gchar *sha256 = NULL;
	g_autoptr(GBytes) qcow2 = image_test_read_file(fx->qcow2);

	sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, qcow2);
	write_ok(fx, fx->qcow2, sha256, &result);
	g_assert_true(image_test_disk_holds(fx->disk, fx->image));
	g_assert_cmpstr(result.format, ==, "qcow2");
	/* qemu-img made it of whole sectors */
	g_assert_cmpuint(result.virtual_bytes, ==, (IMAGE_SIZE + 511) / 512 * 512);
	g_assert_cmpuint(result.image_bytes, ==, g_bytes_get_size(qcow2));
	g_assert_cmpstr(result.sha256, ==, sha256);
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->progress, 0), "checking"));
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->progress, fx->progress->len - 1),
				       "writing 100%"));
}

/* A qcow2 file disk gets the image converted into it. */
static void
test_qcow2_disk(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *disk = fx_path(fx, "disk0.qcow2");
	g_autofree gchar *back = fx_path(fx, "back.raw");
	g_autoptr(GBytes) content = NULL;

	image_test_qemu_img("create", "-q", "-f", "qcow2", disk, "8M", NULL);
	fx->options.target = disk;
	fx->options.target_format = GNT_DISK_FORMAT_QCOW2;
	write_ok(fx, fx->raw, NULL, NULL);
	image_test_qemu_img("convert", "-f", "qcow2", "-O", "raw", disk, back, NULL);
	g_assert_true(image_test_disk_holds(back, fx->image));
	content = image_test_read_file(back);
	g_assert_cmpuint(g_bytes_get_size(content), ==, DISK_SIZE);
}

static void
test_local_wrong_sha256(WriterFx *fx, gconstpointer data)
{
	static const gchar wrong[] =
		"0000000000000000000000000000000000000000000000000000000000000000";
	g_autoptr(GBytes) disk = NULL;
	guint8 zeroes[4096] = {0};

	/* qcow2: checked before anything is written */
	assert_refused(fx, fx->qcow2, wrong, GNT_ERROR_INVALID, "wrong checksum");
	g_assert_true(image_test_disk_untouched(fx->disk));
	/* raw: found once written; the start of the disk is zeroed */
	assert_refused(fx, fx->raw, wrong, GNT_ERROR_INVALID, "wrong checksum");
	disk = image_test_read_file(fx->disk);
	g_assert_cmpmem(g_bytes_get_data(disk, NULL), sizeof(zeroes), zeroes, sizeof(zeroes));
}

/* A qcow2 whose header is fine but whose first L2 table pointer is not:
 * qemu-img info passes it, convert fails, and says why. */
static void
test_damaged_qcow2(WriterFx *fx, gconstpointer data)
{
	g_autoptr(GBytes) qcow2 = image_test_read_file(fx->qcow2);
	g_autofree gchar *damaged = fx_path(fx, "damaged.qcow2");
	gsize len = 0;
	guint8 *bytes = g_bytes_unref_to_data(g_steal_pointer(&qcow2), &len);
	guint64 l1_offset = 0;
	const guint64 bad_entry = GUINT64_TO_BE(G_GUINT64_CONSTANT(0x8000000000000201));
	g_autoptr(GBytes) written = NULL;

	for (guint i = 0; i < 8; i++)
		l1_offset = l1_offset << 8 | bytes[40 + i]; /* the header's l1_table_offset */
	g_assert_cmpuint(l1_offset + 8, <=, len);
	memcpy(bytes + l1_offset, &bad_entry, 8);
	written = g_bytes_new_take(bytes, len);
	image_test_write_file(damaged, written);
	assert_refused(fx, damaged, NULL, GNT_ERROR_ENVIRONMENT,
		       "qemu-img convert failed (exited with exit code 1; a truncated or damaged "
		       "image?): qcow2: Image is corrupt: L2 table offset 0x200 unaligned");
}

static void
test_backing_file(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *over = fx_path(fx, "over.qcow2");
	g_autofree gchar *ext = fx_path(fx, "ext.qcow2");
	g_autofree gchar *ext_data = fx_path(fx, "ext.data");
	g_autofree gchar *option = g_strdup_printf("data_file=%s", ext_data);

	image_test_qemu_img("create", "-q", "-f", "qcow2", "-b", fx->raw, "-F", "raw", over, NULL);
	assert_refused(fx, over, NULL, GNT_ERROR_INVALID, "backing file");
	image_test_qemu_img("create", "-q", "-f", "qcow2", "-o", option, ext, "4M", NULL);
	assert_refused(fx, ext, NULL, GNT_ERROR_INVALID, "external data file");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_too_big(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *big_raw = fx_path(fx, "big.raw");
	g_autofree gchar *big_qcow2 = fx_path(fx, "big.qcow2");
	g_autoptr(GBytes) big = image_test_pattern(DISK_SIZE + 1, 2);

	image_test_write_file(big_raw, big);
	assert_refused(fx, big_raw, NULL, GNT_ERROR_NO_RESOURCES, "is larger than disk 0");
	/* sparse, but its virtual size does not fit */
	image_test_qemu_img("create", "-q", "-f", "qcow2", big_qcow2, "16M", NULL);
	assert_refused(fx, big_qcow2, NULL, GNT_ERROR_NO_RESOURCES, "(16777216 bytes) is larger");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_unknown_format(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *vmdk = fx_path(fx, "image.vmdk");

	image_test_qemu_img("create", "-q", "-f", "vmdk", vmdk, "4M", NULL);
	assert_refused(fx, vmdk, NULL, GNT_ERROR_INVALID, "unknown format 'vmdk'");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_bad_sources(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *missing = fx_path(fx, "missing.raw");
	g_autofree gchar *empty = fx_path(fx, "empty.raw");
	g_autoptr(GBytes) nothing = g_bytes_new_static("", 0);
	g_autoptr(GError) error = NULL;

	assert_refused(fx, missing, NULL, GNT_ERROR_NOT_FOUND, "No such file");
	image_test_write_file(empty, nothing);
	assert_refused(fx, empty, NULL, GNT_ERROR_INVALID, "empty");
	g_assert_null(gnt_image_source_new("images/a.raw", NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'images/a.raw' must be an absolute path"));
	g_clear_error(&error);
	g_assert_null(gnt_image_source_new("ftp://host/a.raw", NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_null(gnt_image_source_new("http:///a.raw", NULL, &error));
	g_assert_nonnull(strstr(error->message, "has no host"));
	g_clear_error(&error);
	g_assert_null(gnt_image_source_new("/a.raw", "abc", &error));
	g_assert_nonnull(strstr(error->message, "checksum 'abc' is not a SHA-256"));
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_display_hides_password(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntImageSource) source =
		gnt_image_source_new("https://ops:s3cret@images.example.com/a.qcow2", NULL, &error);
	g_autofree gchar *display = NULL;

	g_assert_no_error(error);
	display = gnt_image_source_dup_display(source);
	g_assert_null(strstr(display, "s3cret"));
	g_assert_nonnull(strstr(display, "images.example.com/a.qcow2"));
}

/* ---- over HTTP -------------------------------------------------------- */

static void
test_http_raw(WriterFx *fx, gconstpointer data)
{
	g_auto(GntImageResult) result = {NULL};
	g_autofree gchar *location = url(fx, "/image.raw");

	image_server_add(fx->server, "/image.raw", 200, fx->image, 0);
	write_ok(fx, location, fx->sha256, &result);
	g_assert_true(image_test_disk_holds(fx->disk, fx->image));
	g_assert_cmpstr(result.format, ==, "raw");
	g_assert_cmpuint(result.image_bytes, ==, IMAGE_SIZE);
	g_assert_cmpstr(result.sha256, ==, fx->sha256);
}

static void
test_http_qcow2(WriterFx *fx, gconstpointer data)
{
	g_auto(GntImageResult) result = {NULL};
	g_autofree gchar *location = url(fx, "/image.qcow2");
	g_autoptr(GBytes) qcow2 = image_test_read_file(fx->qcow2);
	g_autofree gchar *sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, qcow2);

	image_server_add(fx->server, "/image.qcow2", 200, qcow2, 0);
	write_ok(fx, location, sha256, &result);
	g_assert_true(image_test_disk_holds(fx->disk, fx->image));
	g_assert_cmpstr(result.format, ==, "qcow2");
	g_assert_cmpuint(result.image_bytes, ==, g_bytes_get_size(qcow2));
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->progress, 0), "downloading"));
}

static void
test_http_404(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *location = url(fx, "/nope.raw");

	assert_refused(fx, location, NULL, GNT_ERROR_NOT_FOUND, "HTTP 404 Not Found");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_http_truncated(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *raw = url(fx, "/short.raw");
	g_autofree gchar *qcow2 = url(fx, "/short.qcow2");
	g_autoptr(GBytes) qcow2_bytes = image_test_read_file(fx->qcow2);
	g_autoptr(GBytes) short_qcow2 =
		g_bytes_new_from_bytes(qcow2_bytes, 0, g_bytes_get_size(qcow2_bytes) / 2);
	g_autoptr(GBytes) disk = NULL;
	guint8 zeroes[4096] = {0};

	/* qcow2: found during the download, the disk untouched */
	image_server_add(fx->server, "/short.qcow2", 200, short_qcow2,
			 g_bytes_get_size(qcow2_bytes));
	assert_refused(fx, qcow2, NULL, GNT_ERROR_INVALID, "truncated image");
	g_assert_true(image_test_disk_untouched(fx->disk));
	/* raw: streamed, so the part written is zeroed at its start */
	image_server_add(fx->server, "/short.raw", 200, fx->image, IMAGE_SIZE + MIB);
	assert_refused(fx, raw, NULL, GNT_ERROR_INVALID, "truncated image");
	disk = image_test_read_file(fx->disk);
	g_assert_cmpmem(g_bytes_get_data(disk, NULL), sizeof(zeroes), zeroes, sizeof(zeroes));
}

static void
test_http_wrong_sha256(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *raw = url(fx, "/image.raw");
	g_autofree gchar *qcow2 = url(fx, "/image.qcow2");
	g_autoptr(GBytes) qcow2_bytes = image_test_read_file(fx->qcow2);

	image_server_add(fx->server, "/image.qcow2", 200, qcow2_bytes, 0);
	/* the raw image's checksum is the wrong one for the qcow2 */
	assert_refused(fx, qcow2, fx->sha256, GNT_ERROR_INVALID, "wrong checksum");
	g_assert_true(image_test_disk_untouched(fx->disk));
	image_server_add(fx->server, "/image.raw", 200, fx->image, 0);
	assert_refused(fx, raw, "ABCDEF0000000000000000000000000000000000000000000000000000000000",
		       GNT_ERROR_INVALID, "not the expected abcdef");
}

static void
test_http_unreachable(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *location = url(fx, "/image.raw");

	/* the server gone, its port closed */
	g_clear_pointer(&fx->server, image_server_free);
	assert_refused(fx, location, NULL, GNT_ERROR_ENVIRONMENT, "unreachable");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_http_backing_file(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *over = fx_path(fx, "over.qcow2");
	g_autofree gchar *location = url(fx, "/over.qcow2");
	g_autoptr(GBytes) body = NULL;

	image_test_qemu_img("create", "-q", "-f", "qcow2", "-b", "/etc/shadow", "-F", "raw", over,
			    "4M", NULL);
	body = image_test_read_file(over);
	image_server_add(fx->server, "/over.qcow2", 200, body, 0);
	assert_refused(fx, location, NULL, GNT_ERROR_INVALID, "backing file '/etc/shadow' refused");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

static void
test_http_unknown_format(WriterFx *fx, gconstpointer data)
{
	g_autofree gchar *vmdk = fx_path(fx, "image.vmdk");
	g_autofree gchar *location = url(fx, "/image.vmdk");

	image_test_qemu_img("create", "-q", "-f", "vmdk", vmdk, "4M", NULL);
	image_server_add_file(fx->server, "/image.vmdk", vmdk);
	assert_refused(fx, location, NULL, GNT_ERROR_INVALID, "unknown format 'vmdk'");
	g_assert_true(image_test_disk_untouched(fx->disk));
}

/* The progress is reported while the body still comes. */
static void
hold_progress_cb(const GntImageProgress *progress, gpointer user_data)
{
	WriterFx *fx = user_data;

	progress_cb(progress, fx);
	if (progress->done < progress->total)
		image_server_release(fx->server);
}

static void
test_http_progress(WriterFx *fx, gconstpointer data)
{
	g_autoptr(GBytes) image = image_test_pattern(DISK_SIZE, 3);
	g_autofree gchar *location = url(fx, "/image.raw");

	image_server_add(fx->server, "/image.raw", 200, image, 0);
	/* the first 4 MiB chunk, then nothing until a report was seen */
	image_server_hold(fx->server, "/image.raw", 4 * MIB);
	fx->options.progress = hold_progress_cb;
	write_ok(fx, location, NULL, NULL);
	g_assert_cmpuint(fx->progress->len, >=, 2);
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->progress, 0),
				       "writing 50% (4.2 of 8.4 MB), "));
	g_assert_true(image_test_disk_holds(fx->disk, image));
}

/* ---- over HTTPS ------------------------------------------------------- */

/* A server certificate for 127.0.0.1 from a CA of the test's; *@ca_path
 * gets that CA. */
static GTlsCertificate *
make_certificate(WriterFx *fx, gchar **ca_path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntTlsCa) ca = gnt_tls_ca_new("images.test", &error);
	g_autofree gchar *cert = fx_path(fx, "server.pem");
	g_autofree gchar *key = fx_path(fx, "server.key");
	g_autofree gchar *ca_key = fx_path(fx, "ca.key");
	const gchar *const addresses[] = {"127.0.0.1", NULL};
	GTlsCertificate *certificate;

	g_assert_no_error(error);
	*ca_path = fx_path(fx, "ca.pem");
	g_assert_true(gnt_tls_ca_save(ca, *ca_path, ca_key, &error));
	g_assert_true(
		gnt_tls_ca_issue(ca, GNT_TLS_ROLE_NODE, "127.0.0.1", addresses, cert, key, &error));
	g_assert_no_error(error);
	certificate = gnt_tls_load_certificate(cert, key, &error);
	g_assert_no_error(error);
	return certificate;
}

static void
test_https(WriterFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *ca_path = NULL;
	g_autoptr(GTlsCertificate) certificate = make_certificate(fx, &ca_path);
	g_autoptr(GTlsDatabase) database = NULL;
	g_autofree gchar *location = NULL;

	g_clear_pointer(&fx->server, image_server_free);
	fx->server = image_server_new(certificate);
	image_server_add(fx->server, "/image.raw", 200, fx->image, 0);
	location = url(fx, "/image.raw");
	/* the system's CAs do not know ours */
	assert_refused(fx, location, NULL, GNT_ERROR_ENVIRONMENT,
		       "TLS failure: the server's certificate is not signed by a known CA");
	g_assert_true(image_test_disk_untouched(fx->disk));
	/* trusted, the same server serves */
	database = g_tls_file_database_new(ca_path, &error);
	g_assert_no_error(error);
	fx->options.tls_database = database;
	write_ok(fx, location, fx->sha256, NULL);
	g_assert_true(image_test_disk_holds(fx->disk, fx->image));
}

int
main(int argc, char **argv)
{
	static const struct {
		const gchar *path;
		void (*func)(WriterFx *, gconstpointer);
	} tests[] = {
		{"/install/image/local/raw", test_local_raw},
		{"/install/image/local/qcow2", test_local_qcow2},
		{"/install/image/local/qcow2-disk", test_qcow2_disk},
		{"/install/image/local/wrong-sha256", test_local_wrong_sha256},
		{"/install/image/local/damaged-qcow2", test_damaged_qcow2},
		{"/install/image/local/backing-file", test_backing_file},
		{"/install/image/local/too-big", test_too_big},
		{"/install/image/local/unknown-format", test_unknown_format},
		{"/install/image/local/bad-sources", test_bad_sources},
		{"/install/image/http/raw", test_http_raw},
		{"/install/image/http/qcow2", test_http_qcow2},
		{"/install/image/http/404", test_http_404},
		{"/install/image/http/truncated", test_http_truncated},
		{"/install/image/http/wrong-sha256", test_http_wrong_sha256},
		{"/install/image/http/unreachable", test_http_unreachable},
		{"/install/image/http/backing-file", test_http_backing_file},
		{"/install/image/http/unknown-format", test_http_unknown_format},
		{"/install/image/http/progress", test_http_progress},
		{"/install/image/https", test_https},
	};

	g_test_init(&argc, &argv, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(tests); i++)
		g_test_add(tests[i].path, WriterFx, NULL, writer_set_up, tests[i].func,
			   writer_tear_down);
	g_test_add_func("/install/image/display-hides-password", test_display_hides_password);
	return g_test_run();
}
