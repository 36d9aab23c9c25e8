#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * A GntCommand (gnt-command.h) in one call, for the helpers whose output
 * is parsed: runs a helper program with a clean environment (only @envp, plus PATH set
 * to a safe default when @envp has none), stdin from /dev/null, stdout and
 * stderr merged into @output. A program still running after @timeout_s
 * seconds (0: no limit) is killed and fails with GNT_ERROR_ENVIRONMENT.
 * A non-zero exit is not an error here: it is returned in @exit_status
 * (a signal shows as 128 + signal number).
 */
gboolean
gnt_subprocess_run(const gchar *const *argv, const gchar *const *envp, guint timeout_s,
		   gchar **output, gint *exit_status, GError **error);

G_END_DECLS
