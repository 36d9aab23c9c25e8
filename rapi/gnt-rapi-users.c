#include "gnt-rapi-users.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "gnt-error.h"
#include "gnt-secret.h"

#define HA1_LEN		   16 /* MD5 */
#define SCHEME_CLEARTEXT   "{CLEARTEXT}"
#define SCHEME_HA1	   "{HA1}"
#define USERS_MAX_FILE_LEN (16 * 1024 * 1024)

typedef struct {
	GntRapiUserFlags flags;
	guint8 ha1[HA1_LEN];
} UserEntry;

struct _GntRapiUsers {
	GHashTable *by_name; /* name -> UserEntry */
};

static void
user_entry_free(UserEntry *entry)
{
	gnt_secret_wipe(entry->ha1, sizeof(entry->ha1));
	g_free(entry);
}

static void
users_clear(GntRapiUsers *self)
{
	g_hash_table_unref(self->by_name);
}

GntRapiUsers *
gnt_rapi_users_new_empty(void)
{
	GntRapiUsers *self = g_atomic_rc_box_new0(GntRapiUsers);

	self->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      (GDestroyNotify)user_entry_free);
	return self;
}

GntRapiUsers *
gnt_rapi_users_ref(GntRapiUsers *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return g_atomic_rc_box_acquire(self);
}

void
gnt_rapi_users_unref(GntRapiUsers *self)
{
	if (self != NULL)
		g_atomic_rc_box_release_full(self, (GDestroyNotify)users_clear);
}

guint
gnt_rapi_users_get_n_users(const GntRapiUsers *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return g_hash_table_size(self->by_name);
}

/* H(A1) = MD5("user:Ganeti Remote API:password") into @out. */
static void
compute_ha1(const gchar *user, const gchar *password, gsize password_len, guint8 out[HA1_LEN])
{
	g_autoptr(GChecksum) md5 = g_checksum_new(G_CHECKSUM_MD5);
	gsize len = HA1_LEN;

	g_checksum_update(md5, (const guchar *)user, -1);
	g_checksum_update(md5, (const guchar *)":" GNT_RAPI_REALM ":", -1);
	g_checksum_update(md5, (const guchar *)password, (gssize)password_len);
	g_checksum_get_digest(md5, out, &len);
}

