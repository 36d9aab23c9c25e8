/* tests/http/test-http-head.c: the strict request head parser */
#include <string.h>

#include "gnt-error.h"
#include "gnt-http-head.h"

typedef struct {
	const gchar *head;
	guint status; /* 0: parsed */
} HeadCase;

static guint
parse(const gchar *text, GntHttpHead *head, GError **error)
{
	return gnt_http_head_parse((const guint8 *)text, strlen(text), head, error);
}

static void
test_accepted(void)
{
	g_autoptr(GError) error = NULL;
	GntHttpHead head;

	g_assert_cmpuint(parse("PUT /2/instances?dry-run=1 HTTP/1.1\r\nHost: x\r\n"
			       "Content-Type:\tapplication/json \r\nContent-Length: 12\r\n\r\n",
			       &head, &error),
			 ==, 0);
	g_assert_no_error(error);
	g_assert_cmpstr(head.method, ==, "PUT");
	g_assert_cmpstr(head.target, ==, "/2/instances?dry-run=1");
	g_assert_cmpint(head.version, ==, SOUP_HTTP_1_1);
	g_assert_cmpstr(soup_message_headers_get_one(head.headers, "content-type"), ==,
			"application/json");
	g_assert_cmpint(head.framing, ==, GNT_HTTP_BODY_LENGTH);
	g_assert_cmpuint(head.content_length, ==, 12);
	gnt_http_head_clear(&head);

	/* bare LF line ends, HTTP/1.0 without Host, absolute form */
	g_assert_cmpuint(parse("GET http://node1:5080/version?x=1 HTTP/1.0\n\n", &head, &error), ==,
			 0);
	g_assert_cmpstr(head.target, ==, "/version?x=1");
	g_assert_cmpint(head.version, ==, SOUP_HTTP_1_0);
	g_assert_cmpint(head.framing, ==, GNT_HTTP_BODY_NONE);
	gnt_http_head_clear(&head);

	g_assert_cmpuint(parse("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n",
			       &head, &error),
			 ==, 0);
	g_assert_cmpint(head.framing, ==, GNT_HTTP_BODY_CHUNKED);
	gnt_http_head_clear(&head);

	/* an encoded '/' in the query is data, not a path */
	g_assert_cmpuint(parse("GET /a?b=%2f HTTP/1.1\r\nHost: x\r\n\r\n", &head, &error), ==, 0);
	gnt_http_head_clear(&head);
}

static void
test_refused(void)
{
	static const HeadCase cases[] = {
		/* framing a proxy may read otherwise */
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
		 400},
		{"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost\t: x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\t2\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\n Host: x\r\n\r\n", 400},
		{"GET /a%2fb HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /a%2F..%2Fb?c HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET http://x/a%2fb HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
		/* the request line */
		{"GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400},
		{"GET /\r\n\r\n", 400},
		{"G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /\x80 HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"GET / HTTPS/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\n\r\n", 400}, /* no Host */
		/* line ends and bytes */
		{"GET / HTTP/1.1\rHost: x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\ry\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\x01\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\n: x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\n", 400}, /* no empty line */
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET", 400},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		GntHttpHead head;
		guint status = parse(cases[i].head, &head, &error);

		if (status != cases[i].status)
			g_error("case %u: %u, not %u", i, status, cases[i].status);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_null(head.method);
		g_assert_null(head.headers);
	}
}

static void
test_nul(void)
{
	static const gchar text[] = "GET /a\0b HTTP/1.1\r\nHost: x\r\n\r\n";
	static const gchar value[] = "GET / HTTP/1.1\r\nHost: x\0y\r\n\r\n";
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) error2 = NULL;
	GntHttpHead head;

	g_assert_cmpuint(gnt_http_head_parse((const guint8 *)text, sizeof(text) - 1, &head, &error),
			 ==, 400);
	g_assert_cmpuint(gnt_http_head_parse((const guint8 *)value, sizeof(value) - 1, &head,
					     &error2),
			 ==, 400);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/http/head/accepted", test_accepted);
	g_test_add_func("/http/head/refused", test_refused);
	g_test_add_func("/http/head/nul", test_nul);
	return g_test_run();
}
