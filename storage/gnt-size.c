#include "gnt-size.h"

#include <string.h>

#include "gnt-error.h"

/* A value quoted in a message: escaped, and cut short if it is long. */
static gchar *
size_quote(const gchar *text)
{
	g_autofree gchar *escaped = g_strescape(text, NULL);

	if (strlen(escaped) > 64)
		return g_strdup_printf("%.64s...", escaped);
	return g_steal_pointer(&escaped);
}

static gboolean
size_unit_factor(const gchar *unit, gsize len, guint64 *factor)
{
	static const struct {
		const gchar *name;
		guint64 factor;
	} units[] = {
		{"m", 1},	    {"mb", 1},		 {"mib", 1},
		{"g", 1024},	    {"gb", 1024},	 {"gib", 1024},
		{"t", 1024 * 1024}, {"tb", 1024 * 1024}, {"tib", 1024 * 1024},
	};

	for (gsize i = 0; i < G_N_ELEMENTS(units); i++) {
		if (strlen(units[i].name) == len &&
		    g_ascii_strncasecmp(unit, units[i].name, len) == 0) {
			*factor = units[i].factor;
			return TRUE;
		}
	}
	return FALSE;
}

gboolean
gnt_size_parse(const gchar *text, guint64 *out_mib, GError **error)
{
	const gchar *p = text;
	const gchar *unit;
	g_autofree gchar *number = NULL;
	g_autofree gchar *quoted = NULL;
	guint digits = 0, dots = 0;
	guint64 factor = 1;
	gdouble value;
	guint64 whole;

	g_return_val_if_fail(text != NULL, FALSE);
	g_return_val_if_fail(out_mib != NULL, FALSE);

	quoted = size_quote(text);
	/* Ganeti's regex: ^([.\d]+)\s*([a-zA-Z]+)?$ and then float() */
	for (; g_ascii_isdigit(*p) || *p == '.'; p++) {
		if (*p == '.')
			dots++;
		else
			digits++;
	}
	number = g_strndup(text, (gsize)(p - text));
	while (g_ascii_isspace(*p))
		p++;
	unit = p;
	while (g_ascii_isalpha(*p))
		p++;
	/* Python's '$' also matches before one final newline */
	if (*p == '\n')
		p++;
	if (digits == 0 || dots > 1 || *p != '\0') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid size '%s': expected a number of MiB, optionally followed by "
			    "a unit (M, G, T)",
			    quoted);
		return FALSE;
	}
	if (g_ascii_isalpha(*unit)) {
		gsize len = 0;

		while (g_ascii_isalpha(unit[len]))
			len++;
		if (!size_unit_factor(unit, len, &factor)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid size '%s': unknown unit '%.*s' (use M, G or T)",
				    quoted, (int)MIN(len, 16), unit);
			return FALSE;
		}
	}

	/* the same double arithmetic as Ganeti, so that rounding agrees */
	value = g_ascii_strtod(number, NULL) * (gdouble)factor;
	if (!(value <= (gdouble)GNT_SIZE_MAX_MIB)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid size '%s': larger than the largest size, %" G_GUINT64_FORMAT
			    " MiB",
			    quoted, GNT_SIZE_MAX_MIB);
		return FALSE;
	}
	whole = (guint64)value;
	if ((gdouble)whole < value) /* round up to a whole MiB */
		whole++;
	if (whole % 4 != 0) /* then to a multiple of 4 MiB */
		whole += 4 - whole % 4;
	*out_mib = whole;
	return TRUE;
}

static gchar *
size_format_decimal(gdouble value)
{
	gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

	return g_strdup(g_ascii_formatd(buf, sizeof(buf), "%.1f", value));
}

gchar *
gnt_size_format(gint64 mib, GntSizeUnit unit)
{
	switch (unit) {
	case GNT_SIZE_UNIT_AUTO:
		if (mib < 1024)
			return g_strdup_printf("%" G_GINT64_FORMAT "M", mib);
		if (mib < 1024 * 1024) {
			g_autofree gchar *num = size_format_decimal((gdouble)mib / 1024);
			return g_strconcat(num, "G", NULL);
		} else {
			g_autofree gchar *num = size_format_decimal((gdouble)mib / 1024 / 1024);
			return g_strconcat(num, "T", NULL);
		}
	case GNT_SIZE_UNIT_MIB:
		return g_strdup_printf("%" G_GINT64_FORMAT, mib);
	case GNT_SIZE_UNIT_GIB:
		return size_format_decimal((gdouble)mib / 1024);
	case GNT_SIZE_UNIT_TIB:
		return size_format_decimal((gdouble)mib / 1024 / 1024);
	default:
		break;
	}
	g_return_val_if_reached(NULL);
}
