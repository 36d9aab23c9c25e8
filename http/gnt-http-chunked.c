/*
 * http/gnt-http-chunked.c: the chunked transfer coding, decoded
 * incrementally with every byte counted (gnt-http-chunked.h).
 */
#include "gnt-http-chunked.h"

#include <string.h>

#define MAX_SIZE_LINE	 1024
#define MAX_TRAILER_LINE (8 * 1024)

enum {
	STATE_SIZE,	/* a chunk-size line */
	STATE_DATA,	/* chunk_left bytes of data */
	STATE_DATA_END, /* the CRLF after them */
	STATE_TRAILERS, /* trailer lines until an empty one */
	STATE_DONE,
};

void
gnt_http_chunked_init(GntHttpChunked *self, gsize max)
{
	memset(self, 0, sizeof(*self));
	self->state = STATE_SIZE;
	self->max = max;
}

gsize
gnt_http_chunked_get_taken(const GntHttpChunked *self)
{
	return self->taken;
}

/* Takes @n bytes; FALSE when that goes over the limit. */
static gboolean
take(GntHttpChunked *self, gsize n, gsize *pos)
{
	if (n > self->max - self->taken)
		return FALSE;
	self->taken += n;
	*pos += n;
	return TRUE;
}

/* A chunk-size line of @len bytes (without its LF, maybe with its CR):
 * hex digits, then nothing, ';' and extensions, or the CR. */
static gboolean
parse_size_line(const guint8 *line, gsize len, guint64 max, guint64 *size)
{
	gsize i = 0;

	*size = 0;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	for (; i < len && g_ascii_isxdigit(line[i]); i++) {
		if (*size <= max) /* beyond, it is over the limit anyway: no overflow */
			*size = *size * 16 + (guint64)g_ascii_xdigit_value(line[i]);
	}
	if (i == 0)
		return FALSE;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++; /* BWS before extensions */
	if (i < len && line[i] != ';')
		return FALSE;
	for (; i < len; i++) {
		if (line[i] == '\r' || line[i] == '\0')
			return FALSE;
	}
	return TRUE;
}

GntHttpChunkedResult
gnt_http_chunked_decode(GntHttpChunked *self, const guint8 *data, gsize len, GByteArray *body,
			gsize *consumed)
{
	gsize pos = 0;
	GntHttpChunkedResult result = GNT_HTTP_CHUNKED_MORE;

	while (result == GNT_HTTP_CHUNKED_MORE) {
		const guint8 *p = data + pos;
		gsize avail = len - pos;
		const guint8 *nl;
		gsize line_len;

		if (self->state == STATE_DONE) {
			result = GNT_HTTP_CHUNKED_DONE;
		} else if (self->state == STATE_DATA) {
			gsize n = (gsize)MIN((guint64)avail, self->chunk_left);

			if (n == 0)
				break;
			if (!take(self, n, &pos)) {
				result = GNT_HTTP_CHUNKED_TOO_LARGE;
				break;
			}
			g_byte_array_append(body, p, (guint)n);
			self->chunk_left -= n;
			if (self->chunk_left == 0)
				self->state = STATE_DATA_END;
		} else if (self->state == STATE_DATA_END) {
			gsize n = avail >= 1 && p[0] == '\n' ? 1 : 2;

			if (avail < n)
				break;
			if (n == 2 && (p[0] != '\r' || p[1] != '\n')) {
				result = GNT_HTTP_CHUNKED_MALFORMED;
			} else if (!take(self, n, &pos)) {
				result = GNT_HTTP_CHUNKED_TOO_LARGE;
			} else {
				self->state = STATE_SIZE;
			}
		} else {
			gsize max_line = self->state == STATE_SIZE ? MAX_SIZE_LINE
								   : MAX_TRAILER_LINE;

			nl = memchr(p, '\n', MIN(avail, max_line + 1));
			if (nl == NULL) {
				/* a line not complete yet: over the limit already? */
				if (avail > max_line)
					result = GNT_HTTP_CHUNKED_MALFORMED;
				else if (avail > self->max - self->taken)
					result = GNT_HTTP_CHUNKED_TOO_LARGE;
				break;
			}
			line_len = (gsize)(nl - p);
			if (self->state == STATE_SIZE) {
				guint64 size;

				if (!parse_size_line(p, line_len, self->max, &size)) {
					result = GNT_HTTP_CHUNKED_MALFORMED;
				} else if (!take(self, line_len + 1, &pos) ||
					   size > self->max - self->taken) {
					result = GNT_HTTP_CHUNKED_TOO_LARGE;
				} else {
					self->chunk_left = size;
					self->state = size == 0 ? STATE_TRAILERS : STATE_DATA;
				}
			} else if (!take(self, line_len + 1, &pos)) {
				result = GNT_HTTP_CHUNKED_TOO_LARGE;
			} else if (line_len == 0 || (line_len == 1 && p[0] == '\r')) {
				self->state = STATE_DONE;
			} else if (memchr(p, '\r', line_len - (p[line_len - 1] == '\r')) != NULL) {
				result = GNT_HTTP_CHUNKED_MALFORMED;
			}
		}
	}
	*consumed = pos;
	return result;
}
