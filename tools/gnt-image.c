/* gnt-image: the image catalog (doc/images.md), with Ganeti's list
 * conventions. Its add and modify options are the catalog's keys
 * (config/gnt-config-images.h), their help the opcode table's. */
#include <string.h>

#include "gnt-cli-objects.h"
#include "gnt-config-images.h"
#include "gnt-json.h"
#include "gnt-size.h"

/* ---- list, list-fields ---- */

static const gchar *const list_default_fields[] = {
	"name", "format", "os_distro", "os_version", "size", "url", NULL,
};

static const GntCliListSpec list_spec = {"image", list_default_fields, NULL};

/* ---- info ---- */

enum {
	INFO_NAME,
	INFO_UUID,
	INFO_URL,
	INFO_FORMAT,
	INFO_SHA256,
	INFO_SIZE,
	INFO_PROPERTIES,
	INFO_N_FIELDS
};

static const gchar *const info_fields[] = {
	"name", "uuid", "url", "format", "sha256", "size", "properties", NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static GntCliInfo *
image_info(JsonArray *row)
{
	static const struct {
		guint index;
		const gchar *label;
	} plain[] = {
		{INFO_UUID, "UUID"},	  {INFO_URL, "URL"},   {INFO_FORMAT, "Format"},
		{INFO_SHA256, "SHA-256"}, {INFO_SIZE, "Size"},
	};
	GntCliInfo *info = gnt_cli_info_new_dict();
	GntCliInfo *properties = gnt_cli_info_new_dict();
	JsonNode *own = json_array_get_element(row, INFO_PROPERTIES);
	JsonObject *set = JSON_NODE_HOLDS_OBJECT(own) ? json_node_get_object(own) : NULL;

	gnt_cli_info_add(info, "Image", NULL,
			 gnt_cli_info_new_json(json_array_get_element(row, INFO_NAME)));
	for (guint i = 0; i < G_N_ELEMENTS(plain); i++)
		gnt_cli_info_add(
			info, plain[i].label, NULL,
			gnt_cli_info_new_json(json_array_get_element(row, plain[i].index)));
	/* every property in the catalog's order, "(none)" when not set */
	for (guint i = 0; gnt_image_fields[i].key != NULL; i++) {
		const gchar *key = gnt_image_fields[i].key;

		if (!gnt_image_fields[i].property)
			continue;
		if (set != NULL && json_object_has_member(set, key))
			gnt_cli_info_add(properties, key, NULL,
					 gnt_cli_info_new_json(json_object_get_member(set, key)));
		else
			gnt_cli_info_add_text(properties, key, "(none)");
	}
	gnt_cli_info_add(info, "Properties", NULL, properties);
	return info;
}

static gint
show_image_info(GntCli *cli, gchar **args)
{
	return gnt_cli_show_info(cli, "QueryImages", args, info_fields, image_info);
}

/* ---- add, modify ---- */

/* One option per catalog key (--url, --os-distro, ...), made in main()
 * from the catalog's fields; the values given, by field. */
#define MAX_FIELDS 16
static gchar *opt_values[MAX_FIELDS];
static GOptionEntry param_entries[MAX_FIELDS + 2];
static gchar **opt_remove;

static void
build_param_entries(void)
{
	guint n = 0;

	for (guint i = 0; gnt_image_fields[i].key != NULL; i++) {
		const GntImageField *field = &gnt_image_fields[i];
		g_autofree gchar *option = g_strdelimit(g_strdup(field->key), "_", '-');
		g_autofree gchar *help = g_strconcat(
			GNT_CLI_PARAM_HELP_PREFIX "OP_IMAGE_SET_PARAMS:", field->key, NULL);
		g_autofree gchar *arg = g_ascii_strup(field->key, -1);

		g_assert(n < MAX_FIELDS);
		param_entries[n++] = (GOptionEntry){
			g_intern_string(option),
			0,
			0,
			G_OPTION_ARG_STRING,
			&opt_values[i],
			g_intern_string(help),
			g_intern_string(arg),
		};
	}
	param_entries[n] =
		(GOptionEntry){"remove-property",
			       0,
			       0,
			       G_OPTION_ARG_STRING_ARRAY,
			       &opt_remove,
			       GNT_CLI_PARAM_HELP("OP_IMAGE_SET_PARAMS", "remove_properties"),
			       "PROPERTY"};
	param_entries[n + 1] = (GOptionEntry){NULL};
}

/* The options given as the opcode's parameters, integers parsed
 * (installer_memory with units, as -B memory takes them). */
static gboolean
set_param_options(GntCli *cli, JsonObject *op, gboolean *any, GError **error)
{
	*any = FALSE;
	for (guint i = 0; gnt_image_fields[i].key != NULL; i++) {
		const GntImageField *field = &gnt_image_fields[i];
		const gchar *text = opt_values[i];
		guint64 number = 0;
		gboolean ok;

		if (text == NULL)
			continue;
		*any = TRUE;
		if (field->type == GNT_IMAGE_VALUE_STRING) {
			json_object_set_string_member(op, field->key, text);
			continue;
		}
		ok = g_strcmp0(field->key, "installer_memory") == 0
			     ? gnt_size_parse(text, &number, NULL)
			     : g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, &number, NULL);
		if (!ok) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Invalid value '%s' for --%s: expected %s", text,
						 param_entries[i].long_name,
						 g_strcmp0(field->key, "installer_memory") == 0
							 ? "a size (MiB, or with a unit: 2G)"
						 : g_strcmp0(field->key, "size") == 0
							 ? "a number of bytes"
							 : "a number");
			return FALSE;
		}
		json_object_set_int_member(op, field->key, (gint64)number);
	}
	return TRUE;
}

