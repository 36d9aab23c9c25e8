#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Daemon logging: one line per message, "2026-11-21 10:00:00.123 masterd[42]
 * gnt-jobqueue INFO: text", to @log_file (opened for appending) or, when it is
 * NULL, to stderr (for systemd's journal and tests). Debug messages appear
 * with @debug, info messages with @verbose or @debug; warnings and messages
 * always. Job progress belongs in the job's own log, not here.
 */
gboolean
gnt_log_setup(const gchar *ident, const gchar *log_file, gboolean verbose, gboolean debug,
	      GError **error);

/* Opens the log file again (after logrotate moved it: SIGHUP). A no-op when
 * logging to stderr. */
gboolean
gnt_log_reopen(GError **error);

G_END_DECLS
