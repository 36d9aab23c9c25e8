#pragma once

#include <gio/gio.h>

#include "gnt-os-definition.h"
#include "gnt-os-env.h"
#include "gnt-paths.h"

G_BEGIN_DECLS

/*
 * Running the scripts of an OS definition on a node, as Ganeti's backend
 * does: the environment of gnt_os_env_build() and nothing else, the OS
 * directory as working directory, stdin from /dev/null, stdout and stderr
 * appended to a per-instance log file
 *   <log_dir>/<kind>-<os>-<instance>[-<component>]-<YYYY-MM-DD_HH_MM_SS>.log
 * (kind: add, import, export, rename; rename's instance is "old-new";
 * import and export add "disk<N>"). The script and everything it started
 * run in their own process group, killed as a whole on timeout or
 * cancellation.
 *
 * Secret and private values are only ever in the script's environment:
 * never in the log file's name nor in our messages. What a script prints
 * itself lands in its log, and the log's tail in the error; a script must
 * not print its secrets.
 */

/* How many log lines a failure carries, as in Ganeti. */
#define GNT_OS_LOG_TAIL_LINES 20

typedef struct {
	const gchar *log_dir; /* required but for verify; see gnt_os_script_dup_log_dir() */
	guint timeout_s;      /* 0: no limit */
	/* import: the disk stream read on stdin, a file or a FIFO (an inherited
	 * descriptor as /proc/self/fd/N); NULL: /dev/null */
	const gchar *input_path;
	/* export: where the dump written on stdout goes, a file or a FIFO;
	 * stderr still goes to the log. NULL: stdout into the log */
	const gchar *output_path;
	GCancellable *cancellable;
} GntOsRunOptions;

/* <root>/var/log/gantry/os for @paths. (transfer full) */
gchar *
gnt_os_script_dup_log_dir(const GntPaths *paths);

/*
 * Runs @script of @os (which must have it) with the environment @env
 * builds for it. Import and export need gnt_os_env_set_disk_index(); rename
 * gnt_os_env_set_old_name(). @log_file: where the output went (transfer
 * full; may be NULL).
 *
 * Fails with GNT_ERROR_ENVIRONMENT "OS create script failed (exited with
 * exit code 1), last lines in the log file <path>:\n<tail>" (or "terminated
 * by signal N", "killed after timeout of N seconds", "cancelled" when
 * @options->cancellable fires), the tail being the last
 * GNT_OS_LOG_TAIL_LINES lines of the log; GNT_ERROR_ENVIRONMENT too when
 * the log, the streams or the script cannot be opened; GNT_ERROR_INVALID
 * when @os lacks @script.
 */
gboolean
gnt_os_script_run(const GntOsDefinition *os, GntOsScript script, const GntOsEnv *env,
		  const GntOsRunOptions *options, gchar **log_file, GError **error);

/*
 * Ganeti's ValidateOS for an OS already found: the variant check (skipped
 * with @force_variant), then from API 20 the parameter names against
 * parameters.list and `verify parameters` with the core environment of
 * @env (OSP_* included); the variant checked is the one of
 * gnt_os_env_get_os_name(). GNT_ERROR_INVALID for a refused variant or
 * parameter and for a failing verify ("OS validation script failed
 * (exited with exit code 1), output: ..."), whose output is kept in memory
 * only; GNT_ERROR_ENVIRONMENT when it cannot run.
 */
gboolean
gnt_os_validate(const GntOsDefinition *os, const GntOsEnv *env, gboolean force_variant,
		guint timeout_s, GError **error);

G_END_DECLS
