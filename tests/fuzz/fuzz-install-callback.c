/* libFuzzer target: metad's reader of the installer's callbacks
 * (metadata/gnt-metadata-install.h), which reads whatever a guest POSTs
 * to /gantry/latest/install/callback. A body is refused with an error or
 * parses; then its message must be what the sanitiser promises: valid
 * UTF-8, at most GNT_INSTALL_MESSAGE_MAX bytes, no control character but
 * newline and tab, and sanitising it again changes nothing. */
#include <string.h>

#include "gnt-metadata-install.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_auto(GntInstallCallback) callback = {0};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *again = NULL;

	if (!gnt_install_callback_parse((const gchar *)data, size, &callback, &error)) {
		g_assert_nonnull(error);
		g_assert_true(g_utf8_validate(error->message, -1, NULL));
		return 0;
	}
	g_assert_no_error(error);
	g_assert_nonnull(callback.token);
	g_assert_true(callback.status <= GNT_INSTALL_STATUS_ERROR);
	g_assert_true(g_utf8_validate(callback.message, -1, NULL));
	g_assert_cmpuint(strlen(callback.message), <=, GNT_INSTALL_MESSAGE_MAX);
	for (const gchar *p = callback.message; *p != '\0'; p++)
		g_assert_true((guchar)*p >= 0x20 || *p == '\n' || *p == '\t');
	again = gnt_install_message_sanitise(callback.message, strlen(callback.message));
	g_assert_cmpstr(again, ==, callback.message);
	return 0;
}
