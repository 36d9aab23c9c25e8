#pragma once /* install/gnt-kickstart-lines.h: a kickstart file, line by line */

#include <glib.h>

G_BEGIN_DECLS

/*
 * Reads kickstart text (a template or a rendered file) the way Anaconda
 * splits it: commands outside sections, sections from a `%name` header to
 * `%end`, whose bodies are scripts or package lists. Gantry's additions and
 * its validator walk a file with this reader. It refuses what makes the
 * structure unclear, each with the line (GNT_ERROR_INVALID "line N: ..."):
 * a section without `%end` (at the end of the file or before the next
 * header), `%end` outside a section, an unknown `%name`, and `%include` or
 * `%ksappend` (the file served must be the file checked).
 */

typedef enum {
	GNT_KICKSTART_SECTION_PRE,
	GNT_KICKSTART_SECTION_PRE_INSTALL,
	GNT_KICKSTART_SECTION_POST,
	GNT_KICKSTART_SECTION_ONERROR,
	GNT_KICKSTART_SECTION_TRACEBACK,
	GNT_KICKSTART_SECTION_PACKAGES,
	GNT_KICKSTART_SECTION_ADDON,
	GNT_KICKSTART_SECTION_ANACONDA,
	GNT_KICKSTART_SECTION_NONE, /* outside any section */
} GntKickstartSection;

typedef enum {
	GNT_KICKSTART_LINE_BLANK,   /* empty or a comment, outside sections */
	GNT_KICKSTART_LINE_COMMAND, /* a command, outside sections */
	GNT_KICKSTART_LINE_HEADER,  /* "%post --nochroot" */
	GNT_KICKSTART_LINE_BODY,    /* inside a section */
	GNT_KICKSTART_LINE_END,	    /* "%end" */
} GntKickstartLineKind;

/* The most words a command line may have. */
#define GNT_KICKSTART_MAX_WORDS 256

typedef struct {
	/* the input */
	const gchar *text;
	gsize len;
	/* the current line, without its newline (nor a '\r' before it) */
	gsize pos; /* where the next line starts */
	gsize line_start;
	const gchar *line;
	gsize line_len;
	guint line_no; /* from 1 */
	GntKickstartLineKind kind;
	/* the section the line is in or opens (NONE outside), its header's
	 * line, and whether that header said --nochroot */
	GntKickstartSection section;
	guint section_line;
	gboolean nochroot;
	/* after gnt_kickstart_reader_split(): the words, shell-quoted as
	 * Anaconda splits them, a '#' word and the rest a comment */
	guint n_words;
	const gchar *words[GNT_KICKSTART_MAX_WORDS];
	GString *scratch;
} GntKickstartReader;

void
gnt_kickstart_reader_init(GntKickstartReader *self, const gchar *text, gsize len);
void
gnt_kickstart_reader_clear(GntKickstartReader *self);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntKickstartReader, gnt_kickstart_reader_clear)

/* Moves to the next line: FALSE at the end (with @error set when a
 * section is left open) or on a structural error. */
gboolean
gnt_kickstart_reader_next(GntKickstartReader *self, GError **error);

/* Splits the current line into words (for commands and headers);
 * unbalanced quotes or too many words fail naming the line. */
gboolean
gnt_kickstart_reader_split(GntKickstartReader *self, GError **error);

/* The current command line's first word (unquoted: command names need no
 * quotes), without splitting the rest: its length and *@command. */
gsize
gnt_kickstart_reader_get_command(const GntKickstartReader *self, const gchar **command);

/* "%post", ... */
const gchar *
gnt_kickstart_section_get_name(GntKickstartSection section);

/* Whether the section's body is a script (pre, pre-install, post, onerror,
 * traceback). */
gboolean
gnt_kickstart_section_is_script(GntKickstartSection section);

/* Option @name ("--ondisk") among @words: its value (from "--ondisk=x" or
 * "--ondisk x"), "" for a flag given without one, NULL when absent.
 * (transfer none: points into @words or is "") */
const gchar *
gnt_kickstart_words_get_option(const gchar *const *words, guint n_words, const gchar *name);

G_END_DECLS
