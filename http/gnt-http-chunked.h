#pragma once /* http/gnt-http-chunked.h: decoding a chunked request body */

#include <glib.h>

G_BEGIN_DECLS

/*
 * The chunked transfer coding (RFC 9112, 7.1), decoded as the bytes come:
 * chunk-size lines (hex, extensions allowed and ignored), data, CRLF, the
 * last chunk, trailer lines (ignored), the empty line. Every byte taken
 * counts against the limit, sizes, extensions, line ends and trailers as
 * much as data: a client that sends one data byte per kilobyte of
 * extensions reaches the limit as soon as one that sends only data.
 */

typedef enum {
	GNT_HTTP_CHUNKED_MORE,	    /* all input taken, the body goes on */
	GNT_HTTP_CHUNKED_DONE,	    /* the body ended: the rest is not its */
	GNT_HTTP_CHUNKED_MALFORMED, /* 400 */
	GNT_HTTP_CHUNKED_TOO_LARGE, /* 413: over the limit */
} GntHttpChunkedResult;

typedef struct {
	/* < private > */
	gint state;
	guint64 chunk_left;
	gsize taken; /* bytes of the coding taken so far */
	gsize max;
} GntHttpChunked;

/* Starts a body of at most @max bytes on the wire. */
void
gnt_http_chunked_init(GntHttpChunked *self, gsize max);
/*
 * Decodes what it can of @len bytes at @data, appending the body's data to
 * @body, and says in *@consumed how many bytes it took. A line not yet
 * complete is left (MORE with *@consumed < @len): call again with it and
 * what follows. Lines are at most 1 KiB (chunk sizes) or 8 KiB (trailers).
 */
GntHttpChunkedResult
gnt_http_chunked_decode(GntHttpChunked *self, const guint8 *data, gsize len, GByteArray *body,
			gsize *consumed);
/* Bytes of the coding taken so far (every one counted against the limit). */
gsize
gnt_http_chunked_get_taken(const GntHttpChunked *self);

G_END_DECLS
