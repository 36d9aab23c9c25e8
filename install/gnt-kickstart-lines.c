#include "gnt-kickstart-lines.h"

#include <string.h>

#include "gnt-error.h"

static const gchar *const section_names[] = {
	[GNT_KICKSTART_SECTION_PRE] = "%pre",
	[GNT_KICKSTART_SECTION_PRE_INSTALL] = "%pre-install",
	[GNT_KICKSTART_SECTION_POST] = "%post",
	[GNT_KICKSTART_SECTION_ONERROR] = "%onerror",
	[GNT_KICKSTART_SECTION_TRACEBACK] = "%traceback",
	[GNT_KICKSTART_SECTION_PACKAGES] = "%packages",
	[GNT_KICKSTART_SECTION_ADDON] = "%addon",
	[GNT_KICKSTART_SECTION_ANACONDA] = "%anaconda",
	[GNT_KICKSTART_SECTION_NONE] = "(none)",
};
G_STATIC_ASSERT(G_N_ELEMENTS(section_names) == GNT_KICKSTART_SECTION_NONE + 1);

const gchar *
gnt_kickstart_section_get_name(GntKickstartSection section)
{
	g_return_val_if_fail(section <= GNT_KICKSTART_SECTION_NONE, NULL);
	return section_names[section];
}

gboolean
gnt_kickstart_section_is_script(GntKickstartSection section)
{
	return section <= GNT_KICKSTART_SECTION_TRACEBACK;
}

void
gnt_kickstart_reader_init(GntKickstartReader *self, const gchar *text, gsize len)
{
	memset(self, 0, sizeof(*self));
	self->text = text;
	self->len = len;
	self->section = GNT_KICKSTART_SECTION_NONE;
	self->scratch = g_string_sized_new(256);
}

void
gnt_kickstart_reader_clear(GntKickstartReader *self)
{
	if (self->scratch != NULL)
		g_string_free(self->scratch, TRUE);
	self->scratch = NULL;
}

/* The line's first word, when it starts with '%': its length. */
static gsize
percent_word(const gchar *s, gsize len)
{
	gsize n = 0;

	if (len == 0 || s[0] != '%')
		return 0;
	while (n < len && !g_ascii_isspace(s[n]))
		n++;
	return n;
}

static gboolean
word_is(const gchar *s, gsize n, const gchar *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* The section a "%name" word opens; NONE if it is none. */
static GntKickstartSection
lookup_section(const gchar *s, gsize n)
{
	for (guint i = 0; i < GNT_KICKSTART_SECTION_NONE; i++) {
		if (word_is(s, n, section_names[i]))
			return (GntKickstartSection)i;
	}
	return GNT_KICKSTART_SECTION_NONE;
}

static gboolean
has_word(const gchar *s, gsize len, const gchar *word)
{
	gsize wlen = strlen(word);

	for (gsize i = 0; i + wlen <= len; i++) {
		if (memcmp(s + i, word, wlen) == 0 && (i == 0 || g_ascii_isspace(s[i - 1])) &&
		    (i + wlen == len || g_ascii_isspace(s[i + wlen]) || s[i + wlen] == '='))
			return TRUE;
	}
	return FALSE;
}

static gboolean
set_line_error(GntKickstartReader *self, guint line, GError **error, const gchar *format, ...)
	G_GNUC_PRINTF(4, 5);

static gboolean
set_line_error(GntKickstartReader *self, guint line, GError **error, const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *msg = NULL;

	va_start(args, format);
	msg = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "line %u: %s", line, msg);
	self->pos = self->len; /* nothing more to read */
	return FALSE;
}

