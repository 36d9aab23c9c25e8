#pragma once

/* Watching processes a test started or had killed. */

#include <string.h>

#include <glib.h>

/* Whether process @pid is gone (or a zombie nobody reaps) within 5 s: a
 * SIGKILL sent takes effect when the process is next scheduled. */
static inline gboolean
gnt_test_process_ends(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", (gint)pid);

	for (guint i = 0; i < 100; i++) {
		g_autofree gchar *stat = NULL;
		const gchar *end;

		if (!g_file_get_contents(path, &stat, NULL, NULL))
			return TRUE;
		end = strrchr(stat, ')');
		if (end != NULL && end[1] == ' ' && end[2] == 'Z')
			return TRUE;
		g_usleep(50 * 1000);
	}
	return FALSE;
}
