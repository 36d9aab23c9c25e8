#pragma once

/* The text assertions every test shares: glib only, so that any test can
 * include it (tests/tools/ by its relative path). */

#include <string.h>

#include <glib.h>

/* Fails the test unless @needle is in @text, showing both. */
static inline void
gnt_test_assert_contains(const gchar *text, const gchar *needle)
{
	g_assert_nonnull(text);
	if (strstr(text, needle) == NULL)
		g_error("'%s' is missing in:\n%s", needle, text);
}

/* Fails the test if @needle is in @text, showing both. */
static inline void
gnt_test_assert_lacks(const gchar *text, const gchar *needle)
{
	g_assert_nonnull(text);
	if (strstr(text, needle) != NULL)
		g_error("'%s' should not be in:\n%s", needle, text);
}

/* Fails the test unless each of @needles (NULL-terminated) is in @text,
 * each after the one before it. */
static inline void
gnt_test_assert_in_order(const gchar *text, const gchar *const *needles)
{
	const gchar *from = text;

	g_assert_nonnull(text);
	for (guint i = 0; needles[i] != NULL; i++) {
		const gchar *found = strstr(from, needles[i]);

		if (found == NULL)
			g_error("'%s' is not (in order) in:\n%s", needles[i], text);
		from = found + strlen(needles[i]);
	}
}
