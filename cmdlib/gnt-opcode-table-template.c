/*
 * Opcodes of install templates (doc/templates.md): add, set-params
 * (gnt-template modify, RAPI's PATCH) and remove. Gantry's own: Ganeti has
 * no such object. The name and description rules are checked here, when
 * an opcode is parsed, so LUXI, RAPI and the CLI refuse the same.
 */
#include <string.h>

#include "gnt-cmdlib.h"
#include "gnt-error.h"
#include "gnt-limits.h"

/* Ironic's limit on a description */
#define DESCRIPTION_MAX 255
/* Ironic's custom trait names are CUSTOM_[A-Z0-9_]+ */
#define CUSTOM_PREFIX "CUSTOM_"

/* A template name: a tag (gnt-limits.h), and a custom trait name when it
 * starts with "custom_" in any case, so that "custom_x" is not taken for
 * a trait Nova or Ironic would spell CUSTOM_X. */
static gboolean
validate_name(JsonNode *value, GError **error)
{
	const gchar *name = json_node_get_string(value);
	gsize prefix = strlen(CUSTOM_PREFIX);

	if (!gnt_limits_check_tag(name, error)) {
		g_prefix_error(error, "invalid install template name: ");
		return FALSE;
	}
	if (g_ascii_strncasecmp(name, CUSTOM_PREFIX, prefix) != 0)
		return TRUE;
	for (const gchar *p = name; *p != '\0'; p++) {
		if (p - name < (gssize)prefix
			    ? *p != CUSTOM_PREFIX[p - name]
			    : !(g_ascii_isupper(*p) || g_ascii_isdigit(*p) || *p == '_')) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid install template name '%s': a custom name is"
				    " CUSTOM_ followed by capitals, digits and '_'",
				    name);
			return FALSE;
		}
	}
	if (name[prefix] == '\0') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid install template name '%s': nothing follows CUSTOM_", name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
validate_description(JsonNode *value, GError **error)
{
	const gchar *text = json_node_get_string(value);

	if (!g_utf8_validate(text, -1, NULL) || g_utf8_strlen(text, -1) > DESCRIPTION_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a description is at most %d characters of UTF-8", DESCRIPTION_MAX);
		return FALSE;
	}
	return TRUE;
}

/* the steps' own rules are the install step registry's, checked by the
 * units (install/ lies above the opcode table, which clients link) */
#define TEMPLATE_NAME_PARAM                                                                        \
	{                                                                                          \
		.name = "template_name", .type = GNT_PARAM_TYPE_STRING,                            \
		.help = "Name (or UUID) of the install template"                                   \
	}
#define STEPS_HELP	 "The steps: a JSON list of {\"interface\", \"step\", \"args\", \"priority\"}"
#define DESCRIPTION_HELP "What the template is for (at most 255 characters)"

static const GntParamDef template_add_params[] = {
	{.name = "template_name",
	 .type = GNT_PARAM_TYPE_STRING,
	 .validate = validate_name,
	 .help = "Name of the new install template: the instance tag that selects it"},
	{.name = "steps", .type = GNT_PARAM_TYPE_LIST, .help = STEPS_HELP},
	{.name = "description",
	 .type = GNT_PARAM_TYPE_STRING,
	 .default_json = "\"\"",
	 .validate = validate_description,
	 .help = DESCRIPTION_HELP},
	{NULL},
};

static const GntParamDef template_set_params_params[] = {
	TEMPLATE_NAME_PARAM,
	{.name = "new_name",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .validate = validate_name,
	 .help = "New name of the install template"},
	{.name = "steps", .type = GNT_PARAM_TYPE_LIST, GNT_PARAM_OPTIONAL, .help = STEPS_HELP},
	{.name = "description",
	 .type = GNT_PARAM_TYPE_STRING,
	 GNT_PARAM_OPTIONAL,
	 .validate = validate_description,
	 .help = DESCRIPTION_HELP},
	{.name = "serial_no",
	 .type = GNT_PARAM_TYPE_INT,
	 GNT_PARAM_OPTIONAL,
	 .help = "The serial number the change was made from: refused when the template has"
		 " another by now"},
	{NULL},
};

static const GntParamDef template_remove_params[] = {
	TEMPLATE_NAME_PARAM,
	{NULL},
};

/* Each takes its template's lock under a shared cluster lock: templates
 * change apart from everything else. */
static const GntOpDef op_install_template_add = {
	.id = "OP_INSTALL_TEMPLATE_ADD",
	.summary_param = "template_name",
	.params = template_add_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_install_template_set_params = {
	.id = "OP_INSTALL_TEMPLATE_SET_PARAMS",
	.summary_param = "template_name",
	.params = template_set_params_params,
	.bgl = GNT_LOCK_SHARED,
};
static const GntOpDef op_install_template_remove = {
	.id = "OP_INSTALL_TEMPLATE_REMOVE",
	.summary_param = "template_name",
	.params = template_remove_params,
	.bgl = GNT_LOCK_SHARED,
};

const GntOpDef *const gnt_op_defs_template[] = {
	&op_install_template_add,
	&op_install_template_remove,
	&op_install_template_set_params,
	NULL,
};
