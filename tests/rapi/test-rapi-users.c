/* rapi/gnt-rapi-users: Ganeti's RAPI users file, every password form and
 * option, the lines refused, and the file reloaded when it changes. */
#include "gnt-rapi-users.h"

#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"

/* MD5("ha1user:Ganeti Remote API:s3cret") */
#define HA1_S3CRET "4d7b2c3a0c3f4f2c9d4a1b5e6f708192"

static gchar *
ha1_hex(const gchar *user, const gchar *password)
{
	g_autofree gchar *text = g_strdup_printf("%s:" GNT_RAPI_REALM ":%s", user, password);

	return g_compute_checksum_for_string(G_CHECKSUM_MD5, text, -1);
}

static GntRapiUsers *
parse_ok(const gchar *text, GPtrArray **warnings)
{
	g_autoptr(GError) error = NULL;
	GntRapiUsers *users = gnt_rapi_users_parse(text, strlen(text), warnings, &error);

	g_assert_no_error(error);
	g_assert_nonnull(users);
	return users;
}

static void
assert_login(GntRapiUsers *users, const gchar *user, const gchar *password,
	     GntRapiUserFlags expected)
{
	GntRapiUserFlags flags = 42;

	if (!gnt_rapi_users_check(users, user, password, strlen(password), &flags))
		g_error("'%s' with '%s' was refused", user, password);
	g_assert_cmpint(flags, ==, expected);
}

static void
assert_refused(GntRapiUsers *users, const gchar *user, const gchar *password)
{
	GntRapiUserFlags flags = 42;

	g_assert_false(gnt_rapi_users_check(users, user, password, strlen(password), &flags));
	g_assert_cmpint(flags, ==, 0);
}

static void
test_forms(void)
{
	g_autofree gchar *upper_hex = ha1_hex("ha1upper", "Pw");
	g_autofree gchar *upper = g_ascii_strup(upper_hex, -1);
	g_autofree gchar *lower = ha1_hex("ha1user", "s3cret");
	g_autofree gchar *text = g_strdup_printf("# a comment\n"
						 "\n"
						 "   \t\n"
						 "plain      pw1\n"
						 "clear      {CLEARTEXT}pw2 read\n"
						 "lowerclear {cleartext}{pw3} write\n"
						 "ha1user    {HA1}%s read,write\n"
						 "ha1upper   {ha1}%s write , read\r\n"
						 "  indented pw4 read, \n"
						 "empty      {CLEARTEXT}\n"
						 "  # an indented comment\n"
						 "last pw5",
						 lower, upper);
	g_autoptr(GPtrArray) warnings = NULL;
	g_autoptr(GntRapiUsers) users = parse_ok(text, &warnings);

	g_assert_cmpuint(gnt_rapi_users_get_n_users(users), ==, 8);
	g_assert_cmpuint(warnings->len, ==, 0);
	assert_login(users, "plain", "pw1", 0);
	assert_login(users, "clear", "pw2", GNT_RAPI_USER_READ);
	/* only the scheme is case-insensitive; the rest is the password */
	assert_login(users, "lowerclear", "{pw3}", GNT_RAPI_USER_WRITE);
	assert_login(users, "ha1user", "s3cret", GNT_RAPI_USER_READ | GNT_RAPI_USER_WRITE);
	assert_login(users, "ha1upper", "Pw", GNT_RAPI_USER_READ | GNT_RAPI_USER_WRITE);
	assert_login(users, "indented", "pw4", GNT_RAPI_USER_READ);
	assert_login(users, "empty", "", 0);
	assert_login(users, "last", "pw5", 0);

	assert_refused(users, "plain", "pw1 ");
	assert_refused(users, "plain", "PW1");
	assert_refused(users, "plain", "");
	assert_refused(users, "clear", "{CLEARTEXT}pw2");
	assert_refused(users, "ha1user", lower); /* the hash is not the password */
	assert_refused(users, "nobody", "pw1");
	assert_refused(users, "Plain", "pw1");
	assert_refused(users, "# a", "comment");
}

/* Passwords are bytes: a NUL or a colon inside one is just a byte. */
static void
test_password_bytes(void)
{
	g_autoptr(GntRapiUsers) users = parse_ok("u a:b:c\n", NULL);
	GntRapiUserFlags flags = 0;

	assert_login(users, "u", "a:b:c", 0);
	g_assert_false(gnt_rapi_users_check(users, "u", "a:b:c\0x", 7, &flags));
	g_assert_true(gnt_rapi_users_check(users, "u", "a:b:cX", 5, &flags));
}

static void
test_warnings(void)
{
	g_autoptr(GPtrArray) warnings = NULL;
	g_autoptr(GntRapiUsers)
		users = parse_ok("a pw1 read,admin\nb pw2\na pw3 write\n", &warnings);

	g_assert_cmpuint(gnt_rapi_users_get_n_users(users), ==, 2);
	g_assert_cmpuint(warnings->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(warnings, 0), ==,
			"line 1: user 'a' has the unknown option 'admin' (not read or write); "
			"ignored");
	g_assert_cmpstr(g_ptr_array_index(warnings, 1), ==,
			"line 3: user 'a' was given before; this line replaces it");
	/* the last line counts */
	assert_refused(users, "a", "pw1");
	assert_login(users, "a", "pw3", GNT_RAPI_USER_WRITE);
}

typedef struct {
	const gchar *text;
	const gchar *message;
} BadCase;

