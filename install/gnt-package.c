#include "gnt-package.h"

#include <archive.h>
#include <archive_entry.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/stat.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-http-get.h"

#define FETCH_TIMEOUT_S 300
#define READ_CHUNK	(64 * 1024)
#define MAX_PATH_LEN	4096

/* ---- the URL ------------------------------------------------------------------------ */

gboolean
gnt_package_check_url(const gchar *url, GError **error)
{
	g_autoptr(GUri) uri = NULL;
	const gchar *scheme;
	const gchar *path;

	g_return_val_if_fail(url != NULL, FALSE);
	uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	if (uri == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "package URL '%s' is not a valid URL", url);
		return FALSE;
	}
	scheme = g_uri_get_scheme(uri);
	if (g_ascii_strcasecmp(scheme, "http") != 0 && g_ascii_strcasecmp(scheme, "https") != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "package URL '%s' must be http:// or https://", url);
		return FALSE;
	}
	if (g_uri_get_host(uri) == NULL || g_uri_get_host(uri)[0] == '\0') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "package URL '%s' has no host",
			    url);
		return FALSE;
	}
	if (g_uri_get_userinfo(uri) != NULL) {
		/* the URL is shown in logs and job messages; credentials are secret */
		g_set_error_literal(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			"the package URL must not hold credentials: give them as the "
			"secret parameters os-package-username and os-package-password");
		return FALSE;
	}
	path = g_uri_get_path(uri);
	if (!g_str_has_suffix(path, ".tar.gz") && !g_str_has_suffix(path, ".tgz")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "package URL '%s' must end in .tar.gz or .tgz", url);
		return FALSE;
	}
	return TRUE;
}

/* ---- fetching ---------------------------------------------------------------------- */

typedef struct {
	const gchar *username;
	const gchar *password;
	gboolean sent;
} Credentials;

static gboolean
authenticate_cb(SoupMessage *msg, SoupAuth *auth, gboolean retrying, gpointer user_data)
{
	Credentials *credentials = user_data;

	if (retrying || soup_auth_is_for_proxy(auth) || credentials->username == NULL)
		return FALSE; /* the 401 stands */
	soup_auth_authenticate(auth, credentials->username,
			       credentials->password != NULL ? credentials->password : "");
	credentials->sent = TRUE;
	return TRUE;
}

/* A refusal of the credentials in words; the rest is gnt_http_get_check(). */
static gboolean
check_status(GntHttpGet *get, const gchar *url, const Credentials *credentials, GError **error)
{
	guint status = soup_message_get_status(get->msg);

	if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN) {
		if (credentials->username != NULL)
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "package '%s': the package server refused the credentials "
				    "(HTTP %u)",
				    url, status);
		else
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "package '%s': the package server wants credentials (HTTP "
				    "%u): give os-package-username and os-package-password",
				    url, status);
		return FALSE;
	}
	if (!gnt_http_get_check(get, url, error)) {
		g_prefix_error(error, "package '%s': ", url);
		return FALSE;
	}
	return TRUE;
}

static void
set_too_big(const gchar *url, gsize max_bytes, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "package '%s' is larger than %" G_GSIZE_FORMAT " bytes", url, max_bytes);
}

GBytes *
gnt_package_fetch(const gchar *url, const gchar *username, const gchar *password, gsize max_bytes,
		  GError **error)
{
	g_auto(GntHttpGet) get = {NULL};
	g_autoptr(GError) local_error = NULL;
	g_autoptr(GByteArray) data = NULL;
	g_autofree guint8 *chunk = NULL;
	Credentials credentials = {username, password, FALSE};

	g_return_val_if_fail(url != NULL, NULL);
	if (!gnt_package_check_url(url, error))
		return NULL;
	if (!gnt_http_get_send(&get, url, FETCH_TIMEOUT_S, NULL, G_CALLBACK(authenticate_cb),
			       &credentials, error)) {
		g_prefix_error(error, "package '%s': ", url);
		return NULL;
	}
	if (!check_status(&get, url, &credentials, error))
		return NULL;
	if (get.length > max_bytes) {
		set_too_big(url, max_bytes, error);
		return NULL;
	}
	data = g_byte_array_new();
	chunk = g_malloc(READ_CHUNK);
	for (;;) {
		gssize got = g_input_stream_read(get.body, chunk, READ_CHUNK, NULL, &local_error);

		if (got < 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "package '%s': reading failed: %s", url, local_error->message);
			return NULL;
		}
		if (got == 0)
			break;
		if ((gsize)got > max_bytes - data->len) {
			set_too_big(url, max_bytes, error);
			return NULL;
		}
		g_byte_array_append(data, chunk, (guint)got);
	}
	return g_byte_array_free_to_bytes(g_steal_pointer(&data));
}

