#pragma once
/*
 * Children that must not outlive the daemon that started them: noded's OS
 * scripts, image and backup tools and storage commands. Each runs in a
 * process group of its own and gets SIGKILL when the thread that started
 * it dies, kill -9 of the daemon included. What such a child started in
 * turn is not reached by that signal, so the daemon also records each
 * live group in a directory; the next start of the daemon kills the
 * groups a crash left there (gnt_child_kill_leftovers()).
 */
#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * A GSpawnChildSetupFunc (runs in the child, between fork and exec): a
 * process group of its own, SIGKILL when the parent's thread dies, and an
 * immediate exit when the parent is already gone. @user_data:
 * GNT_CHILD_SETUP_DATA, the parent's pid.
 */
void
gnt_child_setup(gpointer user_data);
#define GNT_CHILD_SETUP_DATA (GINT_TO_POINTER((gint)getpid()))

/* Where live children's groups are recorded: set once at start-up,
 * before any child (NULL, the default: nothing is recorded). */
void
gnt_child_set_record_dir(const gchar *dir);

/* Records the group of @pid, a child started with gnt_child_setup(). */
void
gnt_child_record(GPid pid);
/* Once @pid was reaped: kills what is left of its group (what it
 * started and left running) and forgets the group. */
void
gnt_child_forget(GPid pid);

/* A GSubprocess started with gnt_child_setup(), recorded for as long as
 * the variable lives: g_auto(GntChildGroup) group = gnt_child_group_of(proc);
 * going out of scope forgets it (gnt_child_forget()), so every return
 * path ends what the child left. */
typedef struct {
	GPid pid;
} GntChildGroup;

GntChildGroup
gnt_child_group_of(GSubprocess *proc);
void
gnt_child_group_clear(GntChildGroup *group);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntChildGroup, gnt_child_group_clear)

/* At start-up, after gnt_child_set_record_dir(): kills every recorded
 * group that still has a process (left by a daemon that was killed) and
 * forgets them all. Returns how many groups it killed; each is logged. */
guint
gnt_child_kill_leftovers(void);

G_END_DECLS
