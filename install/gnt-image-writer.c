/* install/gnt-image-writer.c: disk images onto disk 0 (gnt-image-writer.h,
 * doc/images.md) */
#define _GNU_SOURCE /* O_DIRECT */

#include "gnt-image-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <gnutls/crypto.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "gnt-build-config.h"
#include "gnt-command.h"
#include "gnt-enum.h"
#include "gnt-error.h"
#include "gnt-http-get.h"
#include "gnt-json.h"
#include "gnt-subprocess.h"

/* the copy: CHUNK_BYTES buffers, N_CHUNKS of them between the reading and
 * the writing thread (measured in doc/benchmarks.md, "Install") */
#define CHUNK_BYTES  (4 * 1024 * 1024)
#define N_CHUNKS     4
#define DIRECT_ALIGN 4096
/* what qemu-img's probe sees of a URL before we choose to stream or not */
#define PROBE_BYTES (64 * 1024)
/* zeroed at the start of a raw disk whose write failed half way */
#define WIPE_BYTES (1024 * 1024)
/* a qcow2 download may exceed the disk's size by its metadata */
#define SPOOL_SLACK_BYTES	(64 * 1024 * 1024)
#define QEMU_IMG_INFO_TIMEOUT_S 60
/* qemu-img info parses untrusted headers: bounded, as OpenStack bounds it */
#define QEMU_IMG_INFO_LIMIT_AS	"--as=1073741824"
#define QEMU_IMG_INFO_LIMIT_CPU "--cpu=30"
#define SHA256_HEX_LEN		64
#define SHA256_BYTES		32
#define PROBE_FILE		"probe"
#define SPOOL_FILE		"image"

static const gchar *const tool_env[] = {"LC_ALL=C", NULL};

/* gnt_error_set_errno() with a formatted @what. */
G_GNUC_PRINTF(3, 4)
static void
set_errno_error(GError **error, int errsv, const gchar *format, ...)
{
	g_autofree gchar *what = NULL;
	va_list args;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	gnt_error_set_errno(error, errsv, what);
}

/* ---- the source ------------------------------------------------------------ */

static gboolean
location_is_url(const gchar *location)
{
	return g_ascii_strncasecmp(location, "http://", 7) == 0 ||
	       g_ascii_strncasecmp(location, "https://", 8) == 0;
}

static gboolean
check_location(const gchar *location, GError **error)
{
	g_autofree gchar *quoted = g_strescape(location, NULL);
	g_autoptr(GUri) uri = NULL;

	if (!location_is_url(location)) {
		if (!g_path_is_absolute(location) || !g_utf8_validate(location, -1, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "image '%s' must be an absolute path or an http(s) URL",
				    quoted);
			return FALSE;
		}
		return TRUE;
	}
	uri = g_uri_parse(location, G_URI_FLAGS_ENCODED, NULL);
	if (uri == NULL || g_uri_get_host(uri) == NULL || g_uri_get_host(uri)[0] == '\0') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "image URL '%s' is malformed or has no host", quoted);
		return FALSE;
	}
	return TRUE;
}

static gboolean
check_sha256(const gchar *sha256, GError **error)
{
	gsize len = strlen(sha256);
	gboolean hex = TRUE;

	for (gsize i = 0; i < len && hex; i++)
		hex = g_ascii_isxdigit(sha256[i]);
	if (len != SHA256_HEX_LEN || !hex) {
		g_autofree gchar *quoted = g_strescape(sha256, NULL);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "image checksum '%.80s' is not a SHA-256 (64 hex digits)", quoted);
		return FALSE;
	}
	return TRUE;
}

GntImageSource *
gnt_image_source_new(const gchar *location, const gchar *sha256, GError **error)
{
	g_autoptr(GntImageSource) self = NULL;

	g_return_val_if_fail(location != NULL, NULL);

	if (!check_location(location, error) || (sha256 != NULL && !check_sha256(sha256, error)))
		return NULL;
	self = g_new0(GntImageSource, 1);
	self->location = g_strdup(location);
	self->sha256 = sha256 != NULL ? g_ascii_strdown(sha256, -1) : NULL;
	return g_steal_pointer(&self);
}

void
gnt_image_source_free(GntImageSource *self)
{
	if (self == NULL)
		return;
	g_free(self->location);
	g_free(self->sha256);
	g_free(self);
}

gboolean
gnt_image_source_is_url(const GntImageSource *self)
{
	return location_is_url(self->location);
}

gchar *
gnt_image_source_dup_display(const GntImageSource *self)
{
	g_autoptr(GUri) uri = NULL;

	if (!gnt_image_source_is_url(self))
		return g_strescape(self->location, NULL);
	uri = g_uri_parse(self->location, G_URI_FLAGS_ENCODED | G_URI_FLAGS_HAS_PASSWORD, NULL);
	if (uri == NULL)
		return g_strescape(self->location, NULL);
	return g_uri_to_string_partial(uri, G_URI_HIDE_PASSWORD);
}

/* ---- progress -------------------------------------------------------------- */