/* ---- sanitizing -------------------------------------------------------------------- */

typedef struct archive ArchiveHandle;
static void
archive_handle_free(ArchiveHandle *self)
{
	/* archive_read_free() and archive_write_free() are one function */
	(void)archive_free(self);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ArchiveHandle, archive_handle_free)
typedef struct archive_entry ArchiveEntry;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ArchiveEntry, archive_entry_free)

typedef struct {
	GByteArray *out;
	gboolean too_big;
} Sink;

static la_ssize_t
sink_write_cb(struct archive *a, void *user_data, const void *buffer, size_t length)
{
	Sink *sink = user_data;

	if (length > GNT_PACKAGE_MAX_BYTES - sink->out->len) {
		sink->too_big = TRUE;
		archive_set_error(a, EFBIG, "the sanitized package is too big");
		return -1;
	}
	g_byte_array_append(sink->out, buffer, (guint)length);
	return (la_ssize_t)length;
}

/* A name for messages: non-printable bytes escaped. (transfer full) */
static gchar *
display_name(const gchar *name)
{
	return g_strescape(name != NULL ? name : "", NULL);
}

/* What the messages call an entry: the package's, or a root filesystem
 * tarball's (gnt_package_check_root_tarball()). */
#define PACKAGE_ENTRY "package entry"
#define ROOT_ENTRY    "root filesystem tarball entry"

static gboolean
refuse_entry(GError **error, const gchar *kind, const gchar *name, const gchar *why)
{
	g_autofree gchar *shown = display_name(name);

	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s '%s' %s", kind, shown, why);
	return FALSE;
}

static gboolean
refuse(GError **error, const gchar *name, const gchar *why)
{
	return refuse_entry(error, PACKAGE_ENTRY, name, why);
}

/* @name without "./", empty and "." components, in *@out (NULL: the top
 * directory itself). Refuses absolute names and "..". */
static gboolean
normalize_path(const gchar *kind, const gchar *name, gchar **out, GError **error)
{
	g_auto(GStrv) parts = NULL;
	g_autoptr(GPtrArray) kept = g_ptr_array_new();

	*out = NULL;
	if (name == NULL || name[0] == '\0')
		return refuse_entry(error, kind, name, "has no name");
	if (name[0] == '/')
		return refuse_entry(error, kind, name, "is an absolute path");
	if (strlen(name) > MAX_PATH_LEN)
		return refuse_entry(error, kind, name, "has a name that is too long");
	parts = g_strsplit(name, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] == '\0' || strcmp(parts[i], ".") == 0)
			continue;
		if (strcmp(parts[i], "..") == 0)
			return refuse_entry(error, kind, name, "has a '..' component");
		g_ptr_array_add(kept, parts[i]);
	}
	if (kept->len == 0)
		return TRUE;
	g_ptr_array_add(kept, NULL);
	*out = g_strjoinv("/", (gchar **)kept->pdata);
	return TRUE;
}

/* Whether the symlink at @path (normalized) pointing at @target stays in the
 * tree: relative, and its ".." components only at the start, no more of them
 * than @path has directories. */
static gboolean
check_symlink(const gchar *kind, const gchar *path, const gchar *target, GError **error)
{
	g_auto(GStrv) parts = NULL;
	guint depth = 0;
	gboolean descended = FALSE;

	if (target == NULL || target[0] == '\0')
		return refuse_entry(error, kind, path, "is a symlink with an empty target");
	if (target[0] == '/')
		return refuse_entry(error, kind, path, "is a symlink with an absolute target");
	if (strlen(target) > MAX_PATH_LEN)
		return refuse_entry(error, kind, path,
				    "is a symlink with a target that is too long");
	for (const gchar *p = path; *p != '\0'; p++) {
		if (*p == '/')
			depth++;
	}
	parts = g_strsplit(target, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] == '\0' || strcmp(parts[i], ".") == 0)
			continue;
		if (strcmp(parts[i], "..") != 0) {
			descended = TRUE;
			continue;
		}
		if (descended || depth == 0)
			return refuse_entry(error, kind, path,
					    "is a symlink pointing outside the package");
		depth--;
	}
	return TRUE;
}

