#pragma once /* noded/gnt-noded-cache.h: the node's artifact cache */

#include <gio/gio.h>

#include "gnt-image-writer.h"

G_BEGIN_DECLS

/*
 * The node-side artifact cache (doc/images.md, "The artifact cache"):
 * files downloaded over http(s) for installs, kept under their SHA-256 in
 * one directory, so that installing the same catalog image again (or on
 * many instances at once) downloads it once.
 *
 *  - Keyed by the SHA-256 the master expects: a file is stored under that
 *    name only after its bytes were hashed while they were downloaded and
 *    matched; a mismatch is GNT_ERROR_INVALID "checksum mismatch: expected
 *    X, got Y" and leaves no file behind (the partial download is
 *    removed on every path).
 *  - Two callers wanting the same artifact at once: the first downloads,
 *    the second waits for it and then uses its file (or, when that
 *    download failed, tries itself).
 *  - Size-capped: before a new file is kept, the least recently used ones
 *    that nobody is using are removed until it fits under the cap (the
 *    cluster setting image_cache_size). One larger than the cap is used
 *    for the call that fetched it and removed when released.
 *  - What a crashed noded left half-downloaded is removed when the cache
 *    is first used; finished files are found again (last use: mtime).
 *
 * Thread-safe: noded's procedures call it from worker threads.
 */

typedef struct _GntArtifactCache GntArtifactCache;

/* A cache in @dir (made on first use, mode 0700). (transfer full) */
GntArtifactCache *
gnt_artifact_cache_new(const gchar *dir);
void
gnt_artifact_cache_free(GntArtifactCache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntArtifactCache, gnt_artifact_cache_free)

/* How an artifact was got. */
typedef enum {
	GNT_ARTIFACT_HIT,      /* it was in the cache */
	GNT_ARTIFACT_FILLED,   /* downloaded now, and kept */
	GNT_ARTIFACT_WAITED,   /* another call downloaded it meanwhile */
	GNT_ARTIFACT_UNCACHED, /* downloaded now, larger than the cap: not kept */
} GntArtifactOrigin;

/* "hit", "filled", "waited", "uncached" */
const gchar *
gnt_artifact_origin_to_string(GntArtifactOrigin origin);

/* A file of the cache in use: it stays until released. */
typedef struct _GntArtifact GntArtifact;

const gchar *
gnt_artifact_get_path(const GntArtifact *self);
guint64
gnt_artifact_get_size(const GntArtifact *self);
GntArtifactOrigin
gnt_artifact_get_origin(const GntArtifact *self);
/* Done with it: the cache may remove it from now on. */
void
gnt_artifact_release(GntArtifact *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntArtifact, gnt_artifact_release)

typedef struct {
	guint64 max_bytes;	       /* the cap; > 0 */
	GTlsDatabase *tls_database;    /* NULL: the system's CAs */
	guint http_timeout_s;	       /* 0: GNT_IMAGE_HTTP_TIMEOUT_S */
	GntImageProgressFunc progress; /* nullable: the download's progress */
	gpointer user_data;
} GntArtifactFetchOptions;

/*
 * The artifact @sha256 (64 hex digits, either case), downloaded from @url
 * (http or https) unless the cache holds it. Errors name no URL (the
 * caller does): the download's (gnt-http-get.h), GNT_ERROR_INVALID for a
 * checksum mismatch or a truncated body, GNT_ERROR_NO_RESOURCES when the
 * cache's filesystem has no room. (transfer full)
 */
GntArtifact *
gnt_artifact_cache_fetch(GntArtifactCache *self, const gchar *url, const gchar *sha256,
			 const GntArtifactFetchOptions *options, GError **error);

/* What the cache holds now: files and their bytes (downloads running not
 * counted). */
void
gnt_artifact_cache_get_usage(GntArtifactCache *self, guint *n_files, guint64 *bytes);

/* The cache of this noded, <data>/cache/artifacts under @root's paths,
 * made on first use. (transfer none) */
GntArtifactCache *
gnt_noded_get_artifact_cache(const gchar *data_dir);

G_END_DECLS
