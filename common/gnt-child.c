#include "gnt-child.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <glib/gstdio.h>

static gchar *record_dir;

void
gnt_child_setup(gpointer user_data)
{
	/* async-signal-safe calls only: this runs after fork() */
	(void)setpgid(0, 0);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the parent died before prctl(): no signal would ever come */
	if (getppid() != (pid_t)GPOINTER_TO_INT(user_data))
		_exit(127);
}

void
gnt_child_set_record_dir(const gchar *dir)
{
	g_free(record_dir);
	record_dir = g_strdup(dir);
	if (record_dir != NULL && g_mkdir_with_parents(record_dir, 0700) != 0)
		g_warning("cannot make '%s': %s: children will not be recorded", record_dir,
			  g_strerror(errno));
}

/* This boot's identity: a group recorded before a reboot is long gone,
 * and its number may be anyone's now. */
static gchar *
dup_boot_id(void)
{
	gchar *id = NULL;

	if (!g_file_get_contents("/proc/sys/kernel/random/boot_id", &id, NULL, NULL))
		return g_strdup("");
	return g_strstrip(id);
}

static gchar *
record_path(GPid pgid)
{
	g_autofree gchar *name = g_strdup_printf("%d", (gint)pgid);

	return g_build_filename(record_dir, name, NULL);
}

void
gnt_child_record(GPid pid)
{
	g_autofree gchar *path = NULL;
	g_autofree gchar *boot_id = NULL;
	g_autoptr(GError) error = NULL;

	if (record_dir == NULL)
		return;
	path = record_path(pid);
	boot_id = dup_boot_id();
	if (!g_file_set_contents(path, boot_id, -1, &error))
		g_warning("recording child %d: %s", (gint)pid, error->message);
}

void
gnt_child_forget(GPid pid)
{
	g_autofree gchar *path = NULL;

	/* the group is the child's pid (gnt_child_setup()); its leader has
	 * been reaped, so the number cannot be another group's yet while
	 * anything of it is left */
	(void)kill(-pid, SIGKILL);
	if (record_dir == NULL)
		return;
	path = record_path(pid);
	(void)g_unlink(path);
}

GntChildGroup
gnt_child_group_of(GSubprocess *proc)
{
	const gchar *id = g_subprocess_get_identifier(proc);
	GntChildGroup group = {.pid = id != NULL ? (GPid)g_ascii_strtoll(id, NULL, 10) : 0};

	if (group.pid > 0)
		gnt_child_record(group.pid);
	return group;
}

void
gnt_child_group_clear(GntChildGroup *group)
{
	if (group->pid > 0)
		gnt_child_forget(group->pid);
	group->pid = 0;
}

guint
gnt_child_kill_leftovers(void)
{
	g_autoptr(GDir) dir = NULL;
	g_autofree gchar *boot_id = NULL;
	const gchar *name;
	guint killed = 0;

	if (record_dir == NULL || (dir = g_dir_open(record_dir, 0, NULL)) == NULL)
		return 0;
	boot_id = dup_boot_id();
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = g_build_filename(record_dir, name, NULL);
		g_autofree gchar *recorded = NULL;
		gint64 pgid = 0;

		if (g_ascii_string_to_signed(name, 10, 2, G_MAXINT, &pgid, NULL) &&
		    g_file_get_contents(path, &recorded, NULL, NULL) &&
		    g_strcmp0(g_strstrip(recorded), boot_id) == 0 &&
		    kill(-(pid_t)pgid, SIGKILL) == 0) {
			g_message("killed process group %" G_GINT64_FORMAT
				  ", left running by an earlier run that was stopped without "
				  "ending its children",
				  pgid);
			killed++;
		}
		(void)g_unlink(path);
	}
	return killed;
}
