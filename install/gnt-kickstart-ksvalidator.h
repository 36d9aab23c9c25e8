#pragma once /* install/gnt-kickstart-ksvalidator.h: pykickstart's ksvalidator, when present */

#include <glib.h>

G_BEGIN_DECLS

/*
 * Runs pykickstart's `ksvalidator -v SYNTAX FILE...` on rendered kickstart
 * files (doc/kickstart.md, "ksvalidator"), with an explicit syntax version
 * ("RHEL9": gnt_kickstart_release_get_syntax()), both output streams read.
 * Its exit status is the number of errors, which wraps at 256, so a file
 * passes only when the status is 0 **and** nothing but the "Checking
 * kickstart file ..." banners (and blank lines) was printed.
 */

/* The program: @configured when not empty (the cluster's ksvalidator
 * setting), else "ksvalidator" on PATH; NULL when there is none.
 * (transfer full) */
gchar *
gnt_kickstart_ksvalidator_find(const gchar *configured);

/*
 * Checks @n_texts files (@texts[i], @lens[i] bytes) with @program for
 * @syntax. The files are written to a private temporary directory (mode
 * 0700: they hold the install's token) and removed. GNT_ERROR_INVALID
 * "ksvalidator -v SYNTAX refused the file: LINE; LINE ..." (at most 20 of
 * its lines) on a non-zero status or any output after the banner;
 * GNT_ERROR_ENVIRONMENT when it cannot run or takes more than a minute.
 */
gboolean
gnt_kickstart_ksvalidator_check(const gchar *program, const gchar *syntax,
				const gchar *const *texts, const gsize *lens, guint n_texts,
				GError **error);

G_END_DECLS
