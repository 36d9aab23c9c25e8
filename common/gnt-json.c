#include "gnt-json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json-private.h"
#include "gnt-secret.h"

gboolean
gnt_json_check_nesting(const gchar *data, gsize len, guint max_depth, GError **error)
{
	gboolean in_string = FALSE;
	gboolean escaped = FALSE;
	guint depth = 0;

	for (gsize i = 0; i < len; i++) {
		gchar c = data[i];

		if (in_string) {
			if (escaped)
				escaped = FALSE;
			else if (c == '\\')
				escaped = TRUE;
			else if (c == '"')
				in_string = FALSE;
			continue;
		}
		if (c == '"') {
			in_string = TRUE;
		} else if (c == '[' || c == '{') {
			if (++depth > max_depth) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "JSON nests deeper than %u levels", max_depth);
				return FALSE;
			}
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return TRUE;
}

/* Whether a string of @data holds the escape "\u0000". json-glib's strings
 * are C strings: it would end the string there and drop the rest
 * ("nul1\u0000junk" read as "nul1"), so such text is refused instead. */
static gboolean
has_escaped_nul(const gchar *data, gsize len)
{
	gboolean in_string = FALSE;

	for (gsize i = 0; i < len; i++) {
		if (!in_string) {
			in_string = data[i] == '"';
		} else if (data[i] == '"') {
			in_string = FALSE;
		} else if (data[i] == '\\' && i + 1 < len) {
			if (len - i >= 6 && memcmp(data + i + 1, "u0000", 5) == 0)
				return TRUE;
			i++; /* the escaped character, which may be '"' or '\\' */
		}
	}
	return FALSE;
}

/* Whether an integer literal of @data does not fit 64 bits: json-glib
 * wraps it without a word (2^64 + 50 reads as 50), so such text is refused
 * instead. Only long digit runs outside strings are looked at. */
static gboolean
has_wrapping_integer(const gchar *data, gsize len)
{
	gboolean in_string = FALSE;

	for (gsize i = 0; i < len; i++) {
		gsize start = i;
		gsize digits;

		if (in_string) {
			if (data[i] == '"')
				in_string = FALSE;
			else if (data[i] == '\\')
				i++; /* the escaped character, which may be '"' */
			continue;
		}
		if (data[i] == '"') {
			in_string = TRUE;
			continue;
		}
		if (data[i] != '-' && !g_ascii_isdigit(data[i]))
			continue;
		if (data[i] == '-')
			i++;
		for (digits = 0; i < len && g_ascii_isdigit(data[i]); i++)
			digits++;
		/* a fraction or an exponent makes a double, never wrapped */
		if (i < len && (data[i] == '.' || data[i] == 'e' || data[i] == 'E')) {
			while (i + 1 < len && (g_ascii_isdigit(data[i + 1]) || data[i + 1] == '.' ||
					       data[i + 1] == 'e' || data[i + 1] == 'E' ||
					       data[i + 1] == '+' || data[i + 1] == '-'))
				i++;
			continue;
		}
		if (digits >= 19) {
			g_autofree gchar *token = g_strndup(data + start, i - start);

			if (!g_ascii_string_to_signed(token, 10, G_MININT64, G_MAXINT64, NULL,
						      NULL))
				return TRUE;
		}
		i--; /* the loop's i++ goes to the character after the number */
	}
	return FALSE;
}

/* json-glib's parser: the reference for anything the fast reader below
 * leaves to it (malformed input and json-glib's own leniencies). */
JsonNode *
gnt_json_parse_json_glib(const gchar *data, gssize len, GError **error)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error_local = NULL;
	JsonNode *root;

	if (len < 0)
		len = strlen(data);
	/* json-glib recurses per level: deep input would overflow the stack */
	if (!gnt_json_check_nesting(data, (gsize)len, GNT_JSON_MAX_NESTING, error))
		return NULL;
	if (has_escaped_nul(data, (gsize)len)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid JSON: a string holds a NUL character (\\u0000)");
		return NULL;
	}
	if (!g_utf8_validate(data, len, NULL)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "JSON text is not valid UTF-8");
		return NULL;
	}
	if (has_wrapping_integer(data, (gsize)len)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid JSON: an integer does not fit 64 bits");
		return NULL;
	}
	if (!json_parser_load_from_data(parser, data, len, &error_local)) {
		guint line = 0, column = 0;
		/* json-glib quotes the offending token, which may be a secret:
		 * say only where the syntax broke */
		if (sscanf(error_local->message, "%*[^:]:%u:%u", &line, &column) == 2)
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid JSON at line %u, column %u", line, column);
		else
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid JSON");
		return NULL;
	}
	root = json_parser_get_root(parser);
	if (root == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid JSON: empty document");
		return NULL;
	}
	return json_node_ref(root);
}