const gchar *
gnt_image_phase_to_string(GntImagePhase phase)
{
	switch (phase) {
	case GNT_IMAGE_PHASE_CHECKING:
		return "checking";
	case GNT_IMAGE_PHASE_DOWNLOADING:
		return "downloading";
	case GNT_IMAGE_PHASE_WRITING:
		return "writing";
	}
	return "?";
}

gdouble
gnt_image_progress_get_percent(const GntImageProgress *progress)
{
	if (progress->total == 0)
		return 0;
	return MIN(100.0, 100.0 * (gdouble)progress->done / (gdouble)progress->total);
}

gdouble
gnt_image_progress_get_mb_per_s(const GntImageProgress *progress)
{
	if (progress->seconds <= 0)
		return 0;
	return (gdouble)progress->done / 1e6 / progress->seconds;
}

gchar *
gnt_image_progress_format(const GntImageProgress *progress)
{
	const gchar *phase = gnt_image_phase_to_string(progress->phase);

	if (progress->total == 0)
		return g_strdup_printf("%s %.1f MB, %.1f MB/s", phase,
				       (gdouble)progress->done / 1e6,
				       gnt_image_progress_get_mb_per_s(progress));
	return g_strdup_printf("%s %.0f%% (%.1f of %.1f MB), %.1f MB/s", phase,
			       gnt_image_progress_get_percent(progress),
			       (gdouble)progress->done / 1e6, (gdouble)progress->total / 1e6,
			       gnt_image_progress_get_mb_per_s(progress));
}

/* Reports at most every GNT_IMAGE_PROGRESS_INTERVAL_MS, or always with
 * @final. */
typedef struct {
	const GntImageWriteOptions *options;
	GntImagePhase phase;
	guint64 total;
	gint64 start; /* monotonic, µs */
	gint64 last;  /* the last report, µs; 0: none */
} Reporter;

static void
reporter_init(Reporter *self, const GntImageWriteOptions *options, GntImagePhase phase,
	      guint64 total)
{
	self->options = options;
	self->phase = phase;
	self->total = total;
	self->start = g_get_monotonic_time();
	self->last = 0;
}

static void
reporter_report(Reporter *self, guint64 done, gboolean final)
{
	gint64 now = g_get_monotonic_time();
	GntImageProgress progress = {
		.phase = self->phase,
		.done = done,
		.total = self->total,
		.seconds = (gdouble)(now - self->start) / G_USEC_PER_SEC,
	};

	if (self->options->progress == NULL)
		return;
	if (!final && now - self->last < GNT_IMAGE_PROGRESS_INTERVAL_MS * 1000)
		return;
	self->last = now;
	self->options->progress(&progress, self->options->user_data);
}

/* ---- results and checksums ---------------------------------------------------- */

void
gnt_image_result_clear(GntImageResult *self)
{
	g_clear_pointer(&self->format, g_free);
	g_clear_pointer(&self->sha256, g_free);
}

gdouble
gnt_image_result_get_mb_per_s(const GntImageResult *result)
{
	if (result->write_seconds <= 0)
		return 0;
	return (gdouble)result->virtual_bytes / 1e6 / result->write_seconds;
}

typedef struct {
	gnutls_hash_hd_t handle; /* NULL: not hashing */
} Hash;

static gboolean
hash_init(Hash *self, gboolean wanted, GError **error)
{
	int rc;

	self->handle = NULL;
	if (!wanted)
		return TRUE;
	rc = gnutls_hash_init(&self->handle, GNUTLS_DIG_SHA256);
	if (rc < 0) {
		self->handle = NULL;
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "SHA-256: %s",
			    gnutls_strerror(rc));
		return FALSE;
	}
	return TRUE;
}

static void
hash_clear(Hash *self)
{
	if (self->handle != NULL)
		gnutls_hash_deinit(self->handle, NULL);
	self->handle = NULL;
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Hash, hash_clear)

/* Ends the hash; its hex digest, or NULL when not hashing. (transfer full) */
static gchar *
hash_finish(Hash *self)
{
	guchar digest[SHA256_BYTES];
	GString *hex;

	if (self->handle == NULL)
		return NULL;
	gnutls_hash_deinit(self->handle, digest);
	self->handle = NULL;
	hex = g_string_sized_new(SHA256_HEX_LEN);
	for (guint i = 0; i < SHA256_BYTES; i++)
		g_string_append_printf(hex, "%02x", digest[i]);
	return g_string_free(hex, FALSE);
}

/* Compares the finished hash with the expected one, keeping it in
 * @result. */
static gboolean
hash_verify(Hash *self, const gchar *expected, GntImageResult *result, GError **error)
{
	g_autofree gchar *got = hash_finish(self);

	if (got == NULL || expected == NULL)
		return TRUE;
	if (strcmp(got, expected) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "wrong checksum: SHA-256 %s, not the expected %s", got, expected);
		return FALSE;
	}
	g_free(result->sha256);
	result->sha256 = g_steal_pointer(&got);
	return TRUE;
}

/* ---- the work directory --------------------------------------------------------- */

/* Removes @dir and the files in it (the writer makes no subdirectories); a
 * missing @dir is fine. */
