/* libFuzzer target: the chunked body decoder (http/gnt-http-chunked.h).
 * The input is fed in pieces whose sizes come from its first byte, as the
 * server feeds what each read brings, keeping what the decoder left; the
 * bytes taken never pass the limit, the decoded body is never larger than
 * them, and a body that ends leaves the rest of the input untouched. */
#include <string.h>

#include "gnt-http-chunked.h"

#define LIMIT 4096

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(GByteArray) body = g_byte_array_new();
	g_autoptr(GByteArray) pending = g_byte_array_new();
	GntHttpChunked chunked;
	GntHttpChunkedResult result = GNT_HTTP_CHUNKED_MORE;
	gsize step;
	gsize fed = 0;
	gsize taken = 0;

	if (size < 1)
		return 0;
	step = (gsize)(data[0] % 64) + 1;
	data++;
	size--;
	gnt_http_chunked_init(&chunked, LIMIT);
	while (result == GNT_HTTP_CHUNKED_MORE && fed < size) {
		gsize n = MIN(step, size - fed);
		gsize consumed = 0;

		g_byte_array_append(pending, data + fed, (guint)n);
		fed += n;
		result = gnt_http_chunked_decode(&chunked, pending->data, pending->len, body,
						 &consumed);
		if (consumed > pending->len)
			__builtin_trap();
		if (result == GNT_HTTP_CHUNKED_DONE && consumed == 0 && pending->len > 0 &&
		    taken == 0)
			__builtin_trap(); /* an end needs at least "0\n\n" */
		taken += consumed;
		g_byte_array_remove_range(pending, 0, (guint)consumed);
	}
	if (taken != gnt_http_chunked_get_taken(&chunked) || taken > LIMIT || body->len > taken)
		__builtin_trap();
	return 0;
}
