/* libFuzzer target: the personalization package sanitizer
 * (gnt_package_sanitize(), which every fetched package goes through before
 * metad serves it). It must refuse or succeed without crashing, and what it
 * writes must itself pass it again unchanged: a clean package stays clean. */
#include "gnt-package.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(GBytes) input = g_bytes_new_static(data, size);
	g_autoptr(GBytes) clean = gnt_package_sanitize(input, NULL);
	g_autoptr(GBytes) again = NULL;

	if (clean == NULL)
		return 0;
	again = gnt_package_sanitize(clean, NULL);
	if (again == NULL || !g_bytes_equal(clean, again))
		__builtin_trap();
	return 0;
}
