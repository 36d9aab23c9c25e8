/*
 * The node's artifact cache (gnt-noded-cache.h): one directory of files
 * named by their SHA-256, an index of them in memory (size, last use,
 * users), and the downloads that fill it, hashed as they arrive.
 */
#include "gnt-noded-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-http-get.h"

#define PARTIAL_PREFIX "partial-"
#define CACHE_SUBDIR   "cache/artifacts" /* below the data directory */
#define BUFFER_BYTES   (1024 * 1024)
#define SHA256_BYTES   32
#define SHA256_HEX_LEN 64

typedef enum {
	ENTRY_FILLING,
	ENTRY_READY,
} EntryState;

typedef struct {
	EntryState state;
	guint64 size;
	gint64 last_used; /* real time, µs */
	guint users;
} Entry;

struct _GntArtifactCache {
	gchar *dir;
	GMutex lock;
	GCond changed;	     /* an entry was filled, or its download failed */
	GHashTable *entries; /* sha256 -> Entry */
	gboolean scanned;
	guint64 bytes; /* of the ready entries */
};

struct _GntArtifact {
	GntArtifactCache *cache;
	gchar *sha256;
	gchar *path;
	guint64 size;
	GntArtifactOrigin origin;
};

static const gchar *const origins[] = {
	[GNT_ARTIFACT_HIT] = "hit",
	[GNT_ARTIFACT_FILLED] = "filled",
	[GNT_ARTIFACT_WAITED] = "waited",
	[GNT_ARTIFACT_UNCACHED] = "uncached",
};
G_STATIC_ASSERT(G_N_ELEMENTS(origins) == GNT_ARTIFACT_UNCACHED + 1);

const gchar *
gnt_artifact_origin_to_string(GntArtifactOrigin origin)
{
	g_return_val_if_fail(origin <= GNT_ARTIFACT_UNCACHED, NULL);
	return origins[origin];
}

GntArtifactCache *
gnt_artifact_cache_new(const gchar *dir)
{
	GntArtifactCache *self = g_new0(GntArtifactCache, 1);

	g_return_val_if_fail(dir != NULL && g_path_is_absolute(dir), NULL);

	self->dir = g_strdup(dir);
	g_mutex_init(&self->lock);
	g_cond_init(&self->changed);
	self->entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return self;
}

void
gnt_artifact_cache_free(GntArtifactCache *self)
{
	if (self == NULL)
		return;
	g_hash_table_unref(self->entries);
	g_cond_clear(&self->changed);
	g_mutex_clear(&self->lock);
	g_free(self->dir);
	g_free(self);
}

static gboolean
is_sha256_name(const gchar *name)
{
	return strlen(name) == SHA256_HEX_LEN && strspn(name, "0123456789abcdef") == SHA256_HEX_LEN;
}

static gchar *
entry_path(GntArtifactCache *self, const gchar *sha256)
{
	return g_build_filename(self->dir, sha256, NULL);
}

/* Makes the directory and, the first time, reads what it holds: finished
 * files are entries again, partial downloads (a crashed noded's) go.
 * Lock held. */
static gboolean
scan_locked(GntArtifactCache *self, GError **error)
{
	g_autoptr(GDir) dir = NULL;
	const gchar *name;

	if (self->scanned)
		return TRUE;
	if (g_mkdir_with_parents(self->dir, 0700) != 0) {
		gnt_error_set_errno(error, errno, "making the artifact cache");
		g_prefix_error(error, "'%s': ", self->dir);
		return FALSE;
	}
	dir = g_dir_open(self->dir, 0, error);
	if (dir == NULL) {
		gnt_error_convert(error);
		return FALSE;
	}
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = g_build_filename(self->dir, name, NULL);
		GStatBuf st;
		Entry *entry;

		if (g_str_has_prefix(name, PARTIAL_PREFIX)) {
			(void)g_unlink(path);
			continue;
		}
		if (!is_sha256_name(name) || g_lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		entry = g_new0(Entry, 1);
		entry->state = ENTRY_READY;
		entry->size = (guint64)st.st_size;
		entry->last_used = (gint64)st.st_mtime * G_USEC_PER_SEC;
		g_hash_table_insert(self->entries, g_strdup(name), entry);
		self->bytes += entry->size;
	}
	self->scanned = TRUE;
	return TRUE;
}

