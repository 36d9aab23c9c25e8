#pragma once /* install/gnt-image-writer.h */

#include <gio/gio.h>

#include "gnt-disk.h"

G_BEGIN_DECLS

/*
 * The node side of an install's `write_image` step (doc/images.md): a disk
 * image, raw or qcow2, from a local path on the node or an http(s) URL,
 * written onto an instance's disk 0.
 *
 *  - The format comes from the content (qemu-img's probe), never from the
 *    name; anything but raw and qcow2 is refused, and so is a qcow2 with a
 *    backing file or an external data file (either could read host files),
 *    an encrypted or corrupt one, and an image whose (virtual) size exceeds
 *    the disk. All of that is checked before the disk is touched.
 *  - Raw is copied by our own loop (the disk opened with O_DIRECT, 4 MiB
 *    buffers, reading and writing in two threads, then fdatasync); qcow2 is
 *    converted by `qemu-img convert -n -t none` onto the disk.
 *  - A URL is fetched with libsoup, TLS checked against the system's CAs. A
 *    raw image streams straight onto the disk; a qcow2 one (which qemu-img
 *    must be able to seek in) is downloaded into the work directory first.
 *  - With an expected SHA-256 the bytes are hashed as they are read: for a
 *    qcow2 image before anything is written, for a raw one while it is
 *    written (a mismatch then fails the write, and the first MiB of the
 *    disk is zeroed so that the unverified data does not boot).
 *  - The work directory is made for the call and removed on every path.
 *
 * Blocking; call it from a worker thread. Errors are GNT_ERROR, their
 * message naming the image (a URL without its password) and the reason:
 * GNT_ERROR_INVALID (malformed source or checksum, unknown format, backing
 * file, corrupt or encrypted image, wrong checksum, truncated image),
 * GNT_ERROR_NOT_FOUND (no such file, HTTP 404), GNT_ERROR_NO_RESOURCES
 * (larger than the disk; no room for the download), GNT_ERROR_ENVIRONMENT
 * (network, TLS, HTTP errors, I/O, qemu-img failing).
 */

/* What to write: Ganeti's `os-image` value, and optionally its checksum. */
typedef struct {
	gchar *location; /* an absolute path on the node, or an http:// or https:// URL */
	gchar *sha256;	 /* 64 lower-case hex digits, or NULL */
} GntImageSource;

/* Checks @location (absolute path or http(s) URL with a host) and @sha256
 * (NULL, or 64 hex digits, either case). GNT_ERROR_INVALID quoting the
 * culprit. (transfer full) */
GntImageSource *
gnt_image_source_new(const gchar *location, const gchar *sha256, GError **error);
void
gnt_image_source_free(GntImageSource *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntImageSource, gnt_image_source_free)

/* Whether @location is an http(s) URL (else a path). */
gboolean
gnt_image_source_is_url(const GntImageSource *self);
/* @location for messages and logs: a URL without its password.
 * (transfer full) */
gchar *
gnt_image_source_dup_display(const GntImageSource *self);

typedef enum {
	GNT_IMAGE_PHASE_CHECKING,    /* hashing a local qcow2 before writing it */
	GNT_IMAGE_PHASE_DOWNLOADING, /* into the work directory (qcow2 from a URL) */
	GNT_IMAGE_PHASE_WRITING,     /* onto the disk */
} GntImagePhase;

/* "checking", "downloading", "writing". */
const gchar *
gnt_image_phase_to_string(GntImagePhase phase);

typedef struct {
	GntImagePhase phase;
	guint64 done;	 /* bytes of this phase so far */
	guint64 total;	 /* bytes of this phase; 0: unknown (no Content-Length) */
	gdouble seconds; /* since the phase began */
} GntImageProgress;

/* Percent of @progress (0 when the total is unknown), and its average
 * rate in MB/s (10^6 bytes, as dd counts). */
gdouble
gnt_image_progress_get_percent(const GntImageProgress *progress);
gdouble
gnt_image_progress_get_mb_per_s(const GntImageProgress *progress);
/* "writing 45% (966.4 of 2147.5 MB), 1203.2 MB/s". (transfer full) */
gchar *
gnt_image_progress_format(const GntImageProgress *progress);

/* Called in the writer's calling thread, at most every
 * GNT_IMAGE_PROGRESS_INTERVAL_MS, and once at the end of each phase. */
typedef void (*GntImageProgressFunc)(const GntImageProgress *progress, gpointer user_data);

#define GNT_IMAGE_PROGRESS_INTERVAL_MS 500
/* An HTTP connection that moves nothing for this long fails. */
#define GNT_IMAGE_HTTP_TIMEOUT_S 60

typedef struct {
	const gchar *target;	     /* disk 0: a file disk's path or a block device */
	GntDiskFormat target_format; /* raw, or qcow2 (a qcow2 file disk) */
	/* made by the call (with its parents), removed on every path; it must
	 * not exist or be one a previous call left behind */
	const gchar *work_dir;
	GTlsDatabase *tls_database; /* NULL: the system's CAs */
	guint http_timeout_s;	    /* 0: GNT_IMAGE_HTTP_TIMEOUT_S */
	GntImageProgressFunc progress;
	gpointer user_data;
} GntImageWriteOptions;

typedef struct {
	gchar *format;	       /* "raw" or "qcow2" */
	guint64 image_bytes;   /* read from the source (the file, or the body) */
	guint64 virtual_bytes; /* written onto the disk (the image's virtual size) */
	guint64 target_bytes;  /* the disk's size */
	gdouble seconds;       /* the whole call */
	gdouble write_seconds; /* the write phase */
	gchar *sha256;	       /* of the image's bytes, when one was expected; else NULL */
} GntImageResult;

void
gnt_image_result_clear(GntImageResult *self);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntImageResult, gnt_image_result_clear)

/* The write rate of @result in MB/s (virtual bytes over the write phase). */
gdouble
gnt_image_result_get_mb_per_s(const GntImageResult *result);

/* Writes @source onto @options->target; @result (nullable) is filled on
 * success. */
gboolean
gnt_image_write(const GntImageSource *source, const GntImageWriteOptions *options,
		GntImageResult *result, GError **error);

G_END_DECLS
