#pragma once /* tests/hypervisor/hv-golden.h: the hypervisor tests' golden files */

#include <glib.h>

/* Compares @xml with tests/data/@name (GNT_TEST_UPDATE_GOLDEN=1: after
 * writing it there, gnt-test-golden.h). */
void
assert_golden(const gchar *xml, const gchar *name);
