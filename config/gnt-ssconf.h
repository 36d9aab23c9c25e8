#pragma once

#include "gnt-config.h"

G_BEGIN_DECLS

/*
 * Ganeti's ssconf files (lib/ssconf.py, src/Ganeti/WConfd/Ssconf.hs): one
 * small text file per key, <dir>/ssconf_<key>, one value per line, that
 * scripts read without asking the master (gnt-cluster getmaster,
 * Ganeti's own ssconf.SimpleStore). masterd writes them into its data
 * directory at start and after every change of the config (doc/daemons.md).
 */

/* Every key written, NULL-terminated ("cluster_name", "master_node", ...).
 * (transfer none) */
const gchar *const *
gnt_ssconf_keys(void);

/* The text of every file from @config: key -> content (lines, each ending
 * in a newline). (transfer full) */
GHashTable *
gnt_ssconf_build(GntConfig *config);

/* Writes the files of @config into @dir, each atomically (a temporary file
 * renamed over it) and only when its content changed. GNT_ERROR_ENVIRONMENT
 * naming the file. */
gboolean
gnt_ssconf_write(GntConfig *config, const gchar *dir, GError **error);

/* The value of @key in @dir without the trailing newlines, as Ganeti's
 * ReadSsconfFile. GNT_ERROR_NOT_FOUND when the file is missing, INVALID for
 * an unknown key. (transfer full) */
gchar *
gnt_ssconf_read(const gchar *dir, const gchar *key, GError **error);

/* Keeps the files of @config in @dir current: writes them now, then after
 * every change of @config, from an idle source on the calling thread's
 * default main context (changes made meanwhile are written together).
 * Stops with gnt_ssconf_watch_free(). (transfer full) */
typedef struct _GntSsconfWatch GntSsconfWatch;
GntSsconfWatch *
gnt_ssconf_watch_new(GntConfig *config, const gchar *dir, GError **error);
void
gnt_ssconf_watch_free(GntSsconfWatch *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntSsconfWatch, gnt_ssconf_watch_free)

G_END_DECLS
