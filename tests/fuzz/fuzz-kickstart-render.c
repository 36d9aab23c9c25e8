/* libFuzzer target: kickstart templates (install/gnt-kickstart-render.h,
 * gnt-kickstart-additions.h), which come from operators' files and URLs.
 * A template is refused with a message naming its line, or it renders
 * with every variable set to "" into text without "{{" (no tag survives);
 * what Gantry adds to it reads again as a template, and adding to that
 * adds nothing more. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-kickstart-additions.h"
#include "gnt-kickstart-render.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

static void
check_refusal(const GError *error)
{
	if (error == NULL || error->domain != GNT_ERROR || error->code != GNT_ERROR_INVALID ||
	    !g_str_has_prefix(error->message, "line "))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	const gchar *text = (const gchar *)data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntKickstartTemplate) tpl = gnt_kickstart_template_new(text, size, &error);
	const gchar *empty[GNT_KICKSTART_N_VARS] = {"", "", "", "", "", "", ""};
	GntKickstartRelease release = {GNT_KICKSTART_FAMILY_RHEL, 8 + size % 3};
	g_autoptr(GString) out = NULL;
	g_autoptr(GString) added = NULL;
	g_autoptr(GString) again = NULL;
	g_autoptr(GntKickstartTemplate) added_tpl = NULL;

	if (tpl == NULL) {
		check_refusal(error);
		return 0;
	}
	out = gnt_kickstart_template_render(tpl, empty, &error);
	if (out == NULL || g_strstr_len(out->str, (gssize)out->len, "{{") != NULL ||
	    out->len > size)
		__builtin_trap();
	added = gnt_kickstart_add_missing(text, size, &release, NULL, &error);
	if (added == NULL) {
		check_refusal(error);
		return 0;
	}
	added_tpl = gnt_kickstart_template_new(added->str, added->len, &error);
	if (added_tpl == NULL)
		__builtin_trap();
	again = gnt_kickstart_add_missing(added->str, added->len, &release, NULL, &error);
	if (again == NULL || again->len != added->len ||
	    memcmp(again->str, added->str, added->len) != 0)
		__builtin_trap();
	return 0;
}