/*
 * Equal values read once, for gnt_json_parse_readonly(): short scalars and
 * flat arrays of them (a Query answer's [status, value] cells) by their
 * text in the input. A value is shared from its second sighting on (a bit
 * per hash remembers the first), so that the many values seen once (names)
 * do not fill the table. Open addressing; full, it only answers.
 */
#define SHARED_SLOTS	 1024
#define SHARED_MAX	 512 /* entries, so that probes stay short */
#define SHARED_SEEN_BITS 65536
#define SHARED_TOKEN_MAX 32 /* bytes of text; longer values are rarely repeated */

typedef struct {
	const gchar *token;
	gsize len;
	JsonNode *node;
} SharedValue;

typedef struct {
	SharedValue *slots; /* SHARED_SLOTS */
	guint count;
	guint8 seen[SHARED_SEEN_BITS / 8];
} SharedValues;

/*
 * The fast reader: strict RFC 8259 JSON straight into json-glib nodes, built
 * with the calls json-glib's parser makes (members set in order, a later
 * duplicate key replacing an earlier one, parents set), so that the tree is
 * the one json-glib would build. It accepts only what it is sure json-glib
 * reads the same way and gives up (NULL) on anything else: malformed JSON,
 * and the corners where json-glib differs (integers of more than 18 digits,
 * which it wraps; numbers out of double range; "\u0000", which ends its
 * strings; lone surrogates; raw DEL bytes, which it drops). json-glib's
 * GScanner-based parser is several times slower on large answers.
 */
typedef struct {
	const gchar *p;
	const gchar *end;
	guint depth;
	GPtrArray *stack;     /* elements of the arrays being read */
	GString *text;	      /* the string being decoded */
	SharedValues *shared; /* NULL: every node its own */
} Reader;

static JsonNode *
read_value(Reader *r);