/* The symlink (of @symlinks) that @path goes through, or NULL. */
static const gchar *
find_symlink_prefix(GHashTable *symlinks, const gchar *path)
{
	g_autofree gchar *prefix = g_strdup(path);

	for (gchar *slash = strrchr(prefix, '/'); slash != NULL; slash = strrchr(prefix, '/')) {
		*slash = '\0';
		if (g_hash_table_contains(symlinks, prefix))
			return g_hash_table_lookup(symlinks, prefix);
	}
	return NULL;
}

typedef struct {
	struct archive *in;
	struct archive *out;
	GHashTable *symlinks; /* path -> path, the symlinks so far */
	guint n_entries;
	guint64 unpacked;
	Sink *sink;
} Sanitize;

/* The write error, as ours. */
static gboolean
set_write_error(Sanitize *self, GError **error)
{
	if (self->sink->too_big)
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the sanitized package is larger than %" G_GSIZE_FORMAT " bytes",
			    GNT_PACKAGE_MAX_BYTES);
	else
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "writing the package failed: %s",
			    archive_error_string(self->out));
	return FALSE;
}

static gboolean
set_read_error(Sanitize *self, GError **error)
{
	const gchar *why = archive_error_string(self->in);

	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "not a .tar.gz package: %s",
		    why != NULL ? why : "unreadable");
	return FALSE;
}

/* Copies the contents of the current entry (@size bytes). */
static gboolean
copy_data(Sanitize *self, const gchar *path, la_int64_t size, GError **error)
{
	g_autofree guint8 *buffer = g_malloc(READ_CHUNK);
	la_int64_t done = 0;

	while (done < size) {
		la_ssize_t got = archive_read_data(self->in, buffer, READ_CHUNK);

		if (got < 0)
			return set_read_error(self, error);
		if (got == 0)
			return refuse(error, path, "is truncated");
		if (got > size - done)
			got = (la_ssize_t)(size - done);
		if (archive_write_data(self->out, buffer, (size_t)got) != got)
			return set_write_error(self, error);
		done += got;
	}
	return TRUE;
}

/* Checks one entry of the input and writes its clean copy. */
static gboolean
sanitize_entry(Sanitize *self, struct archive_entry *entry, GError **error)
{
	const gchar *name = archive_entry_pathname(entry);
	g_autofree gchar *path = NULL;
	g_autoptr(ArchiveEntry) clean = NULL;
	const gchar *through;
	mode_t type = archive_entry_filetype(entry);
	la_int64_t size = 0;

	if (archive_entry_hardlink(entry) != NULL)
		return refuse(error, name, "is a hard link");
	switch (type) {
	case AE_IFREG:
	case AE_IFDIR:
	case AE_IFLNK:
		break;
	case AE_IFCHR:
		return refuse(error, name, "is a character device");
	case AE_IFBLK:
		return refuse(error, name, "is a block device");
	case AE_IFIFO:
		return refuse(error, name, "is a FIFO");
	case AE_IFSOCK:
		return refuse(error, name, "is a socket");
	default:
		return refuse(error, name, "is of an unknown type");
	}
	if (!normalize_path(PACKAGE_ENTRY, name, &path, error))
		return FALSE;
	if (path == NULL)
		return TRUE; /* the top directory: the filesystem's own stays as it is */
	through = find_symlink_prefix(self->symlinks, path);
	if (through != NULL) {
		g_autofree gchar *shown = display_name(through);
		g_autofree gchar *why = g_strdup_printf("goes through the symlink '%s'", shown);

		return refuse(error, name, why);
	}
	if (type == AE_IFLNK) {
		if (!check_symlink(PACKAGE_ENTRY, path, archive_entry_symlink(entry), error))
			return FALSE;
		g_hash_table_add(self->symlinks, g_strdup(path));
	}
	if (type == AE_IFREG) {
		size = archive_entry_size(entry);
		if (size < 0 || (guint64)size > GNT_PACKAGE_MAX_UNPACKED - self->unpacked) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the package unpacks to more than %" G_GUINT64_FORMAT " bytes",
				    GNT_PACKAGE_MAX_UNPACKED);
			return FALSE;
		}
		self->unpacked += (guint64)size;
	}
	clean = archive_entry_new();
	archive_entry_set_pathname(clean, path);
	archive_entry_set_filetype(clean, type);
	archive_entry_set_perm(clean, archive_entry_perm(entry) & ~(mode_t)(S_ISUID | S_ISGID));
	archive_entry_set_uid(clean, archive_entry_uid(entry));
	archive_entry_set_gid(clean, archive_entry_gid(entry));
	if (archive_entry_uname(entry) != NULL)
		archive_entry_set_uname(clean, archive_entry_uname(entry));
	if (archive_entry_gname(entry) != NULL)
		archive_entry_set_gname(clean, archive_entry_gname(entry));
	archive_entry_set_mtime(clean, archive_entry_mtime(entry), 0);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(clean, archive_entry_symlink(entry));
	archive_entry_set_size(clean, size);
	if (archive_write_header(self->out, clean) != ARCHIVE_OK)
		return set_write_error(self, error);
	return type == AE_IFREG ? copy_data(self, name, size, error) : TRUE;
}