static gint
compare_last_used(gconstpointer a, gconstpointer b, gpointer user_data)
{
	GHashTable *entries = user_data;
	const Entry *ea = g_hash_table_lookup(entries, *(const gchar *const *)a);
	const Entry *eb = g_hash_table_lookup(entries, *(const gchar *const *)b);

	return ea->last_used < eb->last_used ? -1 : ea->last_used > eb->last_used ? 1 : 0;
}

/* Removes the least recently used files nobody uses until @incoming more
 * bytes fit under @max_bytes (or nothing more can go). Lock held. */
static void
evict_locked(GntArtifactCache *self, guint64 incoming, guint64 max_bytes)
{
	g_autoptr(GPtrArray) idle = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;
	gpointer value;

	g_hash_table_iter_init(&iter, self->entries);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		Entry *entry = value;

		if (entry->state == ENTRY_READY && entry->users == 0)
			g_ptr_array_add(idle, key);
	}
	g_ptr_array_sort_with_data(idle, compare_last_used, self->entries);
	for (guint i = 0; i < idle->len && self->bytes + incoming > max_bytes; i++) {
		const gchar *sha256 = g_ptr_array_index(idle, i);
		Entry *entry = g_hash_table_lookup(self->entries, sha256);
		g_autofree gchar *path = entry_path(self, sha256);

		if (g_unlink(path) != 0 && errno != ENOENT)
			g_warning("artifact cache: removing '%s': %s", path, g_strerror(errno));
		g_info("artifact cache: removed %s (%" G_GUINT64_FORMAT
		       " bytes, least recently used)",
		       sha256, entry->size);
		self->bytes -= entry->size;
		g_hash_table_remove(self->entries, sha256);
	}
}

/* ---- downloading ---- */

/* A download into the cache directory, removed unless kept. */
typedef struct {
	gchar *path;
	int fd;
} Partial;

static void
partial_clear(Partial *self)
{
	if (self->fd >= 0)
		(void)close(self->fd);
	self->fd = -1;
	if (self->path != NULL)
		(void)g_unlink(self->path);
	g_clear_pointer(&self->path, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Partial, partial_clear)

static gchar *
hex_digest(const guchar *digest)
{
	GString *hex = g_string_sized_new(SHA256_HEX_LEN);

	for (guint i = 0; i < SHA256_BYTES; i++)
		g_string_append_printf(hex, "%02x", digest[i]);
	return g_string_free(hex, FALSE);
}

static void
report(const GntArtifactFetchOptions *options, guint64 done, guint64 total, gint64 start)
{
	GntImageProgress progress = {
		.phase = GNT_IMAGE_PHASE_DOWNLOADING,
		.done = done,
		.total = total,
		.seconds = (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC,
	};

	if (options->progress != NULL)
		options->progress(&progress, options->user_data);
}

/* Copies the body into @partial, hashing it; checks length and checksum. */
static gboolean
download_body(GntHttpGet *fetch, Partial *partial, const gchar *expected,
	      const GntArtifactFetchOptions *options, guint64 *size, GError **error)
{
	g_autofree guchar *buffer = g_malloc(BUFFER_BYTES);
	gnutls_hash_hd_t hash = NULL;
	guchar digest[SHA256_BYTES];
	g_autofree gchar *got = NULL;
	gint64 start = g_get_monotonic_time();
	/* the first chunk is reported at once: the download has begun */
	gint64 last = start - GNT_IMAGE_PROGRESS_INTERVAL_MS * 1000;
	guint64 copied = 0;
	int rc = gnutls_hash_init(&hash, GNUTLS_DIG_SHA256);

	if (rc < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "SHA-256: %s",
			    gnutls_strerror(rc));
		return FALSE;
	}
	for (;;) {
		gsize got_bytes = 0;
		gsize written = 0;
		g_autoptr(GError) local = NULL;

		if (!g_input_stream_read_all(fetch->body, buffer, BUFFER_BYTES, &got_bytes, NULL,
					     &local)) {
			gnutls_hash_deinit(hash, NULL);
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "reading the download: %s", local->message);
			return FALSE;
		}
		if (got_bytes == 0)
			break;
		gnutls_hash(hash, buffer, got_bytes);
		while (written < got_bytes) {
			ssize_t n = write(partial->fd, buffer + written, got_bytes - written);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				int errsv = errno;

				gnutls_hash_deinit(hash, NULL);
				gnt_error_set_errno(error, errsv,
						    "writing into the artifact cache");
				return FALSE;
			}
			written += (gsize)n;
		}
		copied += got_bytes;
		if (g_get_monotonic_time() - last >= GNT_IMAGE_PROGRESS_INTERVAL_MS * 1000) {
			last = g_get_monotonic_time();
			report(options, copied, fetch->length, start);
		}
	}
	gnutls_hash_deinit(hash, digest);
	report(options, copied, fetch->length, start);
	if (fetch->length > 0 && copied != fetch->length) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "truncated download: the body ended after %" G_GUINT64_FORMAT
			    " of %" G_GUINT64_FORMAT " bytes",
			    copied, fetch->length);
		return FALSE;
	}
	got = hex_digest(digest);
	if (strcmp(got, expected) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "checksum mismatch: expected %s, got %s", expected, got);
		return FALSE;
	}
	if (fdatasync(partial->fd) != 0) {
		gnt_error_set_errno(error, errno, "syncing the artifact cache");
		return FALSE;
	}
	*size = copied;
	return TRUE;
}