static void
skip_space(Reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

/* Four hex digits after "\u"; -1 if they are not. */
static gint
read_hex4(Reader *r)
{
	gint value = 0;

	if (r->end - r->p < 4)
		return -1;
	for (guint i = 0; i < 4; i++) {
		gint digit = g_ascii_xdigit_value(r->p[i]);

		if (digit < 0)
			return -1;
		value = value * 16 + digit;
	}
	r->p += 4;
	return value;
}

/* Makes room for @extra more bytes in r->text. Requests hold secrets in
 * clear: growing, it wipes what it leaves (read_document() wipes the rest). */
static void
text_reserve(Reader *r, gsize extra)
{
	GString *bigger;

	if (r->text->len + extra < r->text->allocated_len)
		return;
	bigger = g_string_sized_new(MAX(r->text->allocated_len * 2, r->text->len + extra + 1));
	g_string_append_len(bigger, r->text->str, (gssize)r->text->len);
	gnt_secret_wipe(r->text->str, r->text->allocated_len);
	g_string_free(r->text, TRUE);
	r->text = bigger;
}

/* The string at r->p (its opening quote) decoded into r->text. */
static gboolean
read_string(Reader *r)
{
	g_string_truncate(r->text, 0);
	r->p++;
	for (;;) {
		const gchar *run = r->p;

		while (r->p < r->end && (guchar)*r->p >= 0x20 && *r->p != '"' && *r->p != '\\' &&
		       *r->p != 0x7f)
			r->p++;
		text_reserve(r, (gsize)(r->p - run) + 4); /* and an escape's UTF-8 */
		g_string_append_len(r->text, run, r->p - run);
		if (r->p >= r->end)
			return FALSE;
		if (*r->p == '"') {
			r->p++;
			return TRUE;
		}
		if (*r->p != '\\' || r->end - r->p < 2)
			return FALSE; /* a control byte or DEL */
		r->p += 2;
		switch (r->p[-1]) {
		case '"':
		case '\\':
		case '/':
			g_string_append_c(r->text, r->p[-1]);
			break;
		case 'b':
			g_string_append_c(r->text, '\b');
			break;
		case 'f':
			g_string_append_c(r->text, '\f');
			break;
		case 'n':
			g_string_append_c(r->text, '\n');
			break;
		case 'r':
			g_string_append_c(r->text, '\r');
			break;
		case 't':
			g_string_append_c(r->text, '\t');
			break;
		case 'u': {
			gint unit = read_hex4(r);
			gunichar c = (gunichar)unit;

			if (unit <= 0 || (unit >= 0xdc00 && unit <= 0xdfff))
				return FALSE;
			if (unit >= 0xd800 && unit <= 0xdbff) {
				gint low;

				if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
					return FALSE;
				r->p += 2;
				low = read_hex4(r);
				if (low < 0xdc00 || low > 0xdfff)
					return FALSE;
				c = 0x10000 + (((gunichar)unit - 0xd800) << 10) +
				    ((gunichar)low - 0xdc00);
			}
			g_string_append_unichar(r->text, c);
			break;
		}
		default:
			return FALSE;
		}
	}
}

static JsonNode *
read_number(Reader *r)
{
	const gchar *start = r->p;
	const gchar *digits;
	gboolean integral = TRUE;
	gchar buf[G_ASCII_DTOSTR_BUF_SIZE + 32];
	gdouble value;

	if (*r->p == '-')
		r->p++;
	digits = r->p;
	if (r->p < r->end && *r->p == '0') {
		r->p++;
	} else {
		if (r->p >= r->end || *r->p < '1' || *r->p > '9')
			return NULL;
		while (r->p < r->end && g_ascii_isdigit(*r->p))
			r->p++;
	}
	if (r->p < r->end && *r->p == '.') {
		integral = FALSE;
		r->p++;
		if (r->p >= r->end || !g_ascii_isdigit(*r->p))
			return NULL;
		while (r->p < r->end && g_ascii_isdigit(*r->p))
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		integral = FALSE;
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (r->p >= r->end || !g_ascii_isdigit(*r->p))
			return NULL;
		while (r->p < r->end && g_ascii_isdigit(*r->p))
			r->p++;
	}
	if (integral) {
		gint64 n = 0;

		if (r->p - digits > 18)
			return NULL; /* json-glib wraps what does not fit */
		for (const gchar *d = digits; d < r->p; d++)
			n = n * 10 + (*d - '0');
		return json_node_init_int(json_node_alloc(), *start == '-' ? -n : n);
	}
	if ((gsize)(r->p - start) >= sizeof(buf))
		return NULL;
	memcpy(buf, start, (gsize)(r->p - start));
	buf[r->p - start] = '\0';
	errno = 0;
	value = g_ascii_strtod(buf, NULL);
	if (errno != 0 || !isfinite(value))
		return NULL; /* out of range: json-glib's business */
	return json_node_init_double(json_node_alloc(), value);
}

/* Reads the literal @word (true, false, null). */
static gboolean
read_word(Reader *r, const gchar *word, gsize len)
{
	if ((gsize)(r->end - r->p) < len || memcmp(r->p, word, len) != 0)
		return FALSE;
	r->p += len;
	return TRUE;
}

/* Drops the elements read since @base (a failed array). */
static void
stack_drop(Reader *r, guint base)
{
	for (guint i = base; i < r->stack->len; i++)
		json_node_unref(g_ptr_array_index(r->stack, i));
	g_ptr_array_set_size(r->stack, base);
}

static JsonNode *
read_array(Reader *r)
{
	guint base = r->stack->len;
	JsonArray *array;
	JsonNode *node;

	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
	} else {
		for (;;) {
			JsonNode *element = read_value(r);

			if (element == NULL) {
				stack_drop(r, base);
				return NULL;
			}
			g_ptr_array_add(r->stack, element);
			skip_space(r);
			if (r->p < r->end && *r->p == ']') {
				r->p++;
				break;
			}
			if (r->p >= r->end || *r->p != ',') {
				stack_drop(r, base);
				return NULL;
			}
			r->p++;
		}
	}
	array = json_array_sized_new(r->stack->len - base);
	node = json_node_init_array(json_node_alloc(), array);
	json_array_unref(array);
	for (guint i = base; i < r->stack->len; i++) {
		JsonNode *element = g_ptr_array_index(r->stack, i);

		json_node_set_parent(element, node);
		json_array_add_element(array, element); /* takes it */
	}
	g_ptr_array_set_size(r->stack, base);
	return node;
}

