#include "gnt-subprocess.h"

#include "gnt-command.h"
#include "gnt-error.h"

gboolean
gnt_subprocess_run(const gchar *const *argv, const gchar *const *envp, guint timeout_s,
		   gchar **output, gint *exit_status, GError **error)
{
	g_autoptr(GntCommand) cmd = NULL;
	const gchar *data;
	gsize len = 0;

	g_return_val_if_fail(argv != NULL && argv[0] != NULL, FALSE);

	cmd = gnt_command_new_argv(argv);
	gnt_command_add_environ(cmd, envp);
	gnt_command_set_timeout(cmd, timeout_s);
	/* the callers parse what it printed: all of it */
	gnt_command_set_output_keep(cmd, G_MAXSIZE);
	if (!gnt_command_run(cmd, error))
		return FALSE;
	if (gnt_command_get_end(cmd) == GNT_COMMAND_END_TIMED_OUT) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "'%s' did not finish within %u seconds and was killed", argv[0],
			    timeout_s);
		return FALSE;
	}
	if (exit_status != NULL)
		*exit_status = gnt_command_get_exit_status(cmd);
	data = gnt_command_get_output(cmd, &len);
	if (output != NULL)
		*output = g_strndup(data != NULL ? data : "", len);
	return TRUE;
}
