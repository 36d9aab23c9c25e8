#pragma once /* install/gnt-kickstart-render.h: kickstart templates, {{ name }} only */

#include <glib.h>

G_BEGIN_DECLS

/*
 * A kickstart template (doc/kickstart.md, "Rendering"): kickstart text with
 * the `{{ name }}` subset of Jinja2 and nothing else. Statements (`{% %}`),
 * comments (`{# #}`), filters, attribute access, calls and literals are
 * refused when the template is read, never evaluated; so is a name that
 * is not one of the variables below (strict undefined), and the message
 * lists the valid names. For this subset python3-jinja2 (StrictUndefined,
 * keep_trailing_newline) renders the same bytes (tests/install).
 *
 * Errors are GNT_ERROR_INVALID and start with "line N: ".
 */

/* The variables a template may use. */
typedef enum {
	GNT_KICKSTART_VAR_LIVEIMG_URL,	 /* the instance's OS image, served by metad */
	GNT_KICKSTART_VAR_CALLBACK_URL,	 /* where the installer reports start, end, error */
	GNT_KICKSTART_VAR_AGENT_TOKEN,	 /* this install's token; callbacks must carry it */
	GNT_KICKSTART_VAR_INSTANCE_NAME, /* the instance's name */
	GNT_KICKSTART_VAR_HOSTNAME,	 /* its host name (the name's first label) */
	GNT_KICKSTART_VAR_SSH_KEYS,	 /* authorized_keys lines, one a line */
	GNT_KICKSTART_VAR_STAGE2_URL,	 /* the installer's stage2 (undefined without one) */
	GNT_KICKSTART_N_VARS,
} GntKickstartVar;

/* "liveimg_url", ... */
const gchar *
gnt_kickstart_var_get_name(GntKickstartVar var);
/* "liveimg_url, callback_url, ...": what messages list. */
const gchar *
gnt_kickstart_var_list_names(void);

/* The most bytes a template (and a rendered file) may weigh: 1 MiB. */
#define GNT_KICKSTART_MAX_BYTES ((gsize)1024 * 1024)

/* Whether @data is text a template may be: at most GNT_KICKSTART_MAX_BYTES,
 * no NUL byte, valid UTF-8; the error names the line where it goes wrong
 * ("line 12: a NUL byte", "line 3: invalid UTF-8", "line 9000: the
 * template is larger than 1048576 bytes"). */
gboolean
gnt_kickstart_check_input(const gchar *data, gsize len, GError **error);

typedef struct _GntKickstartTemplate GntKickstartTemplate;

/* Reads @data (checked by gnt_kickstart_check_input()). (transfer full) */
GntKickstartTemplate *
gnt_kickstart_template_new(const gchar *data, gsize len, GError **error);
/* The same for text known to pass gnt_kickstart_check_input() (a checked
 * template with Gantry's additions): what a preparation reads twice is
 * checked once. (transfer full) */
GntKickstartTemplate *
gnt_kickstart_template_new_unchecked(const gchar *data, gsize len, GError **error);
void
gnt_kickstart_template_free(GntKickstartTemplate *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntKickstartTemplate, gnt_kickstart_template_free)

/* Whether the template uses @var anywhere. */
gboolean
gnt_kickstart_template_uses(const GntKickstartTemplate *self, GntKickstartVar var);

/* The text with each {{ name }} replaced by @values[var], verbatim;
 * a variable used whose value is NULL fails ("line N: 'stage2_url' is
 * undefined for this install"). (transfer full) */
GString *
gnt_kickstart_template_render(const GntKickstartTemplate *self,
			      const gchar *const values[GNT_KICKSTART_N_VARS], GError **error);

/* Appends to @out the rendering of the template's bytes [@from, @to),
 * which must not cut a {{ }} (an offset between pieces of text, such as a
 * line's start). The errors as gnt_kickstart_template_render(), without
 * the size check. */
gboolean
gnt_kickstart_template_render_range(const GntKickstartTemplate *self,
				    const gchar *const values[GNT_KICKSTART_N_VARS], gsize from,
				    gsize to, GString *out, GError **error);

/* Whether a rendered file is at most GNT_KICKSTART_MAX_BYTES: the error
 * names the line that crosses it. */
gboolean
gnt_kickstart_check_rendered_size(const GString *out, GError **error);

/* Whether every variable the template uses has a value in @values: the
 * same error as rendering gives, without rendering. */
gboolean
gnt_kickstart_template_check_defined(const GntKickstartTemplate *self,
				     const gchar *const values[GNT_KICKSTART_N_VARS],
				     GError **error);

/* Whether @len bytes of template text (already read without error) refer
 * to @var: what the checks of Gantry's additions ask of one line. */
gboolean
gnt_kickstart_text_uses(const gchar *text, gsize len, GntKickstartVar var);

G_END_DECLS