static JsonNode *
read_object(Reader *r)
{
	g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), NULL);
	JsonObject *object = json_object_new();

	json_node_take_object(node, object);
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		return g_steal_pointer(&node);
	}
	for (;;) {
		g_autofree gchar *key = NULL;
		JsonNode *member;

		if (r->p >= r->end || *r->p != '"' || !read_string(r))
			return NULL;
		key = g_strndup(r->text->str, r->text->len);
		skip_space(r);
		if (r->p >= r->end || *r->p != ':')
			return NULL;
		r->p++;
		member = read_value(r);
		if (member == NULL)
			return NULL;
		json_node_set_parent(member, node);
		json_object_set_member(object, key, member); /* takes it */
		skip_space(r);
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			return g_steal_pointer(&node);
		}
		if (r->p >= r->end || *r->p != ',')
			return NULL;
		r->p++;
		skip_space(r);
	}
}

/* The length of the value at r->p if it is one to share: a string without
 * escapes, a number, true, false, null, or a flat array of them, short;
 * else 0. (A wrong length is harmless: only text that parses to exactly
 * that length is ever shared.) */
static gsize
shareable_token(Reader *r)
{
	const gchar *p = r->p;
	const gchar *stop = r->end - r->p > SHARED_TOKEN_MAX ? r->p + SHARED_TOKEN_MAX : r->end;

	if (*p == '[') {
		for (p++; p < stop && *p != ']'; p++) {
			if (*p == '[' || *p == '{' || *p == '\\' || (guchar)*p < 0x20 || *p == 0x7f)
				return 0;
		}
		return p < stop ? (gsize)(p + 1 - r->p) : 0;
	}
	if (*p == '"') {
		for (p++; p < stop && *p != '"'; p++) {
			if (*p == '\\' || (guchar)*p < 0x20 || *p == 0x7f)
				return 0;
		}
		return p < stop ? (gsize)(p + 1 - r->p) : 0;
	}
	while (p < stop && (g_ascii_isalnum(*p) || *p == '-' || *p == '+' || *p == '.'))
		p++;
	return p < stop ? (gsize)(p - r->p) : 0;
}

/* A hash of the @len (at most SHARED_TOKEN_MAX) bytes at @token, eight at
 * a time. */
static guint
token_hash(const gchar *token, gsize len)
{
	guint64 hash = len;
	gsize n = 0;

	for (; n + 8 <= len; n += 8) {
		guint64 word;

		memcpy(&word, token + n, 8);
		hash = (hash ^ word) * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15);
		hash ^= hash >> 29;
	}
	if (n < len) {
		guint64 word = 0;

		memcpy(&word, token + n, len - n);
		hash = (hash ^ word) * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15);
		hash ^= hash >> 29;
	}
	return (guint)(hash ^ (hash >> 32));
}

/* The slot of @token: its node, or an empty slot to put it in. *@seen:
 * whether a token with its hash came before (and now it has). */
static SharedValue *
shared_slot(SharedValues *shared, const gchar *token, gsize len, gboolean *seen)
{
	guint hash = token_hash(token, len);
	guint bit = hash % SHARED_SEEN_BITS;
	guint i;

	*seen = (shared->seen[bit / 8] & (1u << (bit % 8))) != 0;
	shared->seen[bit / 8] |= (guint8)(1u << (bit % 8));
	for (i = hash % SHARED_SLOTS;; i = (i + 1) % SHARED_SLOTS) {
		SharedValue *slot = &shared->slots[i];

		if (slot->node == NULL ||
		    (slot->len == len && memcmp(slot->token, token, len) == 0))
			return slot;
	}
}

