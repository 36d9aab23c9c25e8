/* libFuzzer target: the strict request head parser (http/gnt-http-head.h),
 * which reads whatever a client of gantry-rapi, gantry-metad or
 * gantry-noded sends before anything else. A head is either refused with a
 * status and a message, or parses into a method of token characters, an
 * origin-form target without spaces or an encoded '/' in its path, and a
 * framing that never has both a length and a coding. */
#include <string.h>

#include "gnt-http-head.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	GntHttpHead head;
	guint status = gnt_http_head_parse(data, size, &head, &error);
	const gchar *question;

	if (status != 0) {
		if (error == NULL || error->message == NULL || head.method != NULL ||
		    head.headers != NULL || (status != 400 && status != 501 && status != 505))
			__builtin_trap();
		return 0;
	}
	if (error != NULL || head.method == NULL || head.target == NULL || head.headers == NULL ||
	    head.target[0] != '/' || strpbrk(head.target, " \r\n") != NULL)
		__builtin_trap();
	question = strchr(head.target, '?');
	if (g_strstr_len(head.target, question != NULL ? question - head.target : -1, "%2f") !=
		    NULL ||
	    g_strstr_len(head.target, question != NULL ? question - head.target : -1, "%2F") !=
		    NULL)
		__builtin_trap();
	if (head.framing != GNT_HTTP_BODY_NONE &&
	    soup_message_headers_get_one(head.headers, "Content-Length") != NULL &&
	    soup_message_headers_get_one(head.headers, "Transfer-Encoding") != NULL)
		__builtin_trap();
	gnt_http_head_clear(&head);
	return 0;
}
