#pragma once /* http/gnt-http-head.h: a request head, parsed strictly */

#include <glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * The request line and header lines of an HTTP/1.x request (RFC 9112),
 * parsed strictly, because a proxy or a client library that reads a
 * request otherwise than we do can smuggle one past us: a request line of
 * exactly three parts separated by single spaces, header names of token
 * characters followed at once by the colon, no line without a colon, no
 * folded (obs-fold) lines, no control characters in values, lines ended by
 * CRLF or a bare LF. How the body is framed comes from the headers: never
 * both Content-Length and Transfer-Encoding, a Content-Length of digits
 * only and given once, "chunked" as the only transfer coding. The path may
 * not hold an encoded '/' (%2F), which a router that decodes before
 * splitting would read as a separator.
 */

typedef enum {
	GNT_HTTP_BODY_NONE,
	GNT_HTTP_BODY_LENGTH,  /* content_length bytes */
	GNT_HTTP_BODY_CHUNKED, /* gnt-http-chunked.h */
} GntHttpBodyFraming;

typedef struct {
	gchar *method;
	gchar *target; /* origin form (path and query, still encoded); an
			* absolute-form target is reduced to it */
	SoupHTTPVersion version;
	SoupMessageHeaders *headers;
	GntHttpBodyFraming framing;
	guint64 content_length;
} GntHttpHead;

/*
 * Parses @len bytes at @data: the whole head, up to and with its empty
 * line. Returns 0 and fills @head, or the status to refuse the request
 * with (400, 501 for a transfer coding other than chunked, 505 for an HTTP
 * version other than 1.0 and 1.1) with @error saying why (GNT_ERROR_INVALID)
 * and @head cleared.
 */
guint
gnt_http_head_parse(const guint8 *data, gsize len, GntHttpHead *head, GError **error);
/* Frees what @head holds and zeroes it. */
void
gnt_http_head_clear(GntHttpHead *head);

G_END_DECLS
