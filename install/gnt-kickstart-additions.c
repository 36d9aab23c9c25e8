#include "gnt-kickstart-additions.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-kickstart-lines.h"
#include "gnt-kickstart-render.h"

/* Gantry's callback: curl is in the installer's environment (not always
 * in the installed system: the end report runs --nochroot). The token is
 * URL-safe base64 and callback_url Gantry's own, so the quoting holds. */
#define CALLBACK(status, message)                                                                  \
	"curl --silent --show-error --fail --retry 5 -X POST"                                      \
	" -H 'Content-Type: application/json'"                                                     \
	" -d '{\"agent_token\": \"{{ agent_token }}\", \"agent_status\": \"" status "\","          \
	" \"agent_status_message\": \"" message "\"}' '{{ callback_url }}'\n"

#define ADDED_PRE "%pre\n" CALLBACK("start", "the installer started") "%end\n"
#define ADDED_ONERROR                                                                              \
	"%onerror\n" CALLBACK("error", "the installer failed: see the instance console") "%end\n"
#define ADDED_TRACEBACK                                                                            \
	"%traceback\n" CALLBACK("error", "the installer crashed: see the instance console") "%end\n"
#define ADDED_END "%post --nochroot\nsync\n" CALLBACK("end", "the installer is done") "%end\n"
/* The personalization package (doc/kickstart.md, "The personalization
 * package"): fetched from metad with this install's token (metad gives it
 * to no one else, and only during the install), unpacked onto the
 * installed system as the appliance's personalize step does (the node
 * sanitized it; owners are the package's numbers). Anaconda names the
 * installed system's root in ANA_INSTALL_PATH (/mnt/sysroot). Fails the
 * install when it cannot be applied. */
#define ADDED_PACKAGE                                                                              \
	"%post --nochroot --erroronfail\n"                                                         \
	"set -e\n"                                                                                 \
	"root=\"${ANA_INSTALL_PATH:-/mnt/sysroot}\"\n"                                             \
	"curl --silent --show-error --fail --retry 5 -H '" GNT_KICKSTART_TOKEN_HEADER              \
	": {{ agent_token }}' -o /tmp/gantry-package.tar.gz '" GNT_KICKSTART_PACKAGE_URL "'\n"     \
	"tar -xzf /tmp/gantry-package.tar.gz --numeric-owner -C \"$root\"\n"                       \
	"rm -f /tmp/gantry-package.tar.gz\n"                                                       \
	"echo 'gantry: the personalization package is unpacked'\n"                                 \
	"%end\n"

typedef enum {
	STATUS_NONE,
	STATUS_START,
	STATUS_END,
	STATUS_ERROR
} Status;

/* A shutdown command of the template. */
typedef struct {
	guint line;
	gsize offset, len; /* the command word */
	gchar word[16];
} Shutdown;

typedef struct {
	const GntKickstartRelease *release;
	gboolean payload;
	Shutdown shutdown;
	gboolean start, error, traceback;
	/* the end report, and what the last section's last lines were */
	guint end_line;
	GntKickstartSection end_section;
	guint end_section_line;
	gsize end_section_offset; /* where its header starts */
	gsize section_offset;	  /* the current section's */
	gboolean end_nochroot;
	gboolean end_after_sync, end_is_last;
	guint last_section_line;
	/* within the current section: the last command line ("sync"?) and
	 * whether the end report was the last one */
	gboolean prev_was_sync;
	gboolean in_end_section;
} Scan;

static Status
callback_status(const gchar *s, gsize len)
{
	static const gchar key[] = "agent_status";
	const gsize key_len = sizeof(key) - 1;

	for (gsize i = 0; i + key_len <= len; i++) {
		gsize j;

		if (memcmp(s + i, key, key_len) != 0 ||
		    (i + key_len < len &&
		     (g_ascii_isalnum(s[i + key_len]) || s[i + key_len] == '_')))
			continue;
		j = i + key_len;
		while (j < len && strchr("\"'\\ :=\t", s[j]) != NULL)
			j++;
		if (len - j >= 5 && memcmp(s + j, "start", 5) == 0)
			return STATUS_START;
		if (len - j >= 5 && memcmp(s + j, "error", 5) == 0)
			return STATUS_ERROR;
		if (len - j >= 3 && memcmp(s + j, "end", 3) == 0)
			return STATUS_END;
	}
	return STATUS_NONE;
}