static gboolean
remove_work_dir(const gchar *dir, GError **error)
{
	g_autoptr(GDir) listing = NULL;
	const gchar *name;

	if (!g_file_test(dir, G_FILE_TEST_EXISTS))
		return TRUE;
	listing = g_dir_open(dir, 0, error);
	if (listing == NULL) {
		gnt_error_convert(error);
		return FALSE;
	}
	while ((name = g_dir_read_name(listing)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);

		if (g_unlink(path) != 0 && errno != ENOENT) {
			set_errno_error(error, errno, "removing '%s'", path);
			return FALSE;
		}
	}
	if (g_rmdir(dir) != 0 && errno != ENOENT) {
		set_errno_error(error, errno, "removing '%s'", dir);
		return FALSE;
	}
	return TRUE;
}

/* A fresh @dir (0700), after removing what a crashed call left there. */
static gboolean
make_work_dir(const gchar *dir, GError **error)
{
	g_autofree gchar *parent = g_path_get_dirname(dir);

	if (!remove_work_dir(dir, error))
		return FALSE;
	if (g_mkdir_with_parents(parent, 0700) != 0 || g_mkdir(dir, 0700) != 0) {
		set_errno_error(error, errno, "creating '%s'", dir);
		return FALSE;
	}
	return TRUE;
}

/* ---- qemu-img ------------------------------------------------------------------- */

/* What qemu-img info says of an image. */
typedef struct {
	gchar *format;
	gboolean writable; /* the format is a GntDiskFormat, which is then @kind */
	GntDiskFormat kind;
	guint64 virtual_size;
	gchar *backing;	  /* backing-filename, or NULL */
	gchar *data_file; /* qcow2's external data file, or NULL */
	gboolean encrypted;
	gboolean corrupt;
} ImageInfo;

static void
image_info_clear(ImageInfo *self)
{
	g_clear_pointer(&self->format, g_free);
	g_clear_pointer(&self->backing, g_free);
	g_clear_pointer(&self->data_file, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ImageInfo, image_info_clear)

static gboolean
image_is_raw(const ImageInfo *info)
{
	return info->writable && info->kind == GNT_DISK_FORMAT_RAW;
}

/* The last non-empty line of a tool's output. (transfer full) */
static gchar *
dup_last_line(const gchar *output)
{
	g_auto(GStrv) lines = g_strsplit_set(output, "\r\n", -1);

	for (guint i = g_strv_length(lines); i > 0; i--) {
		g_strstrip(lines[i - 1]);
		if (lines[i - 1][0] != '\0')
			return g_strdup(lines[i - 1]);
	}
	return g_strdup("(no output)");
}

static gboolean
parse_image_info(const gchar *output, ImageInfo *info, GError **error)
{
	const gchar *start = strchr(output, '{');
	g_autoptr(JsonNode) root = start != NULL ? gnt_json_parse(start, -1, error) : NULL;
	JsonObject *obj, *specific = NULL, *data = NULL;
	gint64 size = 0;

	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_clear_error(error);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "qemu-img info: no JSON object in its output");
		return FALSE;
	}
	obj = json_node_get_object(root);
	if (!gnt_json_dup_string(obj, "format", &info->format, error) ||
	    !gnt_json_get_int(obj, "virtual-size", &size, error)) {
		g_prefix_error(error, "qemu-img info: ");
		return FALSE;
	}
	info->writable = gnt_disk_format_from_string(info->format, &info->kind, NULL);
	info->virtual_size = (guint64)MAX(size, 0);
	if (json_object_has_member(obj, "backing-filename"))
		info->backing = g_strdup(
			json_object_get_string_member_with_default(obj, "backing-filename", "?"));
	info->encrypted = json_object_get_boolean_member_with_default(obj, "encrypted", FALSE);
	if (json_object_has_member(obj, "format-specific") &&
	    gnt_json_get_object(obj, "format-specific", &specific, NULL) &&
	    json_object_has_member(specific, "data") &&
	    gnt_json_get_object(specific, "data", &data, NULL)) {
		if (json_object_has_member(data, "data-file"))
			info->data_file = g_strdup(
				json_object_get_string_member_with_default(data, "data-file", "?"));
		info->corrupt = json_object_get_boolean_member_with_default(data, "corrupt", FALSE);
	}
	return TRUE;
}

/* qemu-img info of @path, probing the format unless @format is given, in
 * bounded memory and CPU time. GNT_ERROR_INVALID when qemu-img can not
 * open it. */
static gboolean
qemu_img_info(const gchar *path, const gchar *format, ImageInfo *info, GError **error)
{
	const gchar *probing[] = {"prlimit",
				  QEMU_IMG_INFO_LIMIT_AS,
				  QEMU_IMG_INFO_LIMIT_CPU,
				  "qemu-img",
				  "info",
				  "--output=json",
				  path,
				  NULL};
	const gchar *forced[] = {"prlimit",
				 QEMU_IMG_INFO_LIMIT_AS,
				 QEMU_IMG_INFO_LIMIT_CPU,
				 "qemu-img",
				 "info",
				 "--output=json",
				 "-f",
				 format,
				 path,
				 NULL};
	g_autofree gchar *output = NULL;
	gint status = 0;

	if (!gnt_subprocess_run(format != NULL ? forced : probing, tool_env,
				QEMU_IMG_INFO_TIMEOUT_S, &output, &status, error))
		return FALSE;
	if (status != 0) {
		g_autofree gchar *last = dup_last_line(output);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "qemu-img can not read it (exit status %d): %s", status, last);
		return FALSE;
	}
	return parse_image_info(output, info, error);
}

