/* Nodes and instances in config.db: the cache, the database, short names. */
#include <sqlite3.h>

#include "gnt-config-groups.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-test-util.h"

static JsonObject *
record(const gchar *json)
{
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, NULL);

	g_assert_nonnull(node);
	return json_object_ref(json_node_get_object(node));
}

static void
add(GntConfig *config, GntObjectKind kind, const gchar *json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) rec = record(json);

	g_assert_true(gnt_config_add_object(config, kind, rec, &error));
	g_assert_no_error(error);
}

static void
test_add_lookup_persist(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) found = NULL;
	g_autoptr(GPtrArray) all = NULL;
	g_autoptr(GntConfig) reopened = NULL;
	g_autoptr(JsonObject) again = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_INSTANCE, "{\"name\": \"web2.example.com\", \"memory\": 256}");
	add(root.config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"web1.example.com\", \"disks\": [{\"size\": 1024}]}");
	found = gnt_config_dup_object(root.config, GNT_OBJECT_INSTANCE, "web1", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(found, "name"), ==, "web1.example.com");
	g_assert_cmpint(json_object_get_int_member(found, "serial_no"), ==, 1);
	g_assert_true(g_uuid_string_is_valid(json_object_get_string_member(found, "uuid")));
	all = gnt_config_dup_objects(root.config, GNT_OBJECT_INSTANCE);
	g_assert_cmpuint(all->len, ==, 2);
	g_assert_cmpstr(json_object_get_string_member(g_ptr_array_index(all, 0), "name"), ==,
			"web1.example.com"); /* sorted by name */
	g_assert_cmpuint(gnt_config_count_objects(root.config, GNT_OBJECT_NODE), ==, 0);

	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	again = gnt_config_dup_object(reopened, GNT_OBJECT_INSTANCE,
				      json_object_get_string_member(found, "uuid"), &error);
	g_assert_no_error(error);
	g_assert_cmpint(json_array_get_length(json_object_get_array_member(again, "disks")), ==, 1);
	g_assert_cmpfloat(json_object_get_double_member(again, "ctime"), ==,
			  json_object_get_double_member(found, "ctime"));
	g_clear_object(&reopened);
	gnt_test_root_clear(&root);
}

static void
test_names(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) dup = record("{\"name\": \"a.example.com\"}");
	g_autoptr(JsonObject) missing = NULL;
	g_autoptr(JsonObject) ambiguous = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_NODE, "{\"name\": \"a.example.com\"}");
	add(root.config, GNT_OBJECT_NODE, "{\"name\": \"a.example.org\"}");
	g_assert_false(gnt_config_add_object(root.config, GNT_OBJECT_NODE, dup, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_assert_cmpstr(error->message, ==, "node 'a.example.com' already exists");
	g_clear_error(&error);
	ambiguous = gnt_config_dup_object(root.config, GNT_OBJECT_NODE, "a", &error);
	g_assert_null(ambiguous);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "node name 'a' has multiple matches");
	g_clear_error(&error);
	missing = gnt_config_dup_object(root.config, GNT_OBJECT_NODE, "b", &error);
	g_assert_null(missing);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "node 'b' does not exist");
	gnt_test_root_clear(&root);
}

/* The instances on a node, the nodes of a group: by a string member's
 * value, in name order; a record without it (or with another type) is
 * not one of them. */
