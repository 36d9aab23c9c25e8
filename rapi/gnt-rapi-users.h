#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * gantry-rapi's users: Ganeti's RAPI users file (doc/rapi.md), one user a
 * line, "NAME PASSWORD [OPTIONS]", whitespace-separated; blank lines and
 * lines starting with '#' are skipped. OPTIONS is a comma-separated list of
 * "read" and "write" (other words are ignored with a warning, as Ganeti
 * does). PASSWORD is plain text (not starting with '{'), "{CLEARTEXT}text",
 * or "{HA1}" and the MD5 of "NAME:Ganeti Remote API:password" in hex (any
 * case); the scheme is case-insensitive.
 *
 * Passwords are kept only as that MD5 (H(A1) of RFC 2617), and checking one
 * compares digests in constant time, also for an unknown user.
 */

#define GNT_RAPI_REALM "Ganeti Remote API"

typedef enum {
	GNT_RAPI_USER_READ = 1 << 0,
	GNT_RAPI_USER_WRITE = 1 << 1,
} GntRapiUserFlags;

/* A parsed users file: immutable, reference-counted, usable from any thread. */
typedef struct _GntRapiUsers GntRapiUsers;

/*
 * Parses the text of a users file. A line that cannot be understood (fewer
 * than two fields, an unknown password scheme, an {HA1} that is not 32 hex
 * digits) or a NUL byte fails the whole text with GNT_ERROR_INVALID naming
 * the line ("line 3: ..."), never quoting a password. @warnings (may be
 * NULL) gets (transfer full) the lines' lesser problems (unknown options,
 * a user given twice: the last one counts), one message each.
 */
GntRapiUsers *
gnt_rapi_users_parse(const gchar *text, gsize len, GPtrArray **warnings, GError **error);
/* No users at all. */
GntRapiUsers *
gnt_rapi_users_new_empty(void);
GntRapiUsers *
gnt_rapi_users_ref(GntRapiUsers *self);
void
gnt_rapi_users_unref(GntRapiUsers *self);
guint
gnt_rapi_users_get_n_users(const GntRapiUsers *self);

/*
 * Whether @user exists and @password (@password_len bytes, any bytes) is
 * theirs; *@flags gets their options then, else 0. The time taken does not
 * depend on how much of the password matched, nor on whether the user
 * exists.
 */
gboolean
gnt_rapi_users_check(const GntRapiUsers *self, const gchar *user, const gchar *password,
		     gsize password_len, GntRapiUserFlags *flags);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntRapiUsers, gnt_rapi_users_unref)

/*
 * The users file at a path, reloaded when it changes: gnt_rapi_users_file_get()
 * compares the file's device, inode, size, mtime and ctime with those of the
 * last load (one stat() call) and reads it again when one differs. A file
 * that does not exist means no users. A broken file (unreadable, or a line
 * gnt_rapi_users_parse() refuses) keeps the users loaded before and logs why
 * once. Thread-safe.
 */
typedef struct _GntRapiUsersFile GntRapiUsersFile;

GntRapiUsersFile *
gnt_rapi_users_file_new(const gchar *path);
void
gnt_rapi_users_file_free(GntRapiUsersFile *self);
const gchar *
gnt_rapi_users_file_get_path(const GntRapiUsersFile *self);
/* The current users, reloaded first if the file changed. (transfer full) */
GntRapiUsers *
gnt_rapi_users_file_get(GntRapiUsersFile *self);
/* Reads the file again whether it changed or not (SIGHUP). FALSE with
 * @error (GNT_ERROR_INVALID or GNT_ERROR_ENVIRONMENT) when it is broken:
 * the users loaded before are kept. */
gboolean
gnt_rapi_users_file_reload(GntRapiUsersFile *self, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntRapiUsersFile, gnt_rapi_users_file_free)

G_END_DECLS