static gboolean
sanitize_all(Sanitize *self, GError **error)
{
	for (;;) {
		struct archive_entry *entry = NULL;
		int rc = archive_read_next_header(self->in, &entry);

		if (rc == ARCHIVE_EOF)
			break;
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
			return set_read_error(self, error);
		/* only now are the filters known; plain tar has one: "none" */
		if (archive_filter_count(self->in) < 2 ||
		    archive_filter_code(self->in, 0) != ARCHIVE_FILTER_GZIP) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "not a .tar.gz package: it is not gzip-compressed");
			return FALSE;
		}
		if (++self->n_entries > GNT_PACKAGE_MAX_ENTRIES) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the package has more than %u entries",
				    GNT_PACKAGE_MAX_ENTRIES);
			return FALSE;
		}
		if (!sanitize_entry(self, entry, error))
			return FALSE;
	}
	if (self->n_entries == 0 && (archive_filter_count(self->in) < 2 ||
				     archive_filter_code(self->in, 0) != ARCHIVE_FILTER_GZIP)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "not a .tar.gz package: it is not gzip-compressed");
		return FALSE;
	}
	if (archive_write_close(self->out) != ARCHIVE_OK)
		return set_write_error(self, error);
	return TRUE;
}

GBytes *
gnt_package_sanitize(GBytes *tarball, GError **error)
{
	/* both outlive the writer, which may still flush into them when freed */
	g_autoptr(GByteArray) result = g_byte_array_new();
	Sink sink = {result, FALSE};
	g_autoptr(GHashTable)
		symlinks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(ArchiveHandle) in = archive_read_new();
	g_autoptr(ArchiveHandle) out = archive_write_new();
	Sanitize self = {in, out, symlinks, 0, 0, &sink};
	gsize len = 0;
	const void *data;

	g_return_val_if_fail(tarball != NULL, NULL);
	data = g_bytes_get_data(tarball, &len);
	if (in == NULL || out == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
				    "libarchive could not allocate");
		return NULL;
	}
	if (archive_read_support_filter_gzip(in) != ARCHIVE_OK ||
	    archive_read_support_format_tar(in) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(out) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(out) != ARCHIVE_OK ||
	    /* the same package gives the same bytes */
	    archive_write_set_filter_option(out, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(out, 1) != ARCHIVE_OK) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "libarchive setup failed: %s",
			    archive_error_string(archive_error_string(in) != NULL ? in : out));
		return NULL;
	}
	if (len == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "not a .tar.gz package: it is empty");
		return NULL;
	}
	if (archive_read_open_memory(in, data, len) != ARCHIVE_OK) {
		set_read_error(&self, error);
		return NULL;
	}
	if (archive_write_open(out, &sink, NULL, sink_write_cb, NULL) != ARCHIVE_OK) {
		set_write_error(&self, error);
		return NULL;
	}
	if (!sanitize_all(&self, error))
		return NULL;
	return g_byte_array_free_to_bytes(g_steal_pointer(&result));
}

/* ---- a root filesystem tarball (doc/install.md, "The payload") ---------------------- */

