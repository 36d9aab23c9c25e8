/*
 * http/gnt-http-head.c: strict parsing of a request head
 * (gnt-http-head.h).
 */
#include "gnt-http-head.h"

#include <string.h>

#include "gnt-error.h"

/* RFC 9110 5.6.2: token characters */
static gboolean
is_tchar(guint8 c)
{
	return g_ascii_isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* A field value's bytes: visible ASCII, space, tab, obs-text. */
static gboolean
is_field_char(guint8 c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* The next line at @pos: its length without the ending (CRLF or LF) in
 * *@line_len, returns where the following line starts; 0 when a CR is not
 * followed by LF or the data has no ending. */
static gsize
next_line(const guint8 *data, gsize len, gsize pos, gsize *line_len)
{
	const guint8 *nl = memchr(data + pos, '\n', len - pos);
	gsize end;

	if (nl == NULL)
		return 0;
	end = (gsize)(nl - data);
	*line_len = end - pos;
	if (*line_len > 0 && data[end - 1] == '\r')
		(*line_len)--;
	if (memchr(data + pos, '\r', *line_len) != NULL)
		return 0; /* a bare CR inside the line */
	return end + 1;
}

static guint
refuse(GntHttpHead *head, GError **error, guint status, const gchar *format, ...)
	G_GNUC_PRINTF(4, 5);

static guint
refuse(GntHttpHead *head, GError **error, guint status, const gchar *format, ...)
{
	va_list args;

	va_start(args, format);
	g_propagate_error(error, g_error_new_valist(GNT_ERROR, GNT_ERROR_INVALID, format, args));
	va_end(args);
	gnt_http_head_clear(head);
	return status;
}

static gboolean
parse_request_line(const guint8 *line, gsize len, GntHttpHead *head, guint *status,
		   const gchar **why)
{
	const guint8 *sp1 = memchr(line, ' ', len);
	const guint8 *sp2;
	const guint8 *version;
	gsize version_len;

	*status = 400;
	if (sp1 == NULL || sp1 == line) {
		*why = "Malformed request line";
		return FALSE;
	}
	for (const guint8 *p = line; p < sp1; p++) {
		if (!is_tchar(*p)) {
			*why = "Malformed request method";
			return FALSE;
		}
	}
	sp2 = memchr(sp1 + 1, ' ', len - (gsize)(sp1 + 1 - line));
	if (sp2 == NULL || sp2 == sp1 + 1) {
		*why = "Malformed request line";
		return FALSE;
	}
	for (const guint8 *p = sp1 + 1; p < sp2; p++) {
		if (*p <= 0x20 || *p >= 0x7f) {
			*why = "Malformed request target";
			return FALSE;
		}
	}
	version = sp2 + 1;
	version_len = len - (gsize)(version - line);
	if (version_len == 8 && memcmp(version, "HTTP/1.1", 8) == 0) {
		head->version = SOUP_HTTP_1_1;
	} else if (version_len == 8 && memcmp(version, "HTTP/1.0", 8) == 0) {
		head->version = SOUP_HTTP_1_0;
	} else if (version_len == 8 && memcmp(version, "HTTP/", 5) == 0 &&
		   g_ascii_isdigit(version[5]) && version[6] == '.' &&
		   g_ascii_isdigit(version[7])) {
		*status = 505;
		*why = "HTTP version not supported";
		return FALSE;
	} else {
		*why = "Malformed HTTP version";
		return FALSE;
	}
	head->method = g_strndup((const gchar *)line, (gsize)(sp1 - line));
	head->target = g_strndup((const gchar *)sp1 + 1, (gsize)(sp2 - sp1 - 1));
	return TRUE;
}

/* One "name: value" line into the headers; NULL or why not. */
static const gchar *
parse_header_line(const guint8 *line, gsize len, SoupMessageHeaders *headers)
{
	const guint8 *colon;
	gsize start;
	gsize end;
	g_autofree gchar *name = NULL;
	g_autofree gchar *value = NULL;

	if (line[0] == ' ' || line[0] == '\t')
		return "Folded header line";
	colon = memchr(line, ':', len);
	if (colon == NULL)
		return "Header line without a colon";
	if (colon == line)
		return "Empty header name";
	for (const guint8 *p = line; p < colon; p++) {
		if (!is_tchar(*p))
			return *p == ' ' || *p == '\t' ? "Whitespace before a header's colon"
						       : "Malformed header name";
	}
	start = (gsize)(colon + 1 - line);
	end = len;
	for (gsize i = start; i < end; i++) {
		if (!is_field_char(line[i]))
			return "Control character in a header value";
	}
	while (start < end && (line[start] == ' ' || line[start] == '\t'))
		start++;
	while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	name = g_strndup((const gchar *)line, (gsize)(colon - line));
	value = g_strndup((const gchar *)line + start, end - start);
	soup_message_headers_append(headers, name, value);
	return NULL;
}

static gboolean
parse_content_length(const gchar *text, guint64 *length)
{
	if (text == NULL || text[0] == '\0')
		return FALSE;
	for (const gchar *p = text; *p != '\0'; p++) {
		if (!g_ascii_isdigit(*p))
			return FALSE;
	}
	return g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, length, NULL);
}

/* Whether @path holds "%2F" (any case). */
static gboolean
has_encoded_slash(const gchar *path, gsize len)
{
	for (gsize i = 0; i + 2 < len; i++) {
		if (path[i] == '%' && path[i + 1] == '2' &&
		    (path[i + 2] == 'f' || path[i + 2] == 'F'))
			return TRUE;
	}
	return FALSE;
}

/* The target in origin form; NULL when it is not one an HTTP server takes. */
static gchar *
origin_form(const gchar *target)
{
	g_autoptr(GUri) uri = NULL;

	if (target[0] == '/')
		return g_strdup(target);
	uri = g_uri_parse(target, G_URI_FLAGS_ENCODED, NULL);
	if (uri == NULL || g_uri_get_path(uri)[0] != '/')
		return NULL;
	return g_uri_get_query(uri) != NULL
		       ? g_strconcat(g_uri_get_path(uri), "?", g_uri_get_query(uri), NULL)
		       : g_strdup(g_uri_get_path(uri));
}

/* The body's framing from the headers; 0 or the status to refuse with. */
static guint
parse_framing(GntHttpHead *head, gchar **why)
{
	const gchar *te = soup_message_headers_get_list(head->headers, "Transfer-Encoding");
	const gchar *cl = soup_message_headers_get_list(head->headers, "Content-Length");

	if (te != NULL && cl != NULL) {
		*why = g_strdup("Both Content-Length and Transfer-Encoding");
		return 400;
	}
	if (te != NULL) {
		if (g_ascii_strcasecmp(te, "chunked") != 0) {
			*why = g_strdup_printf("Transfer-Encoding '%s' is not supported", te);
			return 501;
		}
		head->framing = GNT_HTTP_BODY_CHUNKED;
	} else if (cl != NULL) {
		/* digits only, once (libsoup would take "-5" or "1, 2") */
		if (!parse_content_length(cl, &head->content_length)) {
			*why = g_strdup("Invalid Content-Length");
			return 400;
		}
		head->framing = GNT_HTTP_BODY_LENGTH;
	}
	return 0;
}

guint
gnt_http_head_parse(const guint8 *data, gsize len, GntHttpHead *head, GError **error)
{
	gsize pos;
	gsize line_len = 0;
	guint status = 0;
	const gchar *why = NULL;
	g_autofree gchar *dynamic_why = NULL;
	g_autofree gchar *origin = NULL;
	const gchar *question;

	g_return_val_if_fail(data != NULL && head != NULL, 500);
	memset(head, 0, sizeof(*head));
	head->headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_REQUEST);
	pos = next_line(data, len, 0, &line_len);
	if (pos == 0)
		return refuse(head, error, 400, "%s", "Malformed request line");
	if (!parse_request_line(data, line_len, head, &status, &why))
		return refuse(head, error, status, "%s", why);
	for (;;) {
		gsize start = pos;

		pos = next_line(data, len, start, &line_len);
		if (pos == 0)
			return refuse(head, error, 400, "%s", "Malformed header line");
		if (line_len == 0)
			break;
		why = parse_header_line(data + start, line_len, head->headers);
		if (why != NULL)
			return refuse(head, error, 400, "%s", why);
	}
	if (pos != len)
		return refuse(head, error, 400, "%s", "Data after the end of the head");
	if (head->version == SOUP_HTTP_1_1 &&
	    soup_message_headers_get_one(head->headers, "Host") == NULL)
		return refuse(head, error, 400, "%s", "Missing Host header");
	origin = origin_form(head->target);
	if (origin == NULL)
		return refuse(head, error, 400, "%s", "Invalid request target");
	g_free(head->target);
	head->target = g_steal_pointer(&origin);
	question = strchr(head->target, '?');
	if (has_encoded_slash(head->target, question != NULL ? (gsize)(question - head->target)
							     : strlen(head->target)))
		return refuse(head, error, 400, "%s", "Encoded '/' in the path");
	status = parse_framing(head, &dynamic_why);
	if (status != 0)
		return refuse(head, error, status, "%s", dynamic_why);
	return 0;
}

void
gnt_http_head_clear(GntHttpHead *head)
{
	g_clear_pointer(&head->method, g_free);
	g_clear_pointer(&head->target, g_free);
	g_clear_pointer(&head->headers, soup_message_headers_unref);
	memset(head, 0, sizeof(*head));
}
