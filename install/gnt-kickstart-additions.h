#pragma once /* install/gnt-kickstart-additions.h: what Gantry adds to a template */

#include <glib.h>

#include "gnt-kickstart-validate.h"

G_BEGIN_DECLS

/*
 * What Gantry adds to a kickstart template when it lacks it (doc/kickstart.md,
 * "What Gantry adds"), as template text, so that the one renderer fills in
 * the URLs and the token. Everything goes after the template's own lines
 * (before its own end report's section, if it has one), so that they keep
 * their numbers in the rendered file as long as no value used before them
 * holds a newline:
 *
 * - `liveimg --url={{ liveimg_url }}` (the image, from metad), unless the
 *   template has a liveimg or url payload;
 * - `poweroff`; a template's `reboot`, `halt` or `shutdown` becomes
 *   `poweroff` (Gantry must see the installer stop to boot the instance
 *   from disk), and two of them conflict;
 * - a `%pre` reporting `start`, an `%onerror` reporting `error` (and for
 *   releases before RHEL 9 and Fedora 34 a `%traceback` doing the same;
 *   never after);
 * - with a personalization package (@package), a `%post --nochroot
 *   --erroronfail` that fetches it from metad with {{ agent_token }} and
 *   unpacks it onto the installed system, before the end report;
 * - as the very last section, a `%post --nochroot` that runs `sync` and
 *   then reports `end` (the installed system may have no curl, and anything
 *   after the end report may be cut off by the power-off).
 *
 * A callback is a script line (with its `\` continuations) that uses
 * {{ callback_url }} or names metad's callback path; its status is the
 * word after "agent_status". A callback without {{ agent_token }} is
 * refused, and so is an `end` report that is not the last line of the
 * last section, a `%post --nochroot`, after `sync`.
 */

/* The path of metad's installer callback, as callback_url ends. */
#define GNT_KICKSTART_CALLBACK_PATH "/gantry/latest/install/callback"
/* Where the installer fetches the personalization package, and the header
 * that carries the install's token there (metad answers without it as it
 * answers an unknown path). */
#define GNT_KICKSTART_PACKAGE_PATH "/gantry/latest/install/package.tar.gz"
#define GNT_KICKSTART_PACKAGE_URL  "http://169.254.169.254" GNT_KICKSTART_PACKAGE_PATH
#define GNT_KICKSTART_TOKEN_HEADER "X-Gantry-Agent-Token"

#define GNT_KICKSTART_POWEROFF "poweroff"

/* What a template lacks, as edits of its text: its shutdown command
 * replaced by "poweroff" (@shutdown_len bytes at @shutdown_offset; 0:
 * none), and @block (template text, maybe empty) inserted at @insert_at. */
typedef struct {
	gsize shutdown_offset, shutdown_len;
	gsize insert_at;
	GString *block;
} GntKickstartAdditions;

/* Finds the additions of @text (@len bytes that gnt_kickstart_template_new()
 * read), with the package's %post when @package; the errors and @notes as
 * gnt_kickstart_add_missing(). */
gboolean
gnt_kickstart_additions_find(const gchar *text, gsize len, const GntKickstartRelease *release,
			     gboolean package, GPtrArray *notes, GntKickstartAdditions *additions,
			     GError **error);
void
gnt_kickstart_additions_clear(GntKickstartAdditions *self);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntKickstartAdditions, gnt_kickstart_additions_clear)

/*
 * @text (@len bytes of a template that gnt_kickstart_template_new() read)
 * with what it lacks added. Each change is described in @notes (lines
 * for the job log, appended; nullable). GNT_ERROR_INVALID naming the
 * line: conflicting shutdown commands, a callback without the token, an
 * end report elsewhere than last. (transfer full)
 */
GString *
gnt_kickstart_add_missing(const gchar *text, gsize len, const GntKickstartRelease *release,
			  GPtrArray *notes, GError **error);

G_END_DECLS