/* One entry of a root filesystem tarball, by the package's rules where a
 * root filesystem allows them: @symlinks and @files (the paths so far)
 * updated. */
static gboolean
check_root_entry(struct archive_entry *entry, GHashTable *symlinks, GHashTable *files,
		 GError **error)
{
	const gchar *name = archive_entry_pathname(entry);
	const gchar *link = archive_entry_hardlink(entry);
	g_autofree gchar *path = NULL;
	const gchar *through = NULL;
	mode_t type = archive_entry_filetype(entry);

	if (!normalize_path(ROOT_ENTRY, name, &path, error))
		return FALSE;
	if (path == NULL)
		return TRUE; /* the top directory */
	through = find_symlink_prefix(symlinks, path);
	if (through != NULL || g_hash_table_contains(symlinks, path)) {
		g_autofree gchar *shown = display_name(through != NULL ? through : path);
		g_autofree gchar *why =
			g_strdup_printf("%s the symlink '%s'",
					through != NULL ? "goes through" : "replaces", shown);

		return refuse_entry(error, ROOT_ENTRY, name, why);
	}
	if (link != NULL) {
		g_autofree gchar *target = NULL;

		/* a hard link to a file of the tarball before it, by the
		 * same path rules */
		if (!normalize_path(ROOT_ENTRY, link, &target, error))
			return FALSE;
		if (target == NULL || !g_hash_table_contains(files, target))
			return refuse_entry(error, ROOT_ENTRY, name,
					    "is a hard link to no file before it");
		return TRUE;
	}
	switch (type) {
	case AE_IFREG:
		g_hash_table_add(files, g_steal_pointer(&path));
		return TRUE;
	case AE_IFDIR:
		return TRUE;
	case AE_IFLNK: {
		const gchar *target = archive_entry_symlink(entry);

		/* an absolute target is the guest's own (/etc/alternatives/...):
		 * resolved in its root, never followed while unpacking */
		if (target == NULL || target[0] != '/') {
			if (!check_symlink(ROOT_ENTRY, path, target, error))
				return FALSE;
		}
		g_hash_table_add(symlinks, g_steal_pointer(&path));
		return TRUE;
	}
	case AE_IFCHR:
		return refuse_entry(error, ROOT_ENTRY, name,
				    "is a character device (devtmpfs makes /dev's)");
	case AE_IFBLK:
		return refuse_entry(error, ROOT_ENTRY, name, "is a block device");
	case AE_IFIFO:
		return refuse_entry(error, ROOT_ENTRY, name, "is a FIFO");
	case AE_IFSOCK:
		return refuse_entry(error, ROOT_ENTRY, name, "is a socket");
	default:
		return refuse_entry(error, ROOT_ENTRY, name, "is of an unknown type");
	}
}

gboolean
gnt_package_check_root_tarball(const gchar *path, GError **error)
{
	g_autoptr(ArchiveHandle) in = archive_read_new();
	g_autoptr(GHashTable)
		symlinks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint n_entries = 0;

	g_return_val_if_fail(path != NULL, FALSE);
	if (in == NULL || archive_read_support_filter_gzip(in) != ARCHIVE_OK ||
	    archive_read_support_filter_xz(in) != ARCHIVE_OK ||
	    archive_read_support_filter_bzip2(in) != ARCHIVE_OK ||
	    archive_read_support_format_tar(in) != ARCHIVE_OK) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT, "libarchive setup failed");
		return FALSE;
	}
	if (archive_read_open_filename(in, path, READ_CHUNK) != ARCHIVE_OK) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "not a root filesystem tarball (.tar, .tar.gz, .tar.xz): %s",
			    archive_error_string(in));
		return FALSE;
	}
	for (;;) {
		struct archive_entry *entry = NULL;
		int rc = archive_read_next_header(in, &entry);

		if (rc == ARCHIVE_EOF)
			break;
		if ((rc != ARCHIVE_OK && rc != ARCHIVE_WARN) ||
		    archive_read_data_skip(in) != ARCHIVE_OK) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "not a root filesystem tarball (.tar, .tar.gz, .tar.xz): %s",
				    archive_error_string(in));
			return FALSE;
		}
		if (!check_root_entry(entry, symlinks, files, error))
			return FALSE;
		n_entries++;
	}
	if (n_entries == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the root filesystem tarball has no entries");
		return FALSE;
	}
	return TRUE;
}