static void
test_bad_lines(void)
{
	static const BadCase cases[] = {
		{"ok pw\nlonely\n", "line 2: user 'lonely' has no password"},
		{"u {HA1}0123\n", "line 1: the {HA1} password of user 'u' is not 32 hex digits"},
		{"u {HA1}" HA1_S3CRET "zz\n", "line 1: the {HA1} password of user 'u' is not 32"},
		{"u {HA1}0123456789abcdef0123456789abcdeg\n", "not 32 hex digits"},
		{"\n\nu {SHA}c2VjcmV0\n",
		 "line 3: the password of user 'u' has the unknown scheme '{SHA}'"},
		{"u {secret\n",
		 "line 1: the password of user 'u' starts with '{' but names no scheme"},
		{"u {}x\n", "starts with '{' but names no scheme"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GntRapiUsers) users =
			gnt_rapi_users_parse(cases[i].text, strlen(cases[i].text), NULL, &error);

		g_assert_null(users);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, cases[i].message) == NULL)
			g_error("'%s': expected '%s', got '%s'", cases[i].text, cases[i].message,
				error->message);
		/* never the password itself */
		g_assert_null(strstr(error->message, "secret"));
		g_assert_null(strstr(error->message, "c2VjcmV0"));
	}
}

static void
test_nul_byte(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntRapiUsers) users = gnt_rapi_users_parse("u pw\0x\n", 7, NULL, &error);

	g_assert_null(users);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "NUL byte"));
}

/* ---- the file ---- */

typedef struct {
	gchar *dir;
	gchar *path;
	GntRapiUsersFile *file;
} FileFx;

static void
file_set_up(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-rapi-users-XXXXXX", &error);
	g_assert_no_error(error);
	fx->path = g_build_filename(fx->dir, "users", NULL);
	fx->file = gnt_rapi_users_file_new(fx->path);
}

static void
file_tear_down(FileFx *fx, gconstpointer data)
{
	gnt_rapi_users_file_free(fx->file);
	(void)g_unlink(fx->path);
	g_assert_cmpint(g_rmdir(fx->dir), ==, 0);
	g_free(fx->path);
	g_free(fx->dir);
}

static void
write_users(FileFx *fx, const gchar *text)
{
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_set_contents(fx->path, text, -1, &error));
	g_assert_no_error(error);
}

static guint
n_users(FileFx *fx)
{
	g_autoptr(GntRapiUsers) users = gnt_rapi_users_file_get(fx->file);

	return gnt_rapi_users_get_n_users(users);
}

static gboolean
can_login(FileFx *fx, const gchar *user, const gchar *password)
{
	g_autoptr(GntRapiUsers) users = gnt_rapi_users_file_get(fx->file);
	GntRapiUserFlags flags = 0;

	return gnt_rapi_users_check(users, user, password, strlen(password), &flags);
}

static void
test_file_reload(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	/* no file: no users */
	g_assert_cmpuint(n_users(fx), ==, 0);
	g_assert_true(gnt_rapi_users_file_reload(fx->file, &error));
	g_assert_no_error(error);

	g_test_expect_message("gnt-rapi", G_LOG_LEVEL_MESSAGE, "*: 1 users loaded");
	write_users(fx, "alice pw1 write\n");
	g_assert_true(can_login(fx, "alice", "pw1"));
	g_test_assert_expected_messages();

	/* edited: seen at the next request, no signal needed (same size, new mtime) */
	g_test_expect_message("gnt-rapi", G_LOG_LEVEL_MESSAGE, "*: 1 users loaded");
	write_users(fx, "alice pw2 write\n");
	g_assert_false(can_login(fx, "alice", "pw1"));
	g_assert_true(can_login(fx, "alice", "pw2"));
	g_test_assert_expected_messages();

	/* broken: the users loaded before stay, and why is logged once */
	g_test_expect_message("gnt-rapi", G_LOG_LEVEL_WARNING,
			      "*line 2: user 'bob' has no password*keeping the 1 users loaded "
			      "before");
	write_users(fx, "alice pw3 write\nbob\n");
	g_assert_true(can_login(fx, "alice", "pw2"));
	g_assert_true(can_login(fx, "alice", "pw2"));
	g_test_assert_expected_messages();
	g_assert_false(gnt_rapi_users_file_reload(fx->file, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	/* fixed */
	g_test_expect_message("gnt-rapi", G_LOG_LEVEL_MESSAGE, "*: 2 users loaded");
	write_users(fx, "alice pw3 write\nbob pw4\n");
	g_assert_true(can_login(fx, "bob", "pw4"));
	g_test_assert_expected_messages();

	/* removed: nobody */
	g_test_expect_message("gnt-rapi", G_LOG_LEVEL_MESSAGE, "*is gone: no users any more");
	g_assert_cmpint(g_unlink(fx->path), ==, 0);
	g_assert_cmpuint(n_users(fx), ==, 0);
	g_test_assert_expected_messages();
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/rapi/users/forms", test_forms);
	g_test_add_func("/rapi/users/password-bytes", test_password_bytes);
	g_test_add_func("/rapi/users/warnings", test_warnings);
	g_test_add_func("/rapi/users/bad-lines", test_bad_lines);
	g_test_add_func("/rapi/users/nul-byte", test_nul_byte);
	g_test_add("/rapi/users/file-reload", FileFx, NULL, file_set_up, test_file_reload,
		   file_tear_down);
	return g_test_run();
}