static gint
add_image(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, "OP_IMAGE_ADD");
	gboolean any = FALSE;

	if (opt_remove != NULL) {
		g_printerr("--remove-property is for modify only\n");
		return GNT_CLI_EXIT_USAGE;
	}
	json_object_set_string_member(op, "image_name", args[0]);
	if (!set_param_options(cli, op, &any, &error))
		return gnt_cli_fail(cli, error);
	return gnt_cli_submit_opcode(cli, g_steal_pointer(&op), NULL);
}

/* modify's options: add's, and --remove-property */
static gboolean
set_modify_options(GntCli *cli, JsonObject *op, gboolean *any, GError **error)
{
	if (!set_param_options(cli, op, any, error))
		return FALSE;
	json_object_set_array_member(op, "remove_properties", gnt_cli_strv_to_json(opt_remove));
	*any = *any || opt_remove != NULL;
	return TRUE;
}

static gint
modify_image(GntCli *cli, gchar **args)
{
	return gnt_cli_modify_object(cli, "OP_IMAGE_SET_PARAMS", "image_name", args[0], "image",
				     set_modify_options);
}

static gint
remove_image(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_IMAGE_REMOVE");

	json_object_set_string_member(op, "image_name", args[0]);
	return gnt_cli_submit_opcode(cli, op, NULL);
}

#define SUBMIT_OPTS (GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN)

/* add and modify take the same options; their entries are filled in by
 * main() before the table is read */
static const GntCliCommand commands[] = {
	{"add", add_image, 1, 1, SUBMIT_OPTS, param_entries,
	 "--url URL --format FORMAT --sha256 HEX [options] <image>", "Add an image to the catalog",
	 "An instance is installed from it with \"gnt-instance add|reinstall --os-image NAME\": "
	 "its URL and SHA-256 come from the catalog, and nodes keep it in their artifact cache."},
	{"info", show_image_info, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<image>...]",
	 "Show the images' details and properties", NULL},
	{"list", gnt_cli_list_command, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<image>...]",
	 "Lists the images of the catalog. The available fields can be shown using the "
	 "\"list-fields\" command. The default list is (in order): name, format, os_distro, "
	 "os_version, size, url.",
	 NULL, &list_spec},
	{"list-fields", gnt_cli_list_fields_command, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[fields...]",
	 "Lists all available fields for images", NULL, &list_spec},
	{"modify", modify_image, 1, 1, SUBMIT_OPTS, param_entries, "[options] <image>",
	 "Changes an image or its properties",
	 "Instances installed from it keep the URL and SHA-256 they were installed with until "
	 "they are reinstalled with --os-image NAME again. --remove-property PROPERTY removes "
	 "a property (repeatable)."},
	{"remove", remove_image, 1, 1, SUBMIT_OPTS, NULL, "[--dry-run] <image>",
	 "Remove an image from the catalog",
	 "Refused while an instance's install parameters name it."},
	{NULL},
};

int
main(int argc, char **argv)
{
	build_param_entries();
	return gnt_cli_main(commands, argc, argv);
}
