/* tests/http/test-http-chunked.c: the chunked body decoder */
#include <string.h>

#include "gnt-http-chunked.h"

/* Decodes @text fed @step bytes at a time (keeping what the decoder left),
 * as the server does with what it reads. */
static GntHttpChunkedResult
decode(const gchar *text, gsize len, gsize max, gsize step, GByteArray *body, gsize *rest)
{
	GntHttpChunked chunked;
	g_autoptr(GByteArray) pending = g_byte_array_new();
	GntHttpChunkedResult result = GNT_HTTP_CHUNKED_MORE;
	gsize fed = 0;

	gnt_http_chunked_init(&chunked, max);
	while (result == GNT_HTTP_CHUNKED_MORE && fed < len) {
		gsize n = MIN(step, len - fed);
		gsize consumed = 0;

		g_byte_array_append(pending, (const guint8 *)text + fed, (guint)n);
		fed += n;
		result = gnt_http_chunked_decode(&chunked, pending->data, pending->len, body,
						 &consumed);
		g_assert_cmpuint(consumed, <=, pending->len);
		g_byte_array_remove_range(pending, 0, (guint)consumed);
	}
	*rest = pending->len + (len - fed);
	return result;
}

static void
test_decoded(void)
{
	static const gchar text[] = "5\r\nhello\r\n1;name=value;x\r\n \r\n6\nworld!\n0\r\n"
				    "Trailer: yes\r\n\r\nNEXT";
	gsize lens[] = {1, 2, 3, 7, sizeof(text)};

	for (guint i = 0; i < G_N_ELEMENTS(lens); i++) {
		g_autoptr(GByteArray) body = g_byte_array_new();
		gsize rest = 0;

		g_assert_cmpint(decode(text, sizeof(text) - 1, 1024, lens[i], body, &rest), ==,
				GNT_HTTP_CHUNKED_DONE);
		g_assert_cmpmem(body->data, body->len, "hello world!", 12);
		g_assert_cmpuint(rest, ==, 4); /* "NEXT" is the next request's */
	}
}

static void
test_malformed(void)
{
	static const gchar *const cases[] = {
		"x\r\n",
		"\r\n",
		"5\r\nhelloXX",
		"5 x\r\nhello\r\n",
		"-1\r\n",
		"5\rx\nhello\r\n",
		"0\r\nTrailer\rx\r\n\r\n",
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GByteArray) body = g_byte_array_new();
		gsize rest = 0;

		if (decode(cases[i], strlen(cases[i]), 1024, 1, body, &rest) !=
		    GNT_HTTP_CHUNKED_MALFORMED)
			g_error("case %u was not refused", i);
	}
}

/* A size line longer than 1 KiB is refused before its end arrives. */
static void
test_long_line(void)
{
	g_autofree gchar *text = g_strnfill(2000, '0');
	g_autoptr(GByteArray) body = g_byte_array_new();
	gsize rest = 0;

	g_assert_cmpint(decode(text, 2000, 1 << 20, 100, body, &rest), ==,
			GNT_HTTP_CHUNKED_MALFORMED);
}

/* Every byte counts: one data byte behind 1000 bytes of extension per
 * chunk reaches the limit after limit/1000 chunks, not limit chunks. */
static void
test_extensions_count(void)
{
	g_autofree gchar *ext = g_strnfill(1000, 'e');
	g_autofree gchar *chunk = g_strdup_printf("1;%s\r\nA\r\n", ext);
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(GByteArray) body = g_byte_array_new();
	gsize rest = 0;

	for (guint i = 0; i < 100; i++)
		g_string_append(text, chunk);
	g_string_append(text, "0\r\n\r\n");
	g_assert_cmpint(decode(text->str, text->len, 64 * 1024, 4096, body, &rest), ==,
			GNT_HTTP_CHUNKED_TOO_LARGE);
	g_assert_cmpuint(body->len, <, 70);
	/* under a limit that takes them all, the same body decodes */
	g_byte_array_set_size(body, 0);
	g_assert_cmpint(decode(text->str, text->len, 200 * 1024, 4096, body, &rest), ==,
			GNT_HTTP_CHUNKED_DONE);
	g_assert_cmpuint(body->len, ==, 100);
}

/* A chunk announced larger than the limit is refused before its data. */
static void
test_size_over_limit(void)
{
	static const gchar text[] = "ffffffffffffffffffffffff\r\n";
	g_autoptr(GByteArray) body = g_byte_array_new();
	gsize rest = 0;

	g_assert_cmpint(decode(text, sizeof(text) - 1, 1024, 64, body, &rest), ==,
			GNT_HTTP_CHUNKED_TOO_LARGE);
	g_assert_cmpint(decode("401\r\n", 5, 1024, 64, body, &rest), ==,
			GNT_HTTP_CHUNKED_TOO_LARGE);
	/* trailers count too */
	g_assert_cmpint(decode("0\r\nX: yyyyyyyyyyyyyyyyyyyy\r\n\r\n", 29, 16, 64, body, &rest), ==,
			GNT_HTTP_CHUNKED_TOO_LARGE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/http/chunked/decoded", test_decoded);
	g_test_add_func("/http/chunked/malformed", test_malformed);
	g_test_add_func("/http/chunked/long-line", test_long_line);
	g_test_add_func("/http/chunked/extensions-count", test_extensions_count);
	g_test_add_func("/http/chunked/size-over-limit", test_size_over_limit);
	return g_test_run();
}