static JsonNode *
read_unshared_value(Reader *r);

/* A value shared before is the same node again (one more reference). */
static JsonNode *
read_value(Reader *r)
{
	const gchar *start;
	gboolean seen = FALSE;
	gsize len;
	SharedValue *slot;
	JsonNode *node;

	skip_space(r);
	if (r->shared == NULL || r->p >= r->end || *r->p == '{' || (len = shareable_token(r)) == 0)
		return read_unshared_value(r);
	slot = shared_slot(r->shared, r->p, len, &seen);
	if (slot->node != NULL) {
		r->p += len;
		return json_node_ref(slot->node);
	}
	start = r->p;
	node = read_unshared_value(r);
	if (node == NULL || r->p != start + len || !seen || r->shared->count >= SHARED_MAX)
		return node;
	slot->token = start;
	slot->len = len;
	slot->node = json_node_ref(node);
	r->shared->count++;
	return node;
}

static JsonNode *
read_unshared_value(Reader *r)
{
	JsonNode *node = NULL;

	skip_space(r);
	if (r->p >= r->end)
		return NULL;
	switch (*r->p) {
	case '{':
	case '[':
		/* as deep as gnt_json_check_nesting() allows */
		if (++r->depth > GNT_JSON_MAX_NESTING)
			return NULL;
		node = *r->p == '{' ? read_object(r) : read_array(r);
		r->depth--;
		return node;
	case '"':
		if (!read_string(r))
			return NULL;
		return json_node_init_string(json_node_alloc(), r->text->str);
	case 't':
		return read_word(r, "true", 4) ? json_node_init_boolean(json_node_alloc(), TRUE)
					       : NULL;
	case 'f':
		return read_word(r, "false", 5) ? json_node_init_boolean(json_node_alloc(), FALSE)
						: NULL;
	case 'n':
		return read_word(r, "null", 4) ? json_node_init_null(json_node_alloc()) : NULL;
	default:
		return *r->p == '-' || g_ascii_isdigit(*r->p) ? read_number(r) : NULL;
	}
}

static void
shared_values_free(SharedValues *shared)
{
	for (guint i = 0; i < SHARED_SLOTS; i++) {
		if (shared->slots[i].node != NULL)
			json_node_unref(shared->slots[i].node);
	}
	g_free(shared->slots);
	g_free(shared);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(SharedValues, shared_values_free)

/* The whole of @data as one value, or NULL to leave it to json-glib. */
static JsonNode *
read_document(const gchar *data, gsize len, gboolean share)
{
	g_autoptr(GPtrArray) stack = g_ptr_array_new();
	g_autoptr(SharedValues) shared = NULL;
	Reader r = {data, data + len, 0, stack, g_string_sized_new(256), NULL};
	g_autoptr(JsonNode) root = NULL;

	if (share) {
		shared = g_new0(SharedValues, 1);
		shared->slots = g_new0(SharedValue, SHARED_SLOTS);
		r.shared = shared;
	}
	root = read_value(&r);
	skip_space(&r);
	if (r.p != r.end)
		g_clear_pointer(&root, json_node_unref);
	/* the strings decoded last may be secrets */
	gnt_secret_wipe(r.text->str, r.text->allocated_len);
	g_string_free(r.text, TRUE);
	return g_steal_pointer(&root);
}

static JsonNode *
parse(const gchar *data, gssize len, gboolean share, GError **error)
{
	JsonNode *root;

	if (len < 0)
		len = strlen(data);
	/* g_utf8_validate() also refuses NUL bytes */
	if (g_utf8_validate(data, len, NULL) &&
	    (root = read_document(data, (gsize)len, share)) != NULL)
		return root;
	return gnt_json_parse_json_glib(data, len, error);
}

JsonNode *
gnt_json_parse(const gchar *data, gssize len, GError **error)
{
	return parse(data, len, FALSE, error);
}

JsonNode *
gnt_json_parse_readonly(const gchar *data, gssize len, GError **error)
{
	return parse(data, len, TRUE, error);
}

/* The shortest of 15 or 17 digits that reads back exactly, into @buf. */
static void
format_double(gchar buf[G_ASCII_DTOSTR_BUF_SIZE + 2], gdouble value)
{
	g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%.15g", value);
	if (g_ascii_strtod(buf, NULL) != value)
		g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%.17g", value);
	if (strpbrk(buf, ".eEn") == NULL)
		strcat(buf, ".0");
}

gchar *
gnt_json_format_double(gdouble value)
{
	gchar buf[G_ASCII_DTOSTR_BUF_SIZE + 2];

	format_double(buf, value);
	return g_strdup(buf);
}

void
gnt_json_append_string(GString *out, const gchar *str)
{
	static const gchar hex[] = "0123456789abcdef";
	const guchar *p = (const guchar *)str;

	g_string_append_c(out, '"');
	for (;;) {
		const guchar *run = p;

		/* copy what needs no escape in one go */
		while (*p >= 0x20 && *p != '"' && *p != '\\')
			p++;
		g_string_append_len(out, (const gchar *)run, (gssize)(p - run));
		switch (*p) {
		case '\0':
			g_string_append_c(out, '"');
			return;
		case '"':
			g_string_append_len(out, "\\\"", 2);
			break;
		case '\\':
			g_string_append_len(out, "\\\\", 2);
			break;
		case '\n':
			g_string_append_len(out, "\\n", 2);
			break;
		case '\t':
			g_string_append_len(out, "\\t", 2);
			break;
		case '\r':
			g_string_append_len(out, "\\r", 2);
			break;
		default: {
			gchar escape[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf]};

			g_string_append_len(out, escape, sizeof(escape));
		}
		}
		p++;
	}
}