/* Whether an image qemu-img described may be written. */
static gboolean
check_image_info(const ImageInfo *info, GError **error)
{
	guint kind = 0;

	if (!info->writable) /* "unknown format 'vmdk' (known: raw, qcow2)" */
		return gnt_enum_from_string(gnt_disk_format_names, GNT_DISK_FORMAT_LAST, "format",
					    info->format, &kind, error);
	if (info->backing != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "qcow2 with a backing file '%s' refused: it could read files of the "
			    "node",
			    info->backing);
		return FALSE;
	}
	if (info->data_file != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "qcow2 with an external data file '%s' refused: it could read files of "
			    "the node",
			    info->data_file);
		return FALSE;
	}
	if (info->encrypted || info->corrupt) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "the qcow2 image is %s",
			    info->encrypted ? "encrypted" : "marked corrupt");
		return FALSE;
	}
	if (info->virtual_size == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "the image is empty");
		return FALSE;
	}
	return TRUE;
}

/* What qemu-img convert printed, as it comes. */
typedef struct {
	Reporter *reporter;
	guint64 virtual_size;
	GString *tail; /* the last few lines that are not progress, for an error */
} ConvertOutput;

/* A line of qemu-img convert -p: progress ("    (12.34/100%)") or
 * anything else, kept for an error. */
static void
convert_line_cb(const gchar *line, gpointer user_data)
{
	ConvertOutput *out = user_data;
	g_autofree gchar *text = g_strstrip(g_strdup(line));
	gdouble percent = 0;

	if (sscanf(text, "(%lf/100%%)", &percent) == 1) {
		reporter_report(out->reporter,
				(guint64)((gdouble)out->virtual_size * percent / 100.0), FALSE);
		return;
	}
	if (text[0] == '\0')
		return;
	if (out->tail->len > 2048)
		g_string_truncate(out->tail, 0);
	g_string_append_printf(out->tail, "%s%s", out->tail->len > 0 ? "; " : "", text);
}

/* How long a convert may take: qemu-img may hang on a broken target, and
 * a disk written at less than CONVERT_MIN_BYTES_PER_S is broken anyway. */
#define CONVERT_MIN_TIMEOUT_S	600
#define CONVERT_MIN_BYTES_PER_S (4 * 1024 * 1024)

static guint
convert_timeout_s(guint64 virtual_size)
{
	return (guint)MIN(CONVERT_MIN_TIMEOUT_S + virtual_size / CONVERT_MIN_BYTES_PER_S,
			  G_MAXUINT);
}

/* qemu-img convert -n of @path (of @format) onto the target, in its
 * format; the target with O_DIRECT when @direct. */
static gboolean
qemu_img_convert(const gchar *path, const gchar *format, guint64 virtual_size,
		 const GntImageWriteOptions *options, gboolean direct, GError **error)
{
	g_autoptr(GntCommand) cmd = gnt_command_new("qemu-img");
	g_autoptr(GString) tail = g_string_new(NULL);
	Reporter reporter;
	ConvertOutput out = {.reporter = &reporter, .virtual_size = virtual_size, .tail = tail};

	gnt_command_add_args(cmd, "convert", "-n", "-p", "-f", format, "-O",
			     gnt_disk_format_to_string(options->target_format), "-t",
			     direct ? "none" : "writeback", NULL);
	if (options->target_format == GNT_DISK_FORMAT_RAW)
		/* out-of-order writes, 16 coroutines: for raw targets only (a
		 * qcow2 one would be fragmented) */
		gnt_command_add_args(cmd, "-W", "-m", "16", NULL);
	gnt_command_add_args(cmd, path, options->target, NULL);
	gnt_command_add_environ(cmd, tool_env);
	gnt_command_set_line_func(cmd, convert_line_cb, &out);
	gnt_command_set_timeout(cmd, convert_timeout_s(virtual_size));
	reporter_init(&reporter, options, GNT_IMAGE_PHASE_WRITING, virtual_size);
	if (!gnt_command_run(cmd, error))
		return FALSE;
	if (gnt_command_get_failure(cmd) != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "qemu-img convert failed (%s; a truncated or damaged image?): %s",
			    gnt_command_get_failure(cmd),
			    tail->len > 0 ? tail->str : "(no output)");
		return FALSE;
	}
	reporter_report(&reporter, virtual_size, TRUE);
	return TRUE;
}

/* ---- the copy: this thread reads (and hashes), another writes --------------------- */

typedef struct _Write Write;

typedef struct {
	guchar *data;
	gsize len;
	gboolean end; /* no data: the reader is done */
} Chunk;

typedef struct {
	int fd;
	gboolean direct;
	const gchar *what; /* the file, for messages */
	GAsyncQueue *full;
	GAsyncQueue *empty;
	gint failed; /* atomic; then @error is set */
	GError *error;
} Writer;

