#pragma once

#include <glib.h>

/*
 * The to/from-string pair of an enumeration, over its one table of names
 * indexed by value. to_string gives NULL for a value past the table;
 * from_string fails with GNT_ERROR_INVALID "unknown WHAT
 * 'x' (known: a, b)" (no message is built when @error is NULL: the lookups
 * of queries).
 */
const gchar *
gnt_enum_to_string(const gchar *const *names, guint n, guint value);
gboolean
gnt_enum_from_string(const gchar *const *names, guint n, const gchar *what, const gchar *name,
		     guint *out, GError **error);

/* Defines prefix_to_string(Type) and prefix_from_string(name, Type *, error)
 * over the first @n entries of @names. */
#define GNT_DEFINE_ENUM_STRINGS_N(Type, prefix, names, n, what)                                    \
	const gchar *prefix##_to_string(Type value)                                                \
	{                                                                                          \
		return gnt_enum_to_string(names, n, (guint)value);                                 \
	}                                                                                          \
	gboolean prefix##_from_string(const gchar *name, Type *out, GError **error)                \
	{                                                                                          \
		guint value = 0;                                                                   \
		if (!gnt_enum_from_string(names, n, what, name, &value, error))                    \
			return FALSE;                                                              \
		*out = (Type)value;                                                                \
		return TRUE;                                                                       \
	}

#define GNT_DEFINE_ENUM_STRINGS(Type, prefix, names, what)                                         \
	GNT_DEFINE_ENUM_STRINGS_N(Type, prefix, names, G_N_ELEMENTS(names), what)
