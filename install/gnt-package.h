#pragma once /* install/gnt-package.h */

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * The personalization package of an install (doc/install.md,
 * "Personalization package"): a .tar.gz fetched by the node from the
 * `os-package` URL, sanitized here, handed to metad in memory and unpacked
 * by the install appliance onto the instance's filesystem. The package
 * never touches the node's disk.
 *
 * Errors are GNT_ERROR: GNT_ERROR_INVALID (bad URL, too big, not a
 * .tar.gz, an entry refused: the message names it), GNT_ERROR_NOT_FOUND
 * (HTTP 404/410), GNT_ERROR_ENVIRONMENT (network, TLS, credentials, other
 * HTTP errors).
 */

/* What metad takes (doc/metad.md): the most a package may weigh, fetched or
 * sanitized. */
#define GNT_PACKAGE_MAX_BYTES ((gsize)256 * 1024 * 1024)
/* The most entries a package may hold, and the most bytes its files may
 * unpack to. */
#define GNT_PACKAGE_MAX_ENTRIES	 100000
#define GNT_PACKAGE_MAX_UNPACKED ((guint64)4 * 1024 * 1024 * 1024)

/* Whether @url is an http(s) URL with a host, without credentials in it,
 * whose path ends in ".tar.gz" or ".tgz". GNT_ERROR_INVALID quoting it. */
gboolean
gnt_package_check_url(const gchar *url, GError **error);

/*
 * GETs @url (checked as by gnt_package_check_url()) with libsoup into
 * memory: TLS verified against the system's CAs, no plain http after a
 * redirect from https, Basic credentials sent only when @username is given
 * and the server asks (a refusal: "the package server refused the
 * credentials"), at most @max_bytes (a larger Content-Length fails before
 * the body is read). The bytes as served (no Content-Encoding decoding).
 * Blocking. (transfer full)
 */
GBytes *
gnt_package_fetch(const gchar *url, const gchar *username, const gchar *password, gsize max_bytes,
		  GError **error);

/*
 * Reads @tarball (a gzip'd tar) and writes a new gzip'd tar holding only
 * regular files, directories and symlinks, each with its name normalized
 * (no "./", no empty or "." components; the top directory itself is
 * dropped), its owner, group, permissions (set-user-ID and set-group-ID
 * dropped), modification time and contents; nothing else (no extended
 * attributes, ACLs or file flags). Refused, naming the entry: absolute
 * paths, ".." components, hard links, devices, FIFOs and sockets, symlinks
 * with an absolute target or one that leaves the package's tree (a
 * target may only start with ".." components, as many as the link is deep),
 * entries whose path goes through an earlier symlink; refused whole: input
 * that is not a gzip'd tar ("not a .tar.gz package: ..."), more than
 * GNT_PACKAGE_MAX_ENTRIES entries, more than GNT_PACKAGE_MAX_UNPACKED
 * bytes unpacked, a result over GNT_PACKAGE_MAX_BYTES. All in memory.
 * (transfer full)
 */
GBytes *
gnt_package_sanitize(GBytes *tarball, GError **error);

/*
 * Checks the root filesystem tarball at @path (tar, plain, gzip'd or xz'd:
 * an install's payload, unpacked onto the storage layout by the install
 * appliance; doc/install.md, "The payload") by the package's rules where a
 * root filesystem allows them, reading it once without writing anything.
 * Refused, naming the entry: absolute paths, ".." components, devices,
 * FIFOs and sockets, entries that go through or replace an earlier
 * symlink, hard links to no regular file before them, relative symlink
 * targets that leave the tree. Kept, unlike a package: symlinks with an
 * absolute target (the guest's own, resolved in its root), hard links,
 * set-user-ID and set-group-ID bits, any number of entries. GNT_ERROR_INVALID.
 */
gboolean
gnt_package_check_root_tarball(const gchar *path, GError **error);

G_END_DECLS