/* Downloads @url into a partial file of the cache, verified. */
static gboolean
download(GntArtifactCache *self, const gchar *url, const gchar *expected,
	 const GntArtifactFetchOptions *options, Partial *partial, guint64 *size, GError **error)
{
	g_auto(GntHttpGet) fetch = {NULL};
	g_autofree gchar *template = g_build_filename(self->dir, PARTIAL_PREFIX "XXXXXX", NULL);
	struct statvfs fs;

	if (!gnt_http_get_send(&fetch, url,
			       options->http_timeout_s > 0 ? options->http_timeout_s
							   : GNT_IMAGE_HTTP_TIMEOUT_S,
			       options->tls_database, NULL, NULL, error) ||
	    !gnt_http_get_check(&fetch, url, error))
		return FALSE;
	if (fetch.length > 0 && statvfs(self->dir, &fs) == 0 &&
	    (guint64)fs.f_bavail * fs.f_frsize < fetch.length) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
			    "no room for it (%" G_GUINT64_FORMAT
			    " bytes) in the artifact cache '%s' "
			    "(%" G_GUINT64_FORMAT " bytes free)",
			    fetch.length, self->dir, (guint64)fs.f_bavail * fs.f_frsize);
		return FALSE;
	}
	partial->fd = g_mkstemp_full(template, O_RDWR | O_CLOEXEC, 0600);
	if (partial->fd < 0) {
		gnt_error_set_errno(error, errno, "making a file in the artifact cache");
		return FALSE;
	}
	partial->path = g_steal_pointer(&template);
	return download_body(&fetch, partial, expected, options, size, error);
}

/* ---- the cache ---- */

static GntArtifact *
artifact_new(GntArtifactCache *self, const gchar *sha256, gchar *path, guint64 size,
	     GntArtifactOrigin origin)
{
	GntArtifact *artifact = g_new0(GntArtifact, 1);

	artifact->cache = self;
	artifact->sha256 = g_strdup(sha256);
	artifact->path = path;
	artifact->size = size;
	artifact->origin = origin;
	return artifact;
}

/* Takes a ready entry for the caller. Lock held. */
static GntArtifact *
use_ready_locked(GntArtifactCache *self, const gchar *sha256, Entry *entry,
		 GntArtifactOrigin origin)
{
	g_autofree gchar *path = entry_path(self, sha256);

	entry->users++;
	entry->last_used = g_get_real_time();
	/* its mtime is its last use when noded starts again */
	(void)utimensat(AT_FDCWD, path, NULL, 0);
	return artifact_new(self, sha256, g_steal_pointer(&path), entry->size, origin);
}