/* Whether @len bytes hold metad's callback path: memchr() finds the few
 * '/' of a script line faster than a byte-by-byte search. */
static gboolean
names_callback_path(const gchar *s, gsize len)
{
	static const gchar path[] = GNT_KICKSTART_CALLBACK_PATH;
	const gsize path_len = sizeof(path) - 1;
	const gchar *p = s;

	while (len - (gsize)(p - s) >= path_len &&
	       (p = memchr(p, '/', len - (gsize)(p - s) - path_len + 1)) != NULL) {
		if (memcmp(p, path, path_len) == 0)
			return TRUE;
		p++;
	}
	return FALSE;
}

static gboolean
is_callback(const gchar *s, gsize len)
{
	return gnt_kickstart_text_uses(s, len, GNT_KICKSTART_VAR_CALLBACK_URL) ||
	       names_callback_path(s, len);
}

/* Whether a script line is only "sync" (a comment aside). */
static gboolean
is_sync(const gchar *s, gsize len)
{
	while (len > 0 && g_ascii_isspace(*s))
		s++, len--;
	while (len > 0 && g_ascii_isspace(s[len - 1]))
		len--;
	return (len == 4 && memcmp(s, "sync", 4) == 0) ||
	       (len == 13 && memcmp(s, "/usr/bin/sync", 13) == 0) ||
	       (len == 9 && memcmp(s, "/bin/sync", 9) == 0);
}

static gboolean
is_blank_or_comment(const gchar *s, gsize len)
{
	while (len > 0 && g_ascii_isspace(*s))
		s++, len--;
	return len == 0 || *s == '#';
}

/* One logical script line (from @start, @len bytes, @line its first). */
static gboolean
scan_script_line(Scan *scan, GntKickstartReader *r, const gchar *s, gsize len, guint line,
		 GError **error)
{
	Status status;

	if (is_blank_or_comment(s, len))
		return TRUE;
	if (scan->in_end_section)
		scan->end_is_last = FALSE;
	if (!is_callback(s, len)) {
		scan->prev_was_sync = is_sync(s, len);
		return TRUE;
	}
	if (!gnt_kickstart_text_uses(s, len, GNT_KICKSTART_VAR_AGENT_TOKEN)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "line %u: a callback without {{ agent_token }}: metad refuses reports "
			    "without this install's token",
			    line);
		return FALSE;
	}
	status = callback_status(s, len);
	if (status == STATUS_START)
		scan->start = TRUE;
	else if (status == STATUS_ERROR && (r->section == GNT_KICKSTART_SECTION_ONERROR ||
					    r->section == GNT_KICKSTART_SECTION_TRACEBACK))
		scan->error = TRUE;
	else if (status == STATUS_END) {
		if (scan->end_line != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "line %u: a second end report (the first is on line %u)", line,
				    scan->end_line);
			return FALSE;
		}
		scan->end_line = line;
		scan->end_section = r->section;
		scan->end_section_line = r->section_line;
		scan->end_section_offset = scan->section_offset;
		scan->end_nochroot = r->nochroot;
		scan->end_after_sync = scan->prev_was_sync;
		scan->end_is_last = TRUE;
		scan->in_end_section = TRUE;
	}
	scan->prev_was_sync = FALSE;
	return TRUE;
}

static gboolean
word_is(const gchar *word, gsize len, const gchar *what)
{
	return len == strlen(what) && memcmp(word, what, len) == 0;
}

