#pragma once

/* What the OS tests share: the sample definitions in tests/data and the
 * Debian packages that may be installed. */

#include <glib.h>

/* tests/data/<first>[/<more>...] (transfer full) */
#define os_test_data_path(...)                                                                     \
	g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "data", __VA_ARGS__, NULL)

/* Whether ganeti-os-noop and ganeti-instance-debootstrap are installed;
 * marks the test skipped when they are not. */
static inline gboolean
os_test_have_debian_packages(void)
{
	if (g_file_test("/usr/share/ganeti/os/noop", G_FILE_TEST_IS_DIR) &&
	    g_file_test("/usr/share/ganeti/os/debootstrap", G_FILE_TEST_IS_DIR))
		return TRUE;
	g_test_skip("ganeti-os-noop or ganeti-instance-debootstrap is not installed");
	return FALSE;
}