static gboolean
writer_write(Writer *self, const Chunk *chunk, guint64 offset)
{
	gsize done = 0;

	if (self->direct && chunk->len % DIRECT_ALIGN != 0) {
		/* the tail of the image: O_DIRECT wants whole blocks */
		int flags = fcntl(self->fd, F_GETFL);

		if (flags >= 0)
			(void)fcntl(self->fd, F_SETFL, flags & ~O_DIRECT);
		self->direct = FALSE;
	}
	while (done < chunk->len) {
		gssize n = pwrite(self->fd, chunk->data + done, chunk->len - done,
				  (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int errsv = n < 0 ? errno : ENOSPC;

			set_errno_error(&self->error, errsv,
					"writing '%s' at byte %" G_GUINT64_FORMAT, self->what,
					offset + done);
			return FALSE;
		}
		done += (gsize)n;
	}
	return TRUE;
}

static gpointer
writer_thread(gpointer data)
{
	Writer *self = data;
	guint64 offset = 0;

	for (;;) {
		Chunk *chunk = g_async_queue_pop(self->full);

		if (chunk->end)
			break;
		if (!g_atomic_int_get(&self->failed) && !writer_write(self, chunk, offset))
			g_atomic_int_set(&self->failed, 1);
		offset += chunk->len;
		g_async_queue_push(self->empty, chunk);
	}
	return NULL;
}

/* One copy from a stream into a file (or nowhere: only hashing). */
typedef struct {
	GInputStream *in;
	GBytes *head;	   /* read before, comes first; nullable */
	guint64 limit;	   /* more bytes than this: *@too_big */
	Hash *hash;	   /* nullable */
	Reporter reporter; /* its total: the expected size, 0 if unknown */
	/* out */
	guint64 copied;
	gboolean too_big;
	GError *read_error; /* as the stream gave it, not converted */
} Copy;

/* Reads one chunk: the head first, then as much of the stream as fits. */
static gboolean
copy_fill(Copy *self, Chunk *chunk, GError **error)
{
	gsize n = 0;
	gsize got = 0;

	if (self->head != NULL) {
		gsize len = 0;
		const guchar *data = g_bytes_get_data(self->head, &len);

		memcpy(chunk->data, data, MIN(len, CHUNK_BYTES));
		n = MIN(len, CHUNK_BYTES);
		g_clear_pointer(&self->head, g_bytes_unref);
	}
	if (!g_input_stream_read_all(self->in, chunk->data + n, CHUNK_BYTES - n, &got, NULL, error))
		return FALSE;
	chunk->len = n + got;
	return TRUE;
}

static void
set_copy_error(Write *write, Copy *copy, GError **error);

/* Copies into @fd (opened with O_DIRECT if @direct; -1: only hash), then
 * flushes it. */
static gboolean
copy_run(Write *write, Copy *self, int fd, gboolean direct, const gchar *what, GError **error)
{
	Chunk chunks[N_CHUNKS];
	Chunk end = {.end = TRUE};
	Writer writer = {.fd = fd, .direct = direct, .what = what};
	GThread *thread = NULL;
	gboolean ok = TRUE;

	self->head = self->head != NULL ? g_bytes_ref(self->head) : NULL;
	writer.full = g_async_queue_new();
	writer.empty = g_async_queue_new();
	for (guint i = 0; i < N_CHUNKS; i++) {
		chunks[i] = (Chunk){.data = g_aligned_alloc(CHUNK_BYTES, 1, DIRECT_ALIGN)};
		g_async_queue_push(writer.empty, &chunks[i]);
	}
	if (fd >= 0)
		thread = g_thread_new("gnt-image-write", writer_thread, &writer);
	while (ok && !g_atomic_int_get(&writer.failed)) {
		Chunk *chunk = g_async_queue_pop(writer.empty);

		if (!copy_fill(self, chunk, &self->read_error)) {
			ok = FALSE;
		} else if (chunk->len == 0) {
			break;
		} else if (self->copied + chunk->len > self->limit) {
			self->too_big = TRUE;
			ok = FALSE;
		} else {
			if (self->hash != NULL && self->hash->handle != NULL)
				gnutls_hash(self->hash->handle, chunk->data, chunk->len);
			self->copied += chunk->len;
			g_async_queue_push(thread != NULL ? writer.full : writer.empty, chunk);
			reporter_report(&self->reporter, self->copied, FALSE);
		}
	}
	g_clear_pointer(&self->head, g_bytes_unref);
	if (thread != NULL) {
		g_async_queue_push(writer.full, &end);
		g_thread_join(thread);
	}
	for (guint i = 0; i < N_CHUNKS; i++)
		g_aligned_free(chunks[i].data);
	g_async_queue_unref(writer.full);
	g_async_queue_unref(writer.empty);
	if (writer.failed) {
		g_propagate_error(error, writer.error);
		return FALSE;
	}
	if (!ok) {
		set_copy_error(write, self, error);
		return FALSE;
	}
	if (fd >= 0 && fdatasync(fd) != 0) {
		set_errno_error(error, errno, "flushing '%s'", what);
		return FALSE;
	}
	reporter_report(&self->reporter, self->copied, TRUE);
	return TRUE;
}

/* ---- the write ------------------------------------------------------------------- */

struct _Write {
	const GntImageSource *source;
	const GntImageWriteOptions *options;
	guint64 target_size;
	gboolean touched; /* the raw target has been written to */
	GntImageResult *result;
};

/* Opens for writing, with O_DIRECT where the file system has it. */
static int
open_for_writing(const gchar *path, int flags, gboolean *direct, GError **error)
{
	int fd = g_open(path, flags | O_WRONLY | O_CLOEXEC | O_DIRECT, 0600);

	*direct = fd >= 0;
	if (fd < 0 && errno == EINVAL) /* tmpfs and the like */
		fd = g_open(path, flags | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		set_errno_error(error, errno, "opening '%s'", path);
	return fd;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}

/* The size of disk 0: a raw file's or device's length, a qcow2 file's
 * virtual size. */
static gboolean
get_target_size(const GntImageWriteOptions *options, guint64 *size, GError **error)
{
	g_auto(ImageInfo) info = {NULL};
	int fd;
	off_t end;

	if (options->target_format == GNT_DISK_FORMAT_QCOW2) {
		if (!qemu_img_info(options->target, "qcow2", &info, error))
			return FALSE;
		*size = info.virtual_size;
		return TRUE;
	}
	fd = g_open(options->target, O_RDONLY | O_CLOEXEC, 0);
	end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	if (fd < 0 || end < 0) {
		int errsv = errno;

		if (fd >= 0)
			(void)close(fd);
		set_errno_error(error, errsv, "disk 0 '%s'", options->target);
		return FALSE;
	}
	(void)close(fd);
	*size = (guint64)end;
	return TRUE;
}

static void
set_too_big(Write *self, const gchar *what, guint64 size, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
		    "%s (%" G_GUINT64_FORMAT
		    " bytes) is larger than disk 0 '%s' (%" G_GUINT64_FORMAT " bytes)",
		    what, size, self->options->target, self->target_size);
}

/* Zeroes the start of a raw disk that holds a part of an image, or an
 * unverified one, so that it does not boot. */
static void
wipe_target(Write *self)
{
	g_autofree guchar *zeroes = NULL;
	gsize len = (gsize)MIN(self->target_size, WIPE_BYTES);
	int fd;

	if (!self->touched || self->options->target_format != GNT_DISK_FORMAT_RAW)
		return;
	zeroes = g_malloc0(len);
	fd = g_open(self->options->target, O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0 || pwrite(fd, zeroes, len, 0) != (gssize)len || fdatasync(fd) != 0)
		g_warning("could not zero the start of disk 0 '%s': %s", self->options->target,
			  g_strerror(errno));
	if (fd >= 0)
		(void)close(fd);
}

/* The source's failure in @copy as a GNT_ERROR. */
static void
set_copy_error(Write *self, Copy *copy, GError **error)
{
	guint64 total = copy->reporter.total;

	if (copy->too_big) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
			    "the image is larger than disk 0 '%s' (%" G_GUINT64_FORMAT " bytes)",
			    self->options->target, self->target_size);
		return;
	}
	if (g_error_matches(copy->read_error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) ||
	    (g_error_matches(copy->read_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) &&
	     total > 0)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "truncated image: the body ended after %" G_GUINT64_FORMAT
			    " of %" G_GUINT64_FORMAT " bytes",
			    copy->copied, total);
		g_clear_error(&copy->read_error);
		return;
	}
	if (copy->read_error == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT, "reading failed");
		return;
	}
	g_propagate_error(error, g_steal_pointer(&copy->read_error));
	gnt_error_convert(error);
	g_prefix_error(error, "reading: ");
}