void
gnt_json_append_int(GString *out, gint64 value)
{
	gchar buf[24];
	gchar *end = buf + sizeof(buf);
	gchar *p = end;
	/* as unsigned, so that G_MININT64 negates */
	guint64 magnitude = value < 0 ? -(guint64)value : (guint64)value;

	do {
		*--p = (gchar)('0' + magnitude % 10);
		magnitude /= 10;
	} while (magnitude > 0);
	if (value < 0)
		*--p = '-';
	g_string_append_len(out, p, end - p);
}

void
gnt_json_append(GString *out, JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node)) {
		g_string_append_len(out, "null", 4);
	} else if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *arr = json_node_get_array(node);
		guint n = json_array_get_length(arr);

		g_string_append_c(out, '[');
		for (guint i = 0; i < n; i++) {
			if (i > 0)
				g_string_append_c(out, ',');
			gnt_json_append(out, json_array_get_element(arr, i));
		}
		g_string_append_c(out, ']');
	} else if (JSON_NODE_HOLDS_OBJECT(node)) {
		JsonObjectIter iter;
		const gchar *key;
		JsonNode *member;
		gboolean first = TRUE;

		g_string_append_c(out, '{');
		json_object_iter_init_ordered(&iter, json_node_get_object(node));
		while (json_object_iter_next_ordered(&iter, &key, &member)) {
			if (!first)
				g_string_append_c(out, ',');
			first = FALSE;
			gnt_json_append_string(out, key);
			g_string_append_c(out, ':');
			gnt_json_append(out, member);
		}
		g_string_append_c(out, '}');
	} else {
		switch (json_node_get_value_type(node)) {
		case G_TYPE_STRING:
			gnt_json_append_string(out, json_node_get_string(node));
			break;
		case G_TYPE_INT64:
			gnt_json_append_int(out, json_node_get_int(node));
			break;
		case G_TYPE_BOOLEAN:
			if (json_node_get_boolean(node))
				g_string_append_len(out, "true", 4);
			else
				g_string_append_len(out, "false", 5);
			break;
		case G_TYPE_DOUBLE:
			if (!isfinite(json_node_get_double(node))) {
				g_string_append_len(out, "null", 4);
			} else {
				gchar buf[G_ASCII_DTOSTR_BUF_SIZE + 2];

				format_double(buf, json_node_get_double(node));
				g_string_append(out, buf);
			}
			break;
		default:
			g_string_append_len(out, "null", 4);
		}
	}
}

gchar *
gnt_json_to_string(JsonNode *node)
{
	GString *out = g_string_sized_new(256);

	gnt_json_append(out, node);
	return g_string_free(out, FALSE);
}

