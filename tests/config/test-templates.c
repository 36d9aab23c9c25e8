/* Install templates in config.db (config/gnt-config-templates.h): exact
 * lookups, copies, the serial number guard, the upgrade of an older
 * database and the query resource. */
#include <sqlite3.h>

#include "gnt-config-templates.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-object-query.h"
#include "gnt-test-util.h"

#define STEPS                                                                                      \
	"[{\"interface\": \"deploy\", \"step\": \"resize_disk\","                                  \
	" \"args\": {\"disk\": 0, \"size\": \"2G\"}, \"priority\": 30}]"

static void
add_template(GntConfig *config, const gchar *name, const gchar *steps_json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) steps = gnt_json_parse(steps_json, -1, NULL);
	g_autoptr(JsonObject)
		record = gnt_install_template_record_new(name, json_node_get_array(steps), NULL);

	g_assert_true(gnt_config_add_object(config, GNT_OBJECT_INSTALL_TEMPLATE, record, &error));
	g_assert_no_error(error);
}

static void
test_lookup(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) found = NULL;
	g_autoptr(JsonObject) by_uuid = NULL;
	g_autoptr(JsonObject) again = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add_template(root.config, "rack.a", STEPS);
	add_template(root.config, "CUSTOM_RAID", STEPS);
	found = gnt_config_dup_install_template(root.config, "CUSTOM_RAID");
	g_assert_nonnull(found);
	g_assert_cmpstr(json_object_get_string_member(found, "description"), ==, "");
	g_assert_cmpint(json_object_get_int_member(found, "serial_no"), ==, 1);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(found, "steps")), ==,
			 1);
	by_uuid = gnt_config_dup_install_template(root.config,
						  json_object_get_string_member(found, "uuid"));
	g_assert_cmpstr(json_object_get_string_member(by_uuid, "name"), ==, "CUSTOM_RAID");
	/* a copy: changing it changes nothing stored */
	json_object_set_string_member(found, "description", "changed");
	json_array_remove_element(json_object_get_array_member(found, "steps"), 0);
	again = gnt_config_dup_install_template(root.config, "CUSTOM_RAID");
	g_assert_cmpstr(json_object_get_string_member(again, "description"), ==, "");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(again, "steps")), ==,
			 1);
	/* names are exact: no short names, no case folding */
	g_assert_null(gnt_config_dup_install_template(root.config, "rack"));
	g_assert_null(gnt_config_dup_install_template(root.config, "custom_raid"));
	g_assert_null(gnt_config_lookup_install_template(root.config, "rack", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "Install template 'rack' not found");
	g_clear_error(&error);
	/* the kind's names stay apart from the others' */
	g_assert_null(gnt_config_dup_object(root.config, GNT_OBJECT_INSTANCE, "CUSTOM_RAID", NULL));
	gnt_test_root_clear(&root);
}

/* An update made from an older reading is refused, and changes nothing. */
static void
test_serial_guard(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) first = NULL;
	g_autoptr(JsonObject) second = NULL;
	g_autoptr(JsonObject) stored = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add_template(root.config, "CUSTOM_A", STEPS);
	first = gnt_config_dup_install_template(root.config, "CUSTOM_A");
	second = gnt_config_dup_install_template(root.config, "CUSTOM_A");
	json_object_set_string_member(first, "description", "first");
	json_object_set_string_member(second, "description", "second");
	g_assert_true(
		gnt_config_update_object(root.config, GNT_OBJECT_INSTALL_TEMPLATE, first, &error));
	g_assert_no_error(error);
	g_assert_false(
		gnt_config_update_object(root.config, GNT_OBJECT_INSTALL_TEMPLATE, second, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	stored = gnt_config_dup_install_template(root.config, "CUSTOM_A");
	g_assert_cmpstr(json_object_get_string_member(stored, "description"), ==, "first");
	g_assert_cmpint(json_object_get_int_member(stored, "serial_no"), ==, 2);
	gnt_test_root_clear(&root);
}

/* A database of schema 3 (before templates) gains their table. */
static void
test_schema_3_upgraded(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) reopened = NULL;
	g_autoptr(JsonObject) found = NULL;
	sqlite3 *db = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	g_clear_object(&root.config);
	g_assert_cmpint(sqlite3_open(gnt_paths_get_config_db(root.paths), &db), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(db, "DROP TABLE installtemplate; PRAGMA user_version = 3",
				     NULL, NULL, NULL),
			==, SQLITE_OK);
	sqlite3_close(db);
	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	add_template(reopened, "CUSTOM_A", STEPS);
	g_clear_object(&reopened);
	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	found = gnt_config_dup_install_template(reopened, "CUSTOM_A");
	g_assert_nonnull(found);
	g_clear_object(&reopened);
	gnt_test_root_clear(&root);
}

static gint64
serial_of(GntConfig *config, const gchar *name)
{
	g_autoptr(JsonObject) found = gnt_config_dup_install_template(config, name);

	g_assert_nonnull(found);
	return json_object_get_int_member(found, "serial_no");
}

/* The shipped templates: on a new cluster, untouched by opening it again,
 * back as shipped after a change or a removal behind the units' back; an
 * operator's own template of one of their names left alone. */