gboolean
gnt_kickstart_reader_next(GntKickstartReader *self, GError **error)
{
	const gchar *nl;
	const gchar *s;
	gsize len, lead = 0, n;

	if (self->kind == GNT_KICKSTART_LINE_END)
		self->section = GNT_KICKSTART_SECTION_NONE;
	if (self->pos >= self->len) {
		if (self->section != GNT_KICKSTART_SECTION_NONE &&
		    self->kind != GNT_KICKSTART_LINE_END)
			return set_line_error(self, self->section_line, error,
					      "the %s section has no %%end",
					      section_names[self->section]);
		return FALSE;
	}
	self->line_start = self->pos;
	self->line = self->text + self->pos;
	nl = memchr(self->line, '\n', self->len - self->pos);
	self->line_len = nl != NULL ? (gsize)(nl - self->line) : self->len - self->pos;
	self->pos += self->line_len + (nl != NULL ? 1 : 0);
	if (self->line_len > 0 && self->line[self->line_len - 1] == '\r')
		self->line_len--;
	self->line_no++;
	self->n_words = 0;

	s = self->line;
	len = self->line_len;
	while (lead < len && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	n = percent_word(s + lead, len - lead);
	if (n > 0 && (word_is(s + lead, n, "%include") || word_is(s + lead, n, "%ksappend")))
		return set_line_error(self, self->line_no, error,
				      "'%.*s' is refused: the file served must be the file checked",
				      (int)n, s + lead);
	if (self->section != GNT_KICKSTART_SECTION_NONE) {
		GntKickstartSection opens = n > 0 ? lookup_section(s + lead, n)
						  : GNT_KICKSTART_SECTION_NONE;

		if (n > 0 && word_is(s + lead, n, "%end")) {
			self->kind = GNT_KICKSTART_LINE_END;
			return TRUE;
		}
		if (opens != GNT_KICKSTART_SECTION_NONE)
			return set_line_error(
				self, self->section_line, error,
				"the %s section has no %%end before the %s of line %u",
				section_names[self->section], section_names[opens], self->line_no);
		self->kind = GNT_KICKSTART_LINE_BODY;
		return TRUE;
	}
	if (lead == len || s[lead] == '#') {
		self->kind = GNT_KICKSTART_LINE_BLANK;
		return TRUE;
	}
	if (n == 0) {
		self->kind = GNT_KICKSTART_LINE_COMMAND;
		return TRUE;
	}
	if (word_is(s + lead, n, "%end"))
		return set_line_error(self, self->line_no, error, "%%end outside a section");
	self->section = lookup_section(s + lead, n);
	if (self->section == GNT_KICKSTART_SECTION_NONE)
		return set_line_error(self, self->line_no, error, "unknown section '%.*s'",
				      (int)MIN(n, 64), s + lead);
	self->kind = GNT_KICKSTART_LINE_HEADER;
	self->section_line = self->line_no;
	self->nochroot = has_word(s + lead, len - lead, "--nochroot");
	return TRUE;
}

/* A character that needs no care in a word: not a space, quote,
 * backslash or '#'. */
static gboolean
is_plain(gchar c)
{
	return c > ' ' && c != '"' && c != '\'' && c != '\\' && c != '#';
}

gboolean
gnt_kickstart_reader_split(GntKickstartReader *self, GError **error)
{
	const gchar *s = self->line;
	gsize len = self->line_len;
	guint n = 0;
	gsize i = 0;
	gchar *out;

	/* the words and their NULs never need more than the line and a NUL
	 * per word */
	g_string_set_size(self->scratch, len + GNT_KICKSTART_MAX_WORDS);
	out = self->scratch->str;
	for (;;) {
		gchar quote = 0;

		while (i < len && g_ascii_isspace(s[i]))
			i++;
		if (i == len || s[i] == '#')
			break;
		if (n == GNT_KICKSTART_MAX_WORDS)
			return set_line_error(self, self->line_no, error,
					      "more than %d words on one line",
					      GNT_KICKSTART_MAX_WORDS);
		self->words[n++] = out;
		for (; i < len && (quote != 0 || !g_ascii_isspace(s[i])); i++) {
			gchar c = s[i];
			gsize run = 0;

			/* a run of plain characters is copied at once */
			while (quote == 0 && i + run < len && is_plain(s[i + run]))
				run++;
			if (run > 0) {
				memcpy(out, s + i, run);
				out += run;
				i += run - 1;
				continue;
			}

			if (quote == 0 && (c == '"' || c == '\'')) {
				quote = c;
			} else if (quote != 0 && c == quote) {
				quote = 0;
			} else if (c == '\\' && quote != '\'' && i + 1 < len) {
				*out++ = s[++i];
			} else {
				*out++ = c;
			}
		}
		if (quote != 0)
			return set_line_error(self, self->line_no, error, "unbalanced %c quote",
					      quote);
		*out++ = '\0';
	}
	self->n_words = n;
	return TRUE;
}

gsize
gnt_kickstart_reader_get_command(const GntKickstartReader *self, const gchar **command)
{
	gsize i = 0, n = 0;

	while (i < self->line_len && g_ascii_isspace(self->line[i]))
		i++;
	while (i + n < self->line_len && !g_ascii_isspace(self->line[i + n]))
		n++;
	*command = self->line + i;
	return n;
}

const gchar *
gnt_kickstart_words_get_option(const gchar *const *words, guint n_words, const gchar *name)
{
	gsize name_len = strlen(name);

	g_return_val_if_fail(name_len > 2, NULL);
	for (guint i = 1; i < n_words; i++) {
		const gchar *w = words[i];

		/* "--" and the first letter first: most words differ there */
		if (w[0] != '-' || w[1] != '-' || w[2] != name[2] ||
		    strncmp(w, name, name_len) != 0)
			continue;
		if (w[name_len] == '=')
			return w + name_len + 1;
		if (w[name_len] != '\0')
			continue;
		if (i + 1 < n_words && words[i + 1][0] != '-')
			return words[i + 1];
		return "";
	}
	return NULL;
}
