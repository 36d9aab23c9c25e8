#include "gnt-kickstart-ksvalidator.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-subprocess.h"

#define TIMEOUT_S	 60
#define MAX_QUOTED_LINES 20
#define BANNER		 "Checking kickstart file "

gchar *
gnt_kickstart_ksvalidator_find(const gchar *configured)
{
	if (configured != NULL && *configured != '\0')
		return g_file_test(configured, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup(configured)
									  : NULL;
	return g_find_program_in_path("ksvalidator");
}

/* Removes the files and the directory. */
static void
remove_dir(const gchar *dir, GPtrArray *files)
{
	for (guint i = 0; i < files->len; i++)
		g_unlink(g_ptr_array_index(files, i));
	g_rmdir(dir);
}

/* What ksvalidator printed beyond its banners and blank lines, each line
 * stripped; NULL when nothing. (transfer full) */
static GString *
complaints(const gchar *output)
{
	g_auto(GStrv) lines = g_strsplit(output, "\n", -1);
	g_autoptr(GString) out = g_string_new(NULL);
	guint n = 0;

	for (guint i = 0; lines[i] != NULL; i++) {
		gchar *line = g_strstrip(lines[i]);

		if (*line == '\0' || g_str_has_prefix(line, BANNER))
			continue;
		if (n++ < MAX_QUOTED_LINES)
			g_string_append_printf(out, "%s%s", out->len > 0 ? "; " : "", line);
	}
	if (n > MAX_QUOTED_LINES)
		g_string_append_printf(out, "; ... (%u lines in all)", n);
	return n > 0 ? g_steal_pointer(&out) : NULL;
}

gboolean
gnt_kickstart_ksvalidator_check(const gchar *program, const gchar *syntax,
				const gchar *const *texts, const gsize *lens, guint n_texts,
				GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autofree gchar *dir = NULL;
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autofree gchar *output = NULL;
	g_autoptr(GString) said = NULL;
	gint status = 0;
	gboolean ran;

	g_return_val_if_fail(program != NULL && syntax != NULL, FALSE);
	dir = g_dir_make_tmp("gnt-ksvalidator-XXXXXX", &local);
	if (dir == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "ksvalidator: %s",
			    local->message);
		return FALSE;
	}
	g_ptr_array_add(argv, (gpointer)program);
	g_ptr_array_add(argv, (gpointer) "-v");
	g_ptr_array_add(argv, (gpointer)syntax);
	for (guint i = 0; i < n_texts; i++) {
		gchar *path = g_strdup_printf("%s/ks-%u.cfg", dir, i);

		g_ptr_array_add(files, path);
		g_ptr_array_add(argv, path);
		if (!g_file_set_contents_full(path, texts[i], (gssize)lens[i],
					      G_FILE_SET_CONTENTS_NONE, 0600, &local)) {
			remove_dir(dir, files);
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "ksvalidator: %s",
				    local->message);
			return FALSE;
		}
	}
	g_ptr_array_add(argv, NULL);
	ran = gnt_subprocess_run((const gchar *const *)argv->pdata, NULL, TIMEOUT_S, &output,
				 &status, &local);
	remove_dir(dir, files);
	if (!ran) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "ksvalidator '%s': %s",
			    program, local->message);
		return FALSE;
	}
	said = complaints(output);
	if (status == 0 && said == NULL)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "ksvalidator -v %s refused the file (exit status %d): %s", syntax, status,
		    said != NULL ? said->str : "it printed nothing more");
	return FALSE;
}