static void
test_names_where(void)
{
	GntTestRoot root;
	g_autoptr(GPtrArray) on_n1 = NULL;
	g_autoptr(GPtrArray) plain = NULL;
	g_autoptr(GPtrArray) none = NULL;
	g_autoptr(GPtrArray) records = NULL;
	g_autofree gchar *joined = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"c.example.com\", \"primary_node\": \"n1\", \"disk_template\": \"file\"}");
	add(root.config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"a.example.com\", \"primary_node\": \"n1\", \"disk_template\": \"plain\"}");
	add(root.config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"b.example.com\", \"primary_node\": \"n2\", \"disk_template\": \"plain\"}");
	add(root.config, GNT_OBJECT_INSTANCE, "{\"name\": \"d.example.com\", \"primary_node\": 1}");
	on_n1 = gnt_config_dup_names_where(root.config, GNT_OBJECT_INSTANCE, "primary_node", "n1");
	g_assert_cmpuint(on_n1->len, ==, 2);
	joined = g_strjoinv(", ", (gchar **)on_n1->pdata);
	g_assert_cmpstr(joined, ==, "a.example.com, c.example.com");
	plain = gnt_config_dup_names_where(root.config, GNT_OBJECT_INSTANCE, "disk_template",
					   "plain");
	g_assert_cmpuint(plain->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(plain, 1), ==, "b.example.com");
	records = gnt_config_dup_objects_where(root.config, GNT_OBJECT_INSTANCE, "primary_node",
					       "n2");
	g_assert_cmpuint(records->len, ==, 1);
	g_assert_cmpstr(json_object_get_string_member(g_ptr_array_index(records, 0), "name"), ==,
			"b.example.com");
	none = gnt_config_dup_names_where(root.config, GNT_OBJECT_NODE, "group", "g1");
	g_assert_cmpuint(none->len, ==, 0);
	g_assert_null(none->pdata[0]);
	gnt_test_root_clear(&root);
}

/* Each kind's string reads back as that kind; the tag kinds that are no
 * object (cluster, network) are not kinds. */
static void
test_kind_strings(void)
{
	GntObjectKind kind = GNT_OBJECT_LAST;

	for (guint i = 0; i < GNT_OBJECT_LAST; i++) {
		g_assert_true(gnt_object_kind_from_string(gnt_object_kind_to_string(i), &kind));
		g_assert_cmpint(kind, ==, i);
	}
	g_assert_cmpstr(gnt_object_kind_to_string(GNT_OBJECT_GROUP), ==, "nodegroup");
	g_assert_false(gnt_object_kind_from_string("cluster", &kind));
	g_assert_false(gnt_object_kind_from_string("group", &kind));
	g_assert_false(gnt_object_kind_from_string(NULL, &kind));
	g_assert_cmpint(kind, ==, GNT_OBJECT_LAST - 1);
}