/* Streams a raw image from @in onto the raw target, checking @expected
 * (nullable) on the way. */
static gboolean
write_raw(Write *self, GInputStream *in, GBytes *head, guint64 total, const gchar *expected,
	  GError **error)
{
	g_auto(Hash) hash = {NULL};
	g_autoptr(GError) local_error = NULL;
	Copy copy = {.in = in, .head = head, .limit = self->target_size, .hash = &hash};
	gboolean direct = FALSE;
	gint64 start = g_get_monotonic_time();
	int fd;

	if (!hash_init(&hash, expected != NULL, error))
		return FALSE;
	fd = open_for_writing(self->options->target, 0, &direct, error);
	if (fd < 0)
		return FALSE;
	reporter_init(&copy.reporter, self->options, GNT_IMAGE_PHASE_WRITING, total);
	self->touched = TRUE;
	(void)copy_run(self, &copy, fd, direct, self->options->target, &local_error);
	close_fd(&fd);
	if (local_error == NULL && total > 0 && copy.copied != total)
		g_set_error(&local_error, GNT_ERROR, GNT_ERROR_INVALID,
			    "truncated image: the body ended after %" G_GUINT64_FORMAT
			    " of %" G_GUINT64_FORMAT " bytes",
			    copy.copied, total);
	if (local_error == NULL)
		hash_verify(&hash, expected, self->result, &local_error);
	g_clear_error(&copy.read_error);
	if (local_error != NULL) {
		wipe_target(self);
		g_propagate_error(error, g_steal_pointer(&local_error));
		return FALSE;
	}
	self->result->image_bytes = copy.copied;
	self->result->virtual_bytes = copy.copied;
	self->result->write_seconds = (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
	g_free(self->result->format);
	self->result->format = g_strdup("raw");
	return TRUE;
}

/* Checks the local file @fd against @expected (a qcow2 image, before
 * qemu-img reads it). */
static gboolean
check_file_hash(Write *self, int fd, guint64 size, const gchar *expected, GError **error)
{
	g_autoptr(GInputStream) in = g_unix_input_stream_new(fd, FALSE);
	g_auto(Hash) hash = {NULL};
	Copy copy = {.in = in, .limit = G_MAXUINT64, .hash = &hash};

	if (!hash_init(&hash, TRUE, error))
		return FALSE;
	reporter_init(&copy.reporter, self->options, GNT_IMAGE_PHASE_CHECKING, size);
	if (!copy_run(self, &copy, -1, FALSE, NULL, error))
		return FALSE;
	return hash_verify(&hash, expected, self->result, error);
}

/* Writes the local image @path, checking @expected (nullable). */
static gboolean
write_local(Write *self, const gchar *path, const gchar *expected, GError **error)
{
	g_auto(ImageInfo) info = {NULL};
	g_autoptr(GInputStream) in = NULL;
	gboolean direct = FALSE;
	gint64 start;
	int fd;
	GStatBuf st;

	fd = g_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0 || fstat(fd, &st) != 0) {
		int errsv = errno;

		if (fd >= 0)
			(void)close(fd);
		gnt_error_set_errno(error, errsv, "opening");
		return FALSE;
	}
	in = g_unix_input_stream_new(fd, TRUE);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "not a regular file or a block device");
		return FALSE;
	}
	if (!qemu_img_info(path, NULL, &info, error) || !check_image_info(&info, error))
		return FALSE;
	/* qemu-img rounds a raw file's size up to whole sectors */
	if (image_is_raw(&info) && S_ISREG(st.st_mode))
		info.virtual_size = (guint64)st.st_size;
	if (info.virtual_size > self->target_size) {
		set_too_big(self, image_is_raw(&info) ? "its size" : "its virtual size",
			    info.virtual_size, error);
		return FALSE;
	}
	if (S_ISREG(st.st_mode))
		self->result->image_bytes = (guint64)st.st_size;
	if (image_is_raw(&info) && self->options->target_format == GNT_DISK_FORMAT_RAW)
		return write_raw(self, in, NULL, info.virtual_size, expected, error);
	if (expected != NULL &&
	    !check_file_hash(self, g_unix_input_stream_get_fd(G_UNIX_INPUT_STREAM(in)),
			     self->result->image_bytes, expected, error))
		return FALSE;
	/* whether qemu-img can use O_DIRECT on the target too */
	fd = open_for_writing(self->options->target, 0, &direct, error);
	if (fd < 0)
		return FALSE;
	close_fd(&fd);
	start = g_get_monotonic_time();
	if (!qemu_img_convert(path, info.format, info.virtual_size, self->options, direct, error))
		return FALSE;
	self->result->virtual_bytes = info.virtual_size;
	self->result->write_seconds = (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
	g_free(self->result->format);
	self->result->format = g_strdup(info.format);
	return TRUE;
}