static gboolean
scan_command(Scan *scan, GntKickstartReader *r, GError **error)
{
	const gchar *cmd;
	gsize len = gnt_kickstart_reader_get_command(r, &cmd);

	if (word_is(cmd, len, "liveimg") || word_is(cmd, len, "url")) {
		scan->payload = TRUE;
	} else if (word_is(cmd, len, "reboot") || word_is(cmd, len, "halt") ||
		   word_is(cmd, len, "shutdown") || word_is(cmd, len, "poweroff")) {
		if (scan->shutdown.line != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "line %u: '%.*s' conflicts with '%s' on line %u", r->line_no,
				    (int)len, cmd, scan->shutdown.word, scan->shutdown.line);
			return FALSE;
		}
		scan->shutdown.line = r->line_no;
		scan->shutdown.offset = (gsize)(cmd - r->text);
		scan->shutdown.len = len;
		/* not g_strlcpy(): it reads @cmd to its NUL, and a template is
		 * counted bytes, not a string */
		memcpy(scan->shutdown.word, cmd, MIN(len, sizeof(scan->shutdown.word) - 1));
		scan->shutdown.word[MIN(len, sizeof(scan->shutdown.word) - 1)] = '\0';
	}
	return TRUE;
}

static gboolean
scan_template(Scan *scan, const gchar *text, gsize len, GError **error)
{
	g_auto(GntKickstartReader) r;
	GError *local = NULL;
	/* a logical script line being joined over '\' continuations */
	gsize joined_start = 0;
	guint joined_line = 0;

	gnt_kickstart_reader_init(&r, text, len);
	while (gnt_kickstart_reader_next(&r, &local)) {
		switch (r.kind) {
		case GNT_KICKSTART_LINE_HEADER:
			scan->last_section_line = r.line_no;
			scan->section_offset = r.line_start;
			scan->prev_was_sync = FALSE;
			scan->in_end_section = FALSE;
			if (r.section == GNT_KICKSTART_SECTION_TRACEBACK)
				scan->traceback = TRUE;
			break;
		case GNT_KICKSTART_LINE_COMMAND:
			if (!scan_command(scan, &r, error))
				return FALSE;
			break;
		case GNT_KICKSTART_LINE_BODY:
			if (!gnt_kickstart_section_is_script(r.section))
				break;
			if (joined_line == 0) {
				joined_start = r.line_start;
				joined_line = r.line_no;
			}
			if (r.line_len > 0 && r.line[r.line_len - 1] == '\\')
				break; /* continued on the next line */
			if (!scan_script_line(scan, &r, text + joined_start,
					      r.line_start + r.line_len - joined_start, joined_line,
					      error))
				return FALSE;
			joined_line = 0;
			break;
		case GNT_KICKSTART_LINE_END:
			joined_line = 0;
			break;
		case GNT_KICKSTART_LINE_BLANK:
			break;
		}
	}
	if (local != NULL) {
		g_propagate_error(error, local);
		return FALSE;
	}
	return TRUE;
}

/* Whether the template's own end report is where it must be; an error
 * otherwise. */
static gboolean
check_end_report(const Scan *scan, GError **error)
{
	if (scan->end_line == 0)
		return TRUE;
	if (scan->end_section == GNT_KICKSTART_SECTION_POST && scan->end_nochroot &&
	    scan->end_after_sync && scan->end_is_last &&
	    scan->end_section_line == scan->last_section_line)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "line %u: the end report must be the last thing run: the last line of the "
		    "last section, a %%post --nochroot, after sync (or leave it out: Gantry adds "
		    "it)",
		    scan->end_line);
	return FALSE;
}