static void
test_shipped(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = NULL;
	g_autoptr(JsonObject) mirror = NULL;
	g_autoptr(JsonObject) restored = NULL;
	g_autoptr(JsonObject) own = NULL;
	g_autoptr(JsonObject) stripe = NULL;
	g_autoptr(JsonArray) shipped = gnt_install_templates_shipped();
	const gchar *path;

	gnt_test_root_init(&root, "node1.example.com");
	path = gnt_paths_get_config_db(root.paths);
	mirror = gnt_config_dup_install_template(root.config, "CUSTOM_RAID1_LVM");
	g_assert_true(gnt_install_template_is_shipped(mirror));
	g_assert_true(json_node_equal(
		json_object_get_member(mirror, "steps"),
		json_object_get_member(json_array_get_object_element(shipped, 0), "steps")));
	g_assert_cmpint(serial_of(root.config, "CUSTOM_RAID1_LVM"), ==, 1);
	stripe = gnt_config_dup_install_template(root.config, "CUSTOM_RAID0");
	g_assert_true(gnt_install_template_is_shipped(stripe));
	g_clear_object(&root.config);
	/* opened again: nothing to do */
	config = gnt_config_open(path, &error);
	g_assert_no_error(error);
	g_assert_cmpint(serial_of(config, "CUSTOM_RAID1_LVM"), ==, 1);
	/* changed behind the units' back: as shipped at the next open */
	json_object_set_string_member(mirror, "description", "changed");
	g_assert_true(
		gnt_config_update_object(config, GNT_OBJECT_INSTALL_TEMPLATE, mirror, &error));
	g_assert_no_error(error);
	/* removed, and an operator's own CUSTOM_RAID0 in its place */
	restored = gnt_config_dup_install_template(config, "CUSTOM_RAID0");
	g_assert_true(gnt_config_remove_object(config, GNT_OBJECT_INSTALL_TEMPLATE,
					       json_object_get_string_member(restored, "uuid"),
					       &error));
	g_assert_no_error(error);
	add_template(config, "CUSTOM_RAID0", STEPS);
	g_clear_object(&config);
	config = gnt_config_open(path, &error);
	g_assert_no_error(error);
	g_clear_pointer(&restored, json_object_unref);
	restored = gnt_config_dup_install_template(config, "CUSTOM_RAID1_LVM");
	g_assert_cmpstr(json_object_get_string_member(restored, "description"), ==,
			json_object_get_string_member(json_array_get_object_element(shipped, 0),
						      "description"));
	g_assert_cmpint(json_object_get_int_member(restored, "serial_no"), ==, 3);
	own = gnt_config_dup_install_template(config, "CUSTOM_RAID0");
	g_assert_false(gnt_install_template_is_shipped(own));
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(own, "steps")), ==, 1);
	g_clear_object(&config);
	gnt_test_root_clear(&root);
}

/* The "installtemplate" resource: its fields, rows in name order, the
 * classic call's exact names. */
static void
test_query(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) fields = NULL;
	g_autoptr(JsonNode) answer = NULL;
	g_autoptr(JsonNode) values = NULL;
	g_autoptr(JsonArray) selected = json_array_new();
	g_autoptr(JsonArray) names = json_array_new();
	g_autofree gchar *text = NULL;
	g_autofree gchar *values_text = NULL;
	g_autoptr(GString) joined = g_string_new(NULL);
	JsonArray *defs;

	gnt_test_root_init(&root, "node1.example.com");
	add_template(root.config, "b2", STEPS);
	add_template(root.config, "b10", "[" STEPS "," STEPS "]");
	fields = gnt_object_query_fields(GNT_OBJECT_INSTALL_TEMPLATE, NULL, &error);
	g_assert_no_error(error);
	defs = json_object_get_array_member(json_node_get_object(fields), "fields");
	for (guint i = 0; i < json_array_get_length(defs); i++)
		g_string_append_printf(joined, "%s ",
				       json_object_get_string_member(
					       json_array_get_object_element(defs, i), "name"));
	g_assert_cmpstr(joined->str, ==,
			"ctime description mtime name serial_no step_cnt steps uuid ");
	json_array_add_string_element(selected, "name");
	json_array_add_string_element(selected, "step_cnt");
	json_array_add_string_element(selected, "serial_no");
	answer = gnt_object_query(root.config, GNT_OBJECT_INSTALL_TEMPLATE, selected, NULL, NULL,
				  &error);
	g_assert_no_error(error);
	text = gnt_json_to_string(json_object_get_member(json_node_get_object(answer), "data"));
	/* natural order: b2 before b10, after the shipped ones */
	g_assert_cmpstr(
		text, ==,
		"[[[0,\"CUSTOM_RAID0\"],[0,13],[0,1]],[[0,\"CUSTOM_RAID1_LVM\"],[0,13],[0,1]],"
		"[[0,\"b2\"],[0,1],[0,1]],[[0,\"b10\"],[0,2],[0,1]]]");
	json_array_add_string_element(names, "b10");
	values = gnt_object_query_values(root.config, GNT_OBJECT_INSTALL_TEMPLATE, names, selected,
					 NULL, &error);
	g_assert_no_error(error);
	values_text = gnt_json_to_string(values);
	g_assert_cmpstr(values_text, ==, "[[\"b10\",2,1]]");
	json_array_remove_element(names, 0);
	json_array_add_string_element(names, "b");
	g_clear_pointer(&values, json_node_unref);
	values = gnt_object_query_values(root.config, GNT_OBJECT_INSTALL_TEMPLATE, names, selected,
					 NULL, &error);
	g_assert_null(values);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "Install template name 'b' not found");
	gnt_test_root_clear(&root);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/config/templates/lookup", test_lookup);
	g_test_add_func("/config/templates/serial-guard", test_serial_guard);
	g_test_add_func("/config/templates/schema-3-upgraded", test_schema_3_upgraded);
	g_test_add_func("/config/templates/query", test_query);
	g_test_add_func("/config/templates/shipped", test_shipped);
	return g_test_run();
}