static void
test_update_and_remove(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) rec = NULL;
	g_autoptr(JsonObject) stale = NULL;
	g_autoptr(JsonObject) after = NULL;
	const gchar *uuid;

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_INSTANCE, "{\"name\": \"i1.example.com\", \"memory\": 128}");
	add(root.config, GNT_OBJECT_INSTANCE, "{\"name\": \"i2.example.com\"}");
	rec = gnt_config_dup_object(root.config, GNT_OBJECT_INSTANCE, "i1.example.com", &error);
	stale = gnt_json_object_deep_copy(rec);
	uuid = json_object_get_string_member(rec, "uuid");
	json_object_set_int_member(rec, "memory", 512);
	json_object_set_string_member(rec, "name", "renamed.example.com");
	g_assert_true(gnt_config_update_object(root.config, GNT_OBJECT_INSTANCE, rec, &error));
	g_assert_no_error(error);
	after = gnt_config_dup_object(root.config, GNT_OBJECT_INSTANCE, "renamed", &error);
	g_assert_cmpint(json_object_get_int_member(after, "serial_no"), ==, 2);
	g_assert_cmpint(json_object_get_int_member(after, "memory"), ==, 512);
	/* the old name is free, the stale copy cannot overwrite the change */
	g_assert_false(gnt_config_update_object(root.config, GNT_OBJECT_INSTANCE, stale, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	g_clear_error(&error);
	/* renaming onto another instance's name is refused */
	json_object_set_string_member(after, "name", "i2.example.com");
	g_assert_false(gnt_config_update_object(root.config, GNT_OBJECT_INSTANCE, after, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_clear_error(&error);
	g_assert_true(gnt_config_remove_object(root.config, GNT_OBJECT_INSTANCE, uuid, &error));
	g_assert_false(gnt_config_remove_object(root.config, GNT_OBJECT_INSTANCE, uuid, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpuint(gnt_config_count_objects(root.config, GNT_OBJECT_INSTANCE), ==, 1);
	gnt_test_root_clear(&root);
}

/* A config.db written before nodes and instances existed gains their tables. */
static void
test_schema_1_upgraded(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) reopened = NULL;
	sqlite3 *db = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	g_clear_object(&root.config);
	g_assert_cmpint(sqlite3_open(gnt_paths_get_config_db(root.paths), &db), ==, SQLITE_OK);
	g_assert_cmpint(
		sqlite3_exec(db, "DROP TABLE node; DROP TABLE instance; PRAGMA user_version = 1",
			     NULL, NULL, NULL),
		==, SQLITE_OK);
	sqlite3_close(db);
	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	add(reopened, GNT_OBJECT_NODE, "{\"name\": \"n2.example.com\"}");
	g_clear_object(&reopened);
	gnt_test_root_clear(&root);
}

/* A config.db from before node groups (schema 2: nodes name their group
 * "default") gains the group table, the group "default", and nodes that
 * carry its UUID; a new one has the group from the start. */
static void
test_schema_2_groups(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) reopened = NULL;
	g_autoptr(GPtrArray) groups = NULL;
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonObject) lost = NULL;
	g_autofree gchar *uuid = NULL;
	sqlite3 *db = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	groups = gnt_config_dup_objects(root.config, GNT_OBJECT_GROUP);
	g_assert_cmpuint(groups->len, ==, 1);
	g_assert_cmpstr(json_object_get_string_member(g_ptr_array_index(groups, 0), "name"), ==,
			GNT_GROUP_DEFAULT_NAME);
	g_assert_cmpstr(json_object_get_string_member(g_ptr_array_index(groups, 0), "alloc_policy"),
			==, "preferred");
	add(root.config, GNT_OBJECT_NODE, "{\"name\": \"n1.example.com\", \"group\": \"default\"}");
	add(root.config, GNT_OBJECT_NODE, "{\"name\": \"n2.example.com\", \"group\": \"gone\"}");
	g_clear_object(&root.config);
	g_assert_cmpint(sqlite3_open(gnt_paths_get_config_db(root.paths), &db), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(db, "DROP TABLE nodegroup; PRAGMA user_version = 2", NULL,
				     NULL, NULL),
			==, SQLITE_OK);
	sqlite3_close(db);

	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	uuid = gnt_config_lookup_group(reopened, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(uuid);
	node = gnt_config_dup_object(reopened, GNT_OBJECT_NODE, "n1.example.com", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(node, "group"), ==, uuid);
	/* an unknown group: the default one */
	lost = gnt_config_dup_object(reopened, GNT_OBJECT_NODE, "n2.example.com", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(lost, "group"), ==, uuid);
	/* the lookups: by name or UUID, none, several */
	g_assert_null(gnt_config_lookup_group(reopened, "nope", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "Node group 'nope' not found");
	g_clear_error(&error);
	add(reopened, GNT_OBJECT_GROUP, "{\"name\": \"rack2\"}");
	g_assert_null(gnt_config_lookup_group(reopened, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	{
		g_autofree gchar *by_name = gnt_config_lookup_group(reopened, "default", &error);
		g_autofree gchar *by_uuid = gnt_config_lookup_group(reopened, uuid, &error);

		g_assert_cmpstr(by_name, ==, uuid);
		g_assert_cmpstr(by_uuid, ==, uuid);
	}
	g_clear_object(&reopened);
	gnt_test_root_clear(&root);
}

/* Instance policies a group may have, and what is refused. */
static void
test_group_ipolicy(void)
{
	static const struct {
		const gchar *json;
		const gchar *error; /* NULL: valid */
	} cases[] = {
		{"{}", NULL},
		{"{\"vcpu-ratio\": 2, \"spindle-ratio\": 0.5, \"disk-templates\": [\"file\"]}",
		 NULL},
		{"{\"std\": {\"memory-size\": 256}}", NULL},
		{"{\"minmax\": [{\"min\": {\"cpu-count\": 1}, \"max\": {\"cpu-count\": 4}}]}",
		 NULL},
		{"{\"colour\": 1}", "Invalid instance policy: unknown key 'colour'"},
		{"{\"vcpu-ratio\": 0}",
		 "Invalid instance policy: 'vcpu-ratio' must be a number > 0"},
		{"{\"std\": {\"memory-size\": -1}}",
		 "Invalid instance policy: 'std/memory-size' must be an integer >= 0"},
		{"{\"std\": {\"ram\": 1}}", "Invalid instance policy: unknown key 'ram' in 'std'"},
		{"{\"minmax\": []}", "Invalid instance policy: 'minmax' must be a non-empty list"},
		{"{\"minmax\": [{\"min\": {}}]}",
		 "Invalid instance policy: 'minmax' element 0 must have exactly 'min' and 'max'"},
		{"{\"disk-templates\": [1]}",
		 "Invalid instance policy: 'disk-templates' must be a list of names"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) node = gnt_json_parse(cases[i].json, -1, NULL);

		if (cases[i].error == NULL) {
			g_assert_true(gnt_group_check_ipolicy(json_node_get_object(node), &error));
			g_assert_no_error(error);
		} else {
			g_assert_false(gnt_group_check_ipolicy(json_node_get_object(node), &error));
			g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
			g_assert_cmpstr(error->message, ==, cases[i].error);
		}
	}
}

/* The cache shares its records' empty {} and []: what it hands out is still
 * the caller's to change, and changing it changes no other record. */
static void
test_shared_empties(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) first = NULL;
	g_autoptr(JsonObject) second = NULL;
	g_autoptr(JsonObject) again = NULL;
	g_autoptr(GntConfig) reopened = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"a.example.com\", \"hvparams\": {}, \"tags\": [],"
	    " \"nics\": [{\"nicparams\": {}}]}");
	add(root.config, GNT_OBJECT_INSTANCE,
	    "{\"name\": \"b.example.com\", \"hvparams\": {}, \"tags\": []}");
	first = gnt_config_dup_object(root.config, GNT_OBJECT_INSTANCE, "a", &error);
	g_assert_no_error(error);
	json_object_set_string_member(json_object_get_object_member(first, "hvparams"), "x", "1");
	json_array_add_string_element(json_object_get_array_member(first, "tags"), "t");
	json_object_set_string_member(
		json_array_get_object_element(json_object_get_array_member(first, "nics"), 0),
		"mode", "bridged");
	g_assert_true(gnt_config_update_object(root.config, GNT_OBJECT_INSTANCE, first, &error));
	g_assert_no_error(error);

	second = gnt_config_dup_object(root.config, GNT_OBJECT_INSTANCE, "b", &error);
	g_assert_no_error(error);
	g_assert_cmpuint(json_object_get_size(json_object_get_object_member(second, "hvparams")),
			 ==, 0);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(second, "tags")), ==,
			 0);
	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	again = gnt_config_dup_object(reopened, GNT_OBJECT_INSTANCE, "a", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(again, "hvparams"), "x"),
			==, "1");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(again, "tags")), ==, 1);
	g_clear_object(&reopened);
	gnt_test_root_clear(&root);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/config/objects/add-lookup-persist", test_add_lookup_persist);
	g_test_add_func("/config/objects/names", test_names);
	g_test_add_func("/config/objects/names-where", test_names_where);
	g_test_add_func("/config/objects/kind-strings", test_kind_strings);
	g_test_add_func("/config/objects/shared-empties", test_shared_empties);
	g_test_add_func("/config/objects/update-and-remove", test_update_and_remove);
	g_test_add_func("/config/objects/schema-1-upgraded", test_schema_1_upgraded);
	g_test_add_func("/config/objects/schema-2-groups", test_schema_2_groups);
	g_test_add_func("/config/objects/group-ipolicy", test_group_ipolicy);
	return g_test_run();
}