/* ---- from a URL ------------------------------------------------------------------- */

/* Sends the GET; fails on anything but a 2xx answer. */
static gboolean
fetch_open(GntHttpGet *fetch, const GntImageSource *source, const GntImageWriteOptions *options,
	   GError **error)
{
	return gnt_http_get_send(fetch, source->location,
				 options->http_timeout_s > 0 ? options->http_timeout_s
							     : GNT_IMAGE_HTTP_TIMEOUT_S,
				 options->tls_database, NULL, NULL, error) &&
	       gnt_http_get_check(fetch, source->location, error);
}

/* The first PROBE_BYTES of the body. (transfer full) */
static GBytes *
fetch_head(Write *self, GntHttpGet *fetch, GError **error)
{
	g_autofree guchar *data = g_malloc(PROBE_BYTES);
	gsize got = 0;
	Copy copy = {0};

	copy.reporter.total = fetch->length;
	if (!g_input_stream_read_all(fetch->body, data, PROBE_BYTES, &got, NULL,
				     &copy.read_error)) {
		set_copy_error(self, &copy, error);
		return NULL;
	}
	if (got == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "the image is empty");
		return NULL;
	}
	return g_bytes_new_take(g_steal_pointer(&data), got);
}

/* What qemu-img's probe makes of @head: *@raw when it is a raw image.
 * A qcow2 header that refers to another file, or whose virtual size does
 * not fit, is refused here, before the rest is downloaded. */