GntArtifact *
gnt_artifact_cache_fetch(GntArtifactCache *self, const gchar *url, const gchar *sha256,
			 const GntArtifactFetchOptions *options, GError **error)
{
	g_autofree gchar *key = NULL;
	g_auto(Partial) partial = {NULL, -1};
	g_autoptr(GMutexLocker) locker = NULL;
	gboolean waited = FALSE;
	guint64 size = 0;
	gboolean ok;
	Entry *entry;

	g_return_val_if_fail(self != NULL && url != NULL && sha256 != NULL, NULL);
	g_return_val_if_fail(options != NULL && options->max_bytes > 0, NULL);

	key = g_ascii_strdown(sha256, -1);
	if (!is_sha256_name(key)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' is not a SHA-256 (64 hexadecimal digits)", sha256);
		return NULL;
	}
	locker = g_mutex_locker_new(&self->lock);
	if (!scan_locked(self, error))
		return NULL;
	while ((entry = g_hash_table_lookup(self->entries, key)) != NULL &&
	       entry->state == ENTRY_FILLING) {
		waited = TRUE;
		g_cond_wait(&self->changed, &self->lock);
	}
	if (entry != NULL)
		return use_ready_locked(self, key, entry,
					waited ? GNT_ARTIFACT_WAITED : GNT_ARTIFACT_HIT);
	/* ours to fill; others asking meanwhile wait for it */
	entry = g_new0(Entry, 1);
	entry->state = ENTRY_FILLING;
	g_hash_table_insert(self->entries, g_strdup(key), entry);
	g_clear_pointer(&locker, g_mutex_locker_free);

	ok = download(self, url, key, options, &partial, &size, error);

	locker = g_mutex_locker_new(&self->lock);
	if (!ok || size > options->max_bytes) {
		g_hash_table_remove(self->entries, key);
		g_cond_broadcast(&self->changed);
		if (!ok)
			return NULL;
		/* used once, never kept: released, it goes */
		(void)close(partial.fd);
		partial.fd = -1;
		return artifact_new(self, key, g_steal_pointer(&partial.path), size,
				    GNT_ARTIFACT_UNCACHED);
	}
	evict_locked(self, size, options->max_bytes);
	{
		g_autofree gchar *path = entry_path(self, key);

		if (g_rename(partial.path, path) != 0) {
			gnt_error_set_errno(error, errno,
					    "keeping a download in the artifact cache");
			g_hash_table_remove(self->entries, key);
			g_cond_broadcast(&self->changed);
			return NULL;
		}
	}
	g_clear_pointer(&partial.path, g_free); /* renamed: nothing to remove */
	entry->state = ENTRY_READY;
	entry->size = size;
	self->bytes += size;
	g_cond_broadcast(&self->changed);
	g_info("artifact cache: kept %s (%" G_GUINT64_FORMAT " bytes; %" G_GUINT64_FORMAT
	       " of %" G_GUINT64_FORMAT " bytes used)",
	       key, size, self->bytes, options->max_bytes);
	return use_ready_locked(self, key, entry, GNT_ARTIFACT_FILLED);
}

void
gnt_artifact_cache_get_usage(GntArtifactCache *self, guint *n_files, guint64 *bytes)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	GHashTableIter iter;
	gpointer value;
	guint n = 0;

	g_hash_table_iter_init(&iter, self->entries);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		n += ((Entry *)value)->state == ENTRY_READY;
	if (n_files != NULL)
		*n_files = n;
	if (bytes != NULL)
		*bytes = self->bytes;
}

const gchar *
gnt_artifact_get_path(const GntArtifact *self)
{
	return self->path;
}

guint64
gnt_artifact_get_size(const GntArtifact *self)
{
	return self->size;
}

GntArtifactOrigin
gnt_artifact_get_origin(const GntArtifact *self)
{
	return self->origin;
}

void
gnt_artifact_release(GntArtifact *self)
{
	if (self == NULL)
		return;
	if (self->origin == GNT_ARTIFACT_UNCACHED) {
		(void)g_unlink(self->path);
	} else {
		G_GNUC_UNUSED g_autoptr(GMutexLocker)
			locker = g_mutex_locker_new(&self->cache->lock);
		Entry *entry = g_hash_table_lookup(self->cache->entries, self->sha256);

		if (entry != NULL && entry->users > 0)
			entry->users--;
	}
	g_free(self->sha256);
	g_free(self->path);
	g_free(self);
}

GntArtifactCache *
gnt_noded_get_artifact_cache(const gchar *data_dir)
{
	static GMutex lock;
	static GHashTable *caches; /* directory -> cache, for the process's life */
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&lock);
	g_autofree gchar *dir = g_build_filename(data_dir, CACHE_SUBDIR, NULL);
	GntArtifactCache *cache;

	if (caches == NULL)
		caches = g_hash_table_new(g_str_hash, g_str_equal);
	cache = g_hash_table_lookup(caches, dir);
	if (cache == NULL) {
		cache = gnt_artifact_cache_new(dir);
		g_hash_table_insert(caches, cache->dir, cache);
	}
	return cache;
}
