/* Sizes parsed and formatted as Ganeti 3.0's ParseUnit and FormatUnit do;
 * the expected values come from running Ganeti's own functions. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-size.h"

typedef struct {
	const gchar *text;
	guint64 mib;
} ParseCase;

static void
test_parse_valid(void)
{
	static const ParseCase cases[] = {
		{"0", 0},
		{"1", 4}, /* whole MiB, then a multiple of 4 MiB */
		{"4", 4},
		{"5", 8},
		{"512", 512},
		{"512M", 512},
		{"512m", 512},
		{"1MB", 4},
		{"1mib", 4},
		{"1G", 1024},
		{"1g", 1024},
		{"1gib", 1024},
		{"1.5G", 1536},
		{"0.5g", 512},
		{"0.1G", 104},
		{"0.001G", 4},
		{"1T", 1048576},
		{"2tb", 2097152},
		{"1TiB", 1048576},
		{"1.1", 4},
		{"3.999", 4},
		{"4.0000000000000000001", 4}, /* a double, as in Python */
		{".5", 4},
		{"5.", 8},
		{"1024", 1024},
		{"10 G", 10240},
		{"10\tm", 12},
		{"10\n", 12}, /* Python's '$' matches before a final newline */
		{"10M\n", 12},
		{"10 \n", 12},
		{"10\n\n", 12},
		{"8388607T", 8796091973632},
		{"8796093022204", 8796093022204}, /* GNT_SIZE_MAX_MIB */
		{"8796093022203", 8796093022204},
	};

	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		guint64 mib = 1;

		g_test_message("parsing '%s'", cases[i].text);
		g_assert_true(gnt_size_parse(cases[i].text, &mib, &error));
		g_assert_no_error(error);
		g_assert_cmpuint(mib, ==, cases[i].mib);
	}
	g_assert_cmpuint(GNT_SIZE_MAX_MIB, ==, 8796093022204);
}

typedef struct {
	const gchar *text;
	const gchar *needle; /* in the message, after the quoted value */
} BadCase;

static void
test_parse_invalid(void)
{
	static const BadCase cases[] = {
		{"", "expected a number"},
		{"-1", "expected a number"},
		{"+1", "expected a number"},
		{" 1", "expected a number"},
		{"1G ", "expected a number"},
		{"1 G B", "expected a number"},
		{"abc", "expected a number"},
		{"G", "expected a number"},
		{"1e3", "expected a number"},
		{"1_0", "expected a number"},
		{"1,5", "expected a number"},
		{"1.2.3", "expected a number"}, /* Ganeti: a ValueError from float() */
		{".", "expected a number"},
		{"..", "expected a number"},
		{"0x10", "expected a number"},
		{"1k", "unknown unit 'k'"},
		{"1x", "unknown unit 'x'"},
		{"1GiBs", "unknown unit 'GiBs'"},
		{"1kib", "unknown unit 'kib'"},
		{"1P", "unknown unit 'P'"},
		{"8796093022205", "larger than"},
		{"8589934592T", "larger than"},
		{"8589934591T", "larger than"}, /* Ganeti: no limit */
		{"8388608T", "larger than"},
		{"9999999999999999999999", "larger than"},
		{"18446744073709551616", "larger than"},
	};

	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree gchar *quoted = g_strdup_printf("invalid size '%s'", cases[i].text);
		guint64 mib = 77;

		g_test_message("parsing '%s'", cases[i].text);
		g_assert_false(gnt_size_parse(cases[i].text, &mib, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, quoted));
		g_assert_nonnull(strstr(error->message, cases[i].needle));
		g_assert_cmpuint(mib, ==, 77); /* untouched */
	}
}

static void
test_parse_huge_and_odd(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *digits = g_strnfill(400, '9'); /* a double's infinity */
	g_autofree gchar *dots = g_strnfill(300, '.');
	guint64 mib = 0;

	g_assert_false(gnt_size_parse(digits, &mib, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "larger than"));
	g_assert_nonnull(strstr(error->message, "...")); /* long values are cut */
	g_assert_cmpuint(strlen(error->message), <, 200);
	g_clear_error(&error);

	g_assert_false(gnt_size_parse(dots, &mib, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	/* control characters are escaped in the message */
	g_assert_false(gnt_size_parse("1\x01G", &mib, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'1\\001G'"));
	g_clear_error(&error);

	g_assert_false(gnt_size_parse("10\xc3\xa9", &mib, &error)); /* not ASCII */
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

typedef struct {
	gint64 mib;
	const gchar *auto_s, *m, *g, *t;
} FormatCase;

static void
test_format(void)
{
	static const FormatCase cases[] = {
		{0, "0M", "0", "0.0", "0.0"},
		{1, "1M", "1", "0.0", "0.0"},
		{512, "512M", "512", "0.5", "0.0"},
		{1023, "1023M", "1023", "1.0", "0.0"},
		{1024, "1.0G", "1024", "1.0", "0.0"},
		{1025, "1.0G", "1025", "1.0", "0.0"},
		{1075, "1.0G", "1075", "1.0", "0.0"},
		{1126, "1.1G", "1126", "1.1", "0.0"},
		{1177, "1.1G", "1177", "1.1", "0.0"},
		{1536, "1.5G", "1536", "1.5", "0.0"},
		{10240, "10.0G", "10240", "10.0", "0.0"},
		{1048575, "1024.0G", "1048575", "1024.0", "1.0"},
		{1048576, "1.0T", "1048576", "1024.0", "1.0"},
		{1572864, "1.5T", "1572864", "1536.0", "1.5"},
		{123456789, "117.7T", "123456789", "120563.3", "117.7"},
		{-5, "-5M", "-5", "-0.0", "-0.0"},
	};

	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *a = gnt_size_format(cases[i].mib, GNT_SIZE_UNIT_AUTO);
		g_autofree gchar *m = gnt_size_format(cases[i].mib, GNT_SIZE_UNIT_MIB);
		g_autofree gchar *g = gnt_size_format(cases[i].mib, GNT_SIZE_UNIT_GIB);
		g_autofree gchar *t = gnt_size_format(cases[i].mib, GNT_SIZE_UNIT_TIB);

		g_assert_cmpstr(a, ==, cases[i].auto_s);
		g_assert_cmpstr(m, ==, cases[i].m);
		g_assert_cmpstr(g, ==, cases[i].g);
		g_assert_cmpstr(t, ==, cases[i].t);
	}
}

static void
test_round_trip(void)
{
	static const gchar *const texts[] = {"512M", "1.5G", "10.0G", "2.0T", "100M"};

	for (gsize i = 0; i < G_N_ELEMENTS(texts); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree gchar *back = NULL;
		guint64 mib = 0;

		g_assert_true(gnt_size_parse(texts[i], &mib, &error));
		back = gnt_size_format((gint64)mib, GNT_SIZE_UNIT_AUTO);
		g_assert_cmpstr(back, ==, texts[i]);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/storage/size/parse-valid", test_parse_valid);
	g_test_add_func("/storage/size/parse-invalid", test_parse_invalid);
	g_test_add_func("/storage/size/parse-huge-and-odd", test_parse_huge_and_odd);
	g_test_add_func("/storage/size/format", test_format);
	g_test_add_func("/storage/size/round-trip", test_round_trip);
	return g_test_run();
}