static gboolean
probe_head(Write *self, GBytes *head, gboolean *raw, GError **error)
{
	g_autofree gchar *path = g_build_filename(self->options->work_dir, PROBE_FILE, NULL);
	g_auto(ImageInfo) info = {NULL};
	gsize len = 0;
	const gchar *data = g_bytes_get_data(head, &len);
	gboolean known;

	if (!g_file_set_contents_full(path, data, (gssize)len, G_FILE_SET_CONTENTS_NONE, 0600,
				      error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	/* a header whose tables lie beyond the head does not open: not raw */
	known = qemu_img_info(path, NULL, &info, NULL);
	(void)g_unlink(path);
	*raw = known && image_is_raw(&info);
	if (!known || *raw)
		return TRUE;
	if (!check_image_info(&info, error))
		return FALSE;
	if (info.virtual_size > self->target_size) {
		set_too_big(self, "its virtual size", info.virtual_size, error);
		return FALSE;
	}
	return TRUE;
}

/* Downloads the rest of the body after @head into the work directory,
 * checking its length and checksum; the file's path. (transfer full) */
static gchar *
download(Write *self, GntHttpGet *fetch, GBytes *head, GError **error)
{
	g_autofree gchar *path = g_build_filename(self->options->work_dir, SPOOL_FILE, NULL);
	g_auto(Hash) hash = {NULL};
	Copy copy = {
		.in = fetch->body,
		.head = head,
		.limit = self->target_size + self->target_size / 8 + SPOOL_SLACK_BYTES,
		.hash = &hash,
	};
	struct statvfs fs;
	gboolean direct = FALSE;
	gboolean ok;
	int fd;

	if (fetch->length > 0 && statvfs(self->options->work_dir, &fs) == 0 &&
	    (guint64)fs.f_bavail * fs.f_frsize < fetch->length) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
			    "no room to download it (%" G_GUINT64_FORMAT
			    " bytes) into '%s' (%" G_GUINT64_FORMAT " bytes free)",
			    fetch->length, self->options->work_dir,
			    (guint64)fs.f_bavail * fs.f_frsize);
		return NULL;
	}
	if (!hash_init(&hash, self->source->sha256 != NULL, error))
		return NULL;
	fd = open_for_writing(path, O_CREAT | O_EXCL | O_NOFOLLOW, &direct, error);
	if (fd < 0)
		return NULL;
	reporter_init(&copy.reporter, self->options, GNT_IMAGE_PHASE_DOWNLOADING, fetch->length);
	ok = copy_run(self, &copy, fd, direct, path, error);
	close_fd(&fd);
	if (!ok)
		return NULL;
	if (fetch->length > 0 && copy.copied != fetch->length) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "truncated image: the body ended after %" G_GUINT64_FORMAT
			    " of %" G_GUINT64_FORMAT " bytes",
			    copy.copied, fetch->length);
		return NULL;
	}
	if (!hash_verify(&hash, self->source->sha256, self->result, error))
		return NULL;
	return g_steal_pointer(&path);
}

/* A raw image onto a raw disk streams; anything else is downloaded,
 * checked, then written as a local file. */
static gboolean
write_url(Write *self, GError **error)
{
	g_auto(GntHttpGet) fetch = {NULL};
	g_autoptr(GBytes) head = NULL;
	g_autofree gchar *spool = NULL;
	gboolean raw = FALSE;

	if (!fetch_open(&fetch, self->source, self->options, error))
		return FALSE;
	head = fetch_head(self, &fetch, error);
	if (head == NULL || !probe_head(self, head, &raw, error))
		return FALSE;
	if (raw && self->options->target_format == GNT_DISK_FORMAT_RAW) {
		if (fetch.length > self->target_size) {
			set_too_big(self, "the image", fetch.length, error);
			return FALSE;
		}
		return write_raw(self, fetch.body, head, fetch.length, self->source->sha256, error);
	}
	spool = download(self, &fetch, head, error);
	if (spool == NULL)
		return FALSE;
	gnt_http_get_clear(&fetch); /* the connection is not needed any more */
	if (!write_local(self, spool, NULL, error))
		return FALSE;
	self->result->image_bytes = fetch.length > 0 ? fetch.length : self->result->image_bytes;
	return TRUE;
}

/* ---- the whole ------------------------------------------------------------------------ */

gboolean
gnt_image_write(const GntImageSource *source, const GntImageWriteOptions *options,
		GntImageResult *result, GError **error)
{
	g_auto(GntImageResult) local_result = {NULL};
	g_autoptr(GError) cleanup_error = NULL;
	g_autofree gchar *display = NULL;
	gint64 start = g_get_monotonic_time();
	Write self = {.source = source, .options = options, .result = &local_result};
	gboolean ok;

	g_return_val_if_fail(source != NULL, FALSE);
	g_return_val_if_fail(options != NULL && options->target != NULL, FALSE);
	g_return_val_if_fail(options->work_dir != NULL && g_path_is_absolute(options->work_dir),
			     FALSE);

	display = gnt_image_source_dup_display(source);
	ok = make_work_dir(options->work_dir, error) &&
	     get_target_size(options, &self.target_size, error);
	if (ok) {
		local_result.target_bytes = self.target_size;
		ok = gnt_image_source_is_url(source)
			     ? write_url(&self, error)
			     : write_local(&self, source->location, source->sha256, error);
	}
	if (!remove_work_dir(options->work_dir, &cleanup_error)) {
		g_warning("image '%s': %s", display, cleanup_error->message);
		if (ok) {
			g_propagate_error(error, g_steal_pointer(&cleanup_error));
			ok = FALSE;
		}
	}
	if (!ok) {
		g_prefix_error(error, "image '%s': ", display);
		return FALSE;
	}
	local_result.seconds = (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
	if (result != NULL) {
		*result = local_result;
		local_result = (GntImageResult){NULL};
	}
	return TRUE;
}