JsonObject *
gnt_json_object_deep_copy(JsonObject *obj)
{
	JsonObject *copy = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *member;

	json_object_iter_init_ordered(&iter, obj);
	while (json_object_iter_next_ordered(&iter, &key, &member))
		json_object_set_member(copy, key, gnt_json_node_deep_copy(member));
	return copy;
}

void
gnt_json_object_overlay(JsonObject *out, JsonObject *over)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (over == NULL)
		return;
	json_object_iter_init_ordered(&iter, over);
	while (json_object_iter_next_ordered(&iter, &key, &value))
		json_object_set_member(out, key, gnt_json_node_deep_copy(value));
}

JsonNode *
gnt_json_node_deep_copy(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return gnt_json_node_new_null();
	if (JSON_NODE_HOLDS_OBJECT(node))
		return gnt_json_node_new_object(
			gnt_json_object_deep_copy(json_node_get_object(node)));
	if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *src = json_node_get_array(node);
		JsonArray *array = json_array_sized_new(json_array_get_length(src));
		for (guint i = 0; i < json_array_get_length(src); i++)
			json_array_add_element(
				array, gnt_json_node_deep_copy(json_array_get_element(src, i)));
		return gnt_json_node_new_array(array);
	}
	switch (json_node_get_value_type(node)) {
	case G_TYPE_INT64:
		return gnt_json_node_new_int(json_node_get_int(node));
	case G_TYPE_DOUBLE:
		return gnt_json_node_new_double(json_node_get_double(node));
	case G_TYPE_BOOLEAN:
		return gnt_json_node_new_bool(json_node_get_boolean(node));
	case G_TYPE_STRING:
		return gnt_json_node_new_string(json_node_get_string(node));
	default:
		return gnt_json_node_new_null();
	}
}

const gchar *
gnt_json_node_type_name(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return "null";
	if (JSON_NODE_HOLDS_OBJECT(node))
		return "object";
	if (JSON_NODE_HOLDS_ARRAY(node))
		return "list";
	switch (json_node_get_value_type(node)) {
	case G_TYPE_STRING:
		return "string";
	case G_TYPE_INT64:
		return "integer";
	case G_TYPE_DOUBLE:
		return "number";
	case G_TYPE_BOOLEAN:
		return "boolean";
	default:
		return "value";
	}
}

static gboolean
node_holds_value_type(JsonNode *node, GType type)
{
	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
	       json_node_get_value_type(node) == type;
}

gboolean
gnt_json_node_is_int(JsonNode *node)
{
	return node_holds_value_type(node, G_TYPE_INT64);
}

gboolean
gnt_json_node_is_number(JsonNode *node)
{
	return node_holds_value_type(node, G_TYPE_INT64) ||
	       node_holds_value_type(node, G_TYPE_DOUBLE);
}

gboolean
gnt_json_node_get_int(JsonNode *node, const gchar *what, gint64 *out, GError **error)
{
	if (!gnt_json_node_is_int(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be an integer, not %s",
			    what, gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_int(node);
	return TRUE;
}

gboolean
gnt_json_node_get_number(JsonNode *node, const gchar *what, gdouble *out, GError **error)
{
	if (!gnt_json_node_is_number(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be a number, not %s",
			    what, gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_double(node); /* json-glib converts integers */
	return TRUE;
}

gboolean
gnt_json_node_get_string(JsonNode *node, const gchar *what, const gchar **out, GError **error)
{
	if (!node_holds_value_type(node, G_TYPE_STRING)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s must be a string, not %s",
			    what, gnt_json_node_type_name(node));
		return FALSE;
	}
	*out = json_node_get_string(node);
	return TRUE;
}

/* The typed getters below format nothing unless they fail: a query reads
 * every record's members through them. */
static JsonNode *
member_or_error(JsonObject *obj, const gchar *key, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	if (node == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is missing", key);
	return node;
}

/* FALSE with "'key' must be a string, not list" */
static gboolean
member_type_error(JsonNode *node, const gchar *key, const gchar *wanted, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be %s, not %s", key, wanted,
		    gnt_json_node_type_name(node));
	return FALSE;
}

gboolean
gnt_json_get_string(JsonObject *obj, const gchar *key, const gchar **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!node_holds_value_type(node, G_TYPE_STRING))
		return member_type_error(node, key, "a string", error);
	*out = json_node_get_string(node);
	return TRUE;
}

gboolean
gnt_json_dup_string(JsonObject *obj, const gchar *key, gchar **out, GError **error)
{
	const gchar *value = NULL;

	if (!gnt_json_get_string(obj, key, &value, error))
		return FALSE;
	*out = g_strdup(value);
	return TRUE;
}

gboolean
gnt_json_get_int(JsonObject *obj, const gchar *key, gint64 *out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!gnt_json_node_is_int(node))
		return member_type_error(node, key, "an integer", error);
	*out = json_node_get_int(node);
	return TRUE;
}

gboolean
gnt_json_get_double(JsonObject *obj, const gchar *key, gdouble *out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!gnt_json_node_is_number(node))
		return member_type_error(node, key, "a number", error);
	*out = json_node_get_double(node); /* json-glib converts integers */
	return TRUE;
}

