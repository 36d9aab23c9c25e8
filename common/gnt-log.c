#include "gnt-log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "gnt-error.h"

static gchar *log_ident;
static gchar *log_path;
static int log_fd = STDERR_FILENO;
static GLogLevelFlags log_max_level = G_LOG_LEVEL_MESSAGE;

static const gchar *
level_name(GLogLevelFlags level)
{
	if (level & G_LOG_LEVEL_ERROR)
		return "ERROR";
	if (level & G_LOG_LEVEL_CRITICAL)
		return "CRITICAL";
	if (level & G_LOG_LEVEL_WARNING)
		return "WARNING";
	if (level & G_LOG_LEVEL_MESSAGE)
		return "MESSAGE";
	if (level & G_LOG_LEVEL_INFO)
		return "INFO";
	return "DEBUG";
}

static GLogWriterOutput
log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
	const gchar *message = NULL;
	const gchar *domain = NULL;
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree gchar *stamp = NULL;
	g_autofree gchar *line = NULL;
	GLogLevelFlags severity = level & G_LOG_LEVEL_MASK;

	/* a lower flag value is more severe; fatal levels are always written */
	if (severity > log_max_level &&
	    (severity & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) == 0)
		return G_LOG_WRITER_HANDLED;
	for (gsize i = 0; i < n_fields; i++) {
		if (g_strcmp0(fields[i].key, "MESSAGE") == 0)
			message = fields[i].value;
		else if (g_strcmp0(fields[i].key, "GLIB_DOMAIN") == 0)
			domain = fields[i].value;
	}
	stamp = g_date_time_format(now, "%Y-%m-%d %H:%M:%S.%f");
	stamp[23] = '\0'; /* milliseconds are enough */
	line = g_strdup_printf("%s %s[%d] %s %s: %s\n", stamp, log_ident ? log_ident : "gantry",
			       (int)getpid(), domain ? domain : "gantry", level_name(level),
			       message ? message : "");
	if (write(log_fd, line, strlen(line)) < 0)
		return G_LOG_WRITER_UNHANDLED;
	return G_LOG_WRITER_HANDLED;
}

gboolean
gnt_log_reopen(GError **error)
{
	int fd;

	if (log_path == NULL)
		return TRUE;
	fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0) {
		g_autofree gchar *what = g_strdup_printf("opening log file '%s'", log_path);
		gnt_error_set_errno(error, errno, what);
		return FALSE;
	}
	/* dup2 swaps the file under writers in other threads atomically */
	if (log_fd == STDERR_FILENO) {
		log_fd = fd;
	} else {
		dup2(fd, log_fd);
		close(fd);
	}
	return TRUE;
}

gboolean
gnt_log_setup(const gchar *ident, const gchar *log_file, gboolean verbose, gboolean debug,
	      GError **error)
{
	g_free(log_ident);
	log_ident = g_strdup(ident);
	g_free(log_path);
	log_path = g_strdup(log_file);
	if (!gnt_log_reopen(error))
		return FALSE;
	if (debug)
		log_max_level = G_LOG_LEVEL_DEBUG;
	else if (verbose)
		log_max_level = G_LOG_LEVEL_INFO;
	else
		log_max_level = G_LOG_LEVEL_MESSAGE;
	if (debug)
		g_log_set_debug_enabled(TRUE);
	g_log_set_writer_func(log_writer, NULL, NULL);
	return TRUE;
}