gboolean
gnt_kickstart_additions_find(const gchar *text, gsize len, const GntKickstartRelease *release,
			     gboolean package, GPtrArray *notes, GntKickstartAdditions *additions,
			     GError **error)
{
	Scan scan = {.release = release};
	g_autoptr(GString) block = g_string_new(NULL);
	g_autoptr(GString) added = g_string_new(NULL);

	memset(additions, 0, sizeof(*additions));
	if (!scan_template(&scan, text, len, error) || !check_end_report(&scan, error))
		return FALSE;
	if (!scan.payload) {
		g_string_append(block, "liveimg --url={{ liveimg_url }}\n");
		g_string_append(added, ", liveimg");
	}
	if (scan.shutdown.line == 0) {
		g_string_append(block, "poweroff\n");
		g_string_append(added, ", poweroff");
	}
	if (!scan.start) {
		g_string_append(block, ADDED_PRE);
		g_string_append(added, ", %pre reporting start");
	}
	if (!scan.error) {
		g_string_append(block, ADDED_ONERROR);
		g_string_append(added, ", %onerror reporting error");
	}
	if (!scan.traceback && !gnt_kickstart_release_lacks_traceback(release)) {
		g_string_append(block, ADDED_TRACEBACK);
		g_string_append(added, ", %traceback reporting error");
	}
	if (block->len > 0)
		g_string_prepend(block, "# added by Gantry (doc/kickstart.md)\n");
	/* before the end report, whether Gantry's or the template's */
	if (package) {
		g_string_append(block, "# added by Gantry: the personalization package "
				       "(doc/kickstart.md)\n" ADDED_PACKAGE);
		g_string_append(added, ", %post --nochroot unpacking the personalization package");
	}
	if (scan.end_line == 0) {
		g_string_append(block,
				"# added by Gantry: the last thing run (doc/kickstart.md)\n");
		g_string_append(block, ADDED_END);
		g_string_append(added, ", %post --nochroot reporting end after sync");
	}
	/* after the template, or before its own end report's section */
	additions->insert_at = scan.end_line != 0 ? scan.end_section_offset : len;
	if (additions->insert_at > 0 && text[additions->insert_at - 1] != '\n' && block->len > 0)
		g_string_prepend_c(block, '\n');
	if (scan.shutdown.line != 0 && strcmp(scan.shutdown.word, "poweroff") != 0) {
		additions->shutdown_offset = scan.shutdown.offset;
		additions->shutdown_len = scan.shutdown.len;
		if (notes != NULL)
			g_ptr_array_add(notes,
					g_strdup_printf("kickstart: line %u: '%s' became "
							"'poweroff': Gantry must see the installer "
							"stop to boot the instance from disk",
							scan.shutdown.line, scan.shutdown.word));
	}
	if (notes != NULL && added->len > 0)
		g_ptr_array_add(notes,
				g_strdup_printf("kickstart: Gantry added %s", added->str + 2));
	additions->block = g_steal_pointer(&block);
	return TRUE;
}

void
gnt_kickstart_additions_clear(GntKickstartAdditions *self)
{
	if (self->block != NULL)
		g_string_free(self->block, TRUE);
	self->block = NULL;
}

GString *
gnt_kickstart_add_missing(const gchar *text, gsize len, const GntKickstartRelease *release,
			  GPtrArray *notes, GError **error)
{
	g_auto(GntKickstartAdditions) additions = {0};
	GString *out;
	gsize cursor = 0;

	if (!gnt_kickstart_additions_find(text, len, release, FALSE, notes, &additions, error))
		return NULL;
	out = g_string_sized_new(len + additions.block->len + 16);
	/* the shutdown command comes first: commands precede sections */
	if (additions.shutdown_len > 0 && additions.shutdown_offset < additions.insert_at) {
		g_string_append_len(out, text, (gssize)additions.shutdown_offset);
		g_string_append(out, GNT_KICKSTART_POWEROFF);
		cursor = additions.shutdown_offset + additions.shutdown_len;
	}
	g_string_append_len(out, text + cursor, (gssize)(additions.insert_at - cursor));
	g_string_append_len(out, additions.block->str, (gssize)additions.block->len);
	cursor = additions.insert_at;
	if (additions.shutdown_len > 0 && additions.shutdown_offset >= additions.insert_at) {
		g_string_append_len(out, text + cursor,
				    (gssize)(additions.shutdown_offset - cursor));
		g_string_append(out, GNT_KICKSTART_POWEROFF);
		cursor = additions.shutdown_offset + additions.shutdown_len;
	}
	g_string_append_len(out, text + cursor, (gssize)(len - cursor));
	return out;
}