gboolean
gnt_json_get_bool(JsonObject *obj, const gchar *key, gboolean *out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!node_holds_value_type(node, G_TYPE_BOOLEAN))
		return member_type_error(node, key, "a boolean", error);
	*out = json_node_get_boolean(node);
	return TRUE;
}

gboolean
gnt_json_get_array(JsonObject *obj, const gchar *key, JsonArray **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return member_type_error(node, key, "a list", error);
	*out = json_node_get_array(node);
	return TRUE;
}

gboolean
gnt_json_get_object(JsonObject *obj, const gchar *key, JsonObject **out, GError **error)
{
	JsonNode *node = member_or_error(obj, key, error);

	if (node == NULL)
		return FALSE;
	if (!JSON_NODE_HOLDS_OBJECT(node))
		return member_type_error(node, key, "an object", error);
	*out = json_node_get_object(node);
	return TRUE;
}

JsonObject *
gnt_json_peek_object(JsonObject *obj, const gchar *key)
{
	JsonNode *node = obj != NULL ? json_object_get_member(obj, key) : NULL;

	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

JsonArray *
gnt_json_peek_array(JsonObject *obj, const gchar *key)
{
	JsonNode *node = obj != NULL ? json_object_get_member(obj, key) : NULL;

	return node != NULL && JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

JsonNode *
gnt_json_node_new_string(const gchar *value)
{
	JsonNode *node = json_node_alloc();

	if (value == NULL)
		return json_node_init_null(node);
	return json_node_init_string(node, value);
}

JsonNode *
gnt_json_node_new_int(gint64 value)
{
	return json_node_init_int(json_node_alloc(), value);
}

JsonNode *
gnt_json_node_new_double(gdouble value)
{
	return json_node_init_double(json_node_alloc(), value);
}

JsonNode *
gnt_json_node_new_bool(gboolean value)
{
	return json_node_init_boolean(json_node_alloc(), value);
}

JsonNode *
gnt_json_node_new_null(void)
{
	return json_node_init_null(json_node_alloc());
}

JsonNode *
gnt_json_node_new_array(JsonArray *array)
{
	JsonNode *node = json_node_init_array(json_node_alloc(), array);

	json_array_unref(array);
	return node;
}

JsonNode *
gnt_json_node_new_object(JsonObject *object)
{
	JsonNode *node = json_node_init_object(json_node_alloc(), object);

	json_object_unref(object);
	return node;
}

void
gnt_json_node_wipe_strings(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return;
	if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *arr = json_node_get_array(node);

		for (guint i = 0; i < json_array_get_length(arr); i++)
			gnt_json_node_wipe_strings(json_array_get_element(arr, i));
	} else if (JSON_NODE_HOLDS_OBJECT(node)) {
		g_autoptr(GList) values = json_object_get_values(json_node_get_object(node));

		for (GList *l = values; l != NULL; l = l->next)
			gnt_json_node_wipe_strings(l->data);
	} else if (json_node_get_value_type(node) == G_TYPE_STRING) {
		gnt_secret_wipe_string((gchar *)json_node_get_string(node));
	}
}