/* Compares every byte whatever the first difference. */
static gboolean
digest_equal(const guint8 *a, const guint8 *b, gsize len)
{
	volatile guint8 diff = 0;

	for (gsize i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

gboolean
gnt_rapi_users_check(const GntRapiUsers *self, const gchar *user, const gchar *password,
		     gsize password_len, GntRapiUserFlags *flags)
{
	static const UserEntry nobody = {0};
	const UserEntry *entry;
	guint8 given[HA1_LEN];
	gboolean equal;

	g_return_val_if_fail(self != NULL && user != NULL && flags != NULL, FALSE);
	g_return_val_if_fail(password != NULL || password_len == 0, FALSE);

	entry = g_hash_table_lookup(self->by_name, user);
	compute_ha1(user, password != NULL ? password : "", password_len, given);
	/* an unknown user costs the same digest and comparison */
	equal = digest_equal(given, entry != NULL ? entry->ha1 : nobody.ha1, HA1_LEN);
	gnt_secret_wipe(given, sizeof(given));
	*flags = entry != NULL && equal ? entry->flags : 0;
	return entry != NULL && equal;
}

static gboolean
is_blank(gchar c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next whitespace-separated word of *@cursor, NUL-terminated in place. */
static gchar *
next_word(gchar **cursor)
{
	gchar *p = *cursor;
	gchar *word;

	while (*p != '\0' && is_blank(*p))
		p++;
	if (*p == '\0')
		return NULL;
	word = p;
	while (*p != '\0' && !is_blank(*p))
		p++;
	if (*p != '\0')
		*p++ = '\0';
	*cursor = p;
	return word;
}

static gboolean
decode_hex_digest(const gchar *hex, guint8 out[HA1_LEN])
{
	if (strlen(hex) != HA1_LEN * 2)
		return FALSE;
	for (guint i = 0; i < HA1_LEN; i++) {
		gint hi = g_ascii_xdigit_value(hex[2 * i]);
		gint lo = g_ascii_xdigit_value(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return FALSE;
		out[i] = (guint8)(hi << 4 | lo);
	}
	return TRUE;
}

/* The password field of @name's line into @entry->ha1. */
static gboolean
parse_password(const gchar *name, const gchar *field, UserEntry *entry, GError **error)
{
	const gchar *end;
	gsize scheme_len;

	if (field[0] != '{') {
		compute_ha1(name, field, strlen(field), entry->ha1);
		return TRUE;
	}
	end = strchr(field, '}');
	scheme_len = end != NULL ? (gsize)(end - field) + 1 : 0;
	if (scheme_len == strlen(SCHEME_CLEARTEXT) &&
	    g_ascii_strncasecmp(field, SCHEME_CLEARTEXT, scheme_len) == 0) {
		compute_ha1(name, end + 1, strlen(end + 1), entry->ha1);
		return TRUE;
	}
	if (scheme_len == strlen(SCHEME_HA1) &&
	    g_ascii_strncasecmp(field, SCHEME_HA1, scheme_len) == 0) {
		if (decode_hex_digest(end + 1, entry->ha1))
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the {HA1} password of user '%s' is not 32 hex digits", name);
		return FALSE;
	}
	if (scheme_len <= 2)
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the password of user '%s' starts with '{' but names no scheme "
			    "({CLEARTEXT} or {HA1})",
			    name);
	else
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the password of user '%s' has the unknown scheme '%.*s' (not "
			    "{CLEARTEXT} or {HA1})",
			    name, (int)scheme_len, field);
	return FALSE;
}

/* The options after the password: "read,write", spaces allowed. */
static void
parse_options(const gchar *name, gchar *rest, guint line_no, UserEntry *entry, GPtrArray *warnings)
{
	g_auto(GStrv) options = g_strsplit(rest, ",", -1);

	for (guint i = 0; options[i] != NULL; i++) {
		const gchar *option = g_strstrip(options[i]);

		if (g_strcmp0(option, "read") == 0)
			entry->flags |= GNT_RAPI_USER_READ;
		else if (g_strcmp0(option, "write") == 0)
			entry->flags |= GNT_RAPI_USER_WRITE;
		else if (option[0] != '\0')
			g_ptr_array_add(warnings,
					g_strdup_printf("line %u: user '%s' has the unknown option "
							"'%s' (not read or write); ignored",
							line_no, name, option));
	}
}

/* One line (NUL-terminated, writable). */
static gboolean
parse_line(GntRapiUsers *users, gchar *line, guint line_no, GPtrArray *warnings, GError **error)
{
	g_autofree UserEntry *entry = g_new0(UserEntry, 1);
	gchar *cursor = line;
	gchar *name = next_word(&cursor);
	gchar *password;

	if (name == NULL || name[0] == '#')
		return TRUE;
	password = next_word(&cursor);
	if (password == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "line %u: user '%s' has no password (expected \"NAME PASSWORD "
			    "[read|write]\")",
			    line_no, name);
		return FALSE;
	}
	if (!parse_password(name, password, entry, error)) {
		g_prefix_error(error, "line %u: ", line_no);
		return FALSE;
	}
	parse_options(name, cursor, line_no, entry, warnings);
	if (g_hash_table_contains(users->by_name, name))
		g_ptr_array_add(warnings,
				g_strdup_printf("line %u: user '%s' was given before; this line "
						"replaces it",
						line_no, name));
	g_hash_table_replace(users->by_name, g_strdup(name), g_steal_pointer(&entry));
	return TRUE;
}

GntRapiUsers *
gnt_rapi_users_parse(const gchar *text, gsize len, GPtrArray **warnings, GError **error)
{
	g_autoptr(GntRapiUsers) users = gnt_rapi_users_new_empty();
	g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
	gchar *copy;
	gchar *line;
	gchar *next;
	gboolean ok = TRUE;

	g_return_val_if_fail(text != NULL || len == 0, NULL);
	if (len > 0 && memchr(text, '\0', len) != NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the users file holds a NUL byte: not a text file");
		return NULL;
	}
	copy = g_strndup(text != NULL ? text : "", len);
	line = copy;
	for (guint line_no = 1; ok && line != NULL; line_no++) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		ok = parse_line(users, line, line_no, found, error);
		line = next;
	}
	gnt_secret_wipe(copy, len);
	g_free(copy);
	if (!ok)
		return NULL;
	if (warnings != NULL)
		*warnings = g_steal_pointer(&found);
	return g_steal_pointer(&users);
}

/* ---- the file ---- */

struct _GntRapiUsersFile {
	gchar *path;
	GMutex lock;
	GntRapiUsers *users;
	gboolean have_stat;
	struct stat seen; /* the file as last looked at (loaded or refused) */
};

GntRapiUsersFile *
gnt_rapi_users_file_new(const gchar *path)
{
	GntRapiUsersFile *self = g_new0(GntRapiUsersFile, 1);

	g_return_val_if_fail(path != NULL, NULL);
	self->path = g_strdup(path);
	g_mutex_init(&self->lock);
	self->users = gnt_rapi_users_new_empty();
	return self;
}

void
gnt_rapi_users_file_free(GntRapiUsersFile *self)
{
	if (self == NULL)
		return;
	g_mutex_clear(&self->lock);
	gnt_rapi_users_unref(self->users);
	g_free(self->path);
	g_free(self);
}

const gchar *
gnt_rapi_users_file_get_path(const GntRapiUsersFile *self)
{
	return self->path;
}

static gboolean
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Reads and parses the file; called with the lock held. */
static gboolean
load_locked(GntRapiUsersFile *self, GError **error)
{
	g_autofree gchar *text = NULL;
	g_autoptr(GPtrArray) warnings = NULL;
	g_autoptr(GError) read_error = NULL;
	GntRapiUsers *users;
	struct stat st;
	gsize len = 0;

	if (stat(self->path, &st) != 0) {
		int errsv = errno;

		self->have_stat = FALSE;
		if (errsv != ENOENT) {
			g_autofree gchar *what =
				g_strdup_printf("reading users file '%s'", self->path);
			gnt_error_set_errno(error, errsv, what);
			return FALSE;
		}
		if (gnt_rapi_users_get_n_users(self->users) > 0)
			g_message("users file '%s' is gone: no users any more", self->path);
		gnt_rapi_users_unref(self->users);
		self->users = gnt_rapi_users_new_empty();
		return TRUE;
	}
	self->have_stat = TRUE;
	self->seen = st;
	if (st.st_size > USERS_MAX_FILE_LEN) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "users file '%s' is larger than %d bytes", self->path,
			    USERS_MAX_FILE_LEN);
		return FALSE;
	}
	if (!g_file_get_contents(self->path, &text, &len, &read_error)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s", read_error->message);
		return FALSE;
	}
	users = gnt_rapi_users_parse(text, len, &warnings, error);
	gnt_secret_wipe(text, len);
	if (users == NULL) {
		g_prefix_error(error, "users file '%s' ", self->path);
		return FALSE;
	}
	for (guint i = 0; i < warnings->len; i++)
		g_warning("users file '%s' %s", self->path,
			  (const gchar *)g_ptr_array_index(warnings, i));
	gnt_rapi_users_unref(self->users);
	self->users = users;
	g_message("users file '%s': %u users loaded", self->path,
		  gnt_rapi_users_get_n_users(users));
	return TRUE;
}

static void
load_or_keep_locked(GntRapiUsersFile *self)
{
	g_autoptr(GError) error = NULL;

	if (!load_locked(self, &error))
		g_warning("%s; keeping the %u users loaded before", error->message,
			  gnt_rapi_users_get_n_users(self->users));
}

GntRapiUsers *
gnt_rapi_users_file_get(GntRapiUsersFile *self)
{
	GntRapiUsers *users;
	struct stat st;
	gboolean exists;

	g_return_val_if_fail(self != NULL, NULL);
	exists = stat(self->path, &st) == 0;
	g_mutex_lock(&self->lock);
	if (exists != self->have_stat || (exists && !same_file(&st, &self->seen)))
		load_or_keep_locked(self);
	users = gnt_rapi_users_ref(self->users);
	g_mutex_unlock(&self->lock);
	return users;
}

gboolean
gnt_rapi_users_file_reload(GntRapiUsersFile *self, GError **error)
{
	gboolean ok;

	g_return_val_if_fail(self != NULL, FALSE);
	g_mutex_lock(&self->lock);
	ok = load_locked(self, error);
	g_mutex_unlock(&self->lock);
	return ok;
}
