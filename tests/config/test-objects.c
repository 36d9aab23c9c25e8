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

/* What the cache hands out is exactly what was stored: members no typed
 * record knows, empty and non-empty parameters, nested values of every
 * kind, large numbers and long strings (shared or not), in the cache and
 * read back from the database. */
static const gchar round_trip_json[] =
	"{\"name\": \"rt.example.com\", \"hypervisor\": \"fake\", \"os\": null,"
	" \"hvparams\": {}, \"beparams\": {\"memory\": 512, \"vcpus\": 2},"
	" \"osparams\": {\"a\": {\"b\": [1, 2.5, null, true, \"x\"]}},"
	" \"osparams_private\": {}, \"tags\": [], \"disks\": [{\"size\": 1048576,"
	" \"mode\": \"rw\", \"unknown_disk_member\": {}}],"
	" \"nics\": [{\"mac\": \"aa:00:00:00:00:01\", \"ip\": null, \"nicparams\": {}}],"
	" \"network_port\": null, \"disks_active\": false, \"admin_state\": \"up\","
	" \"x_unknown\": {\"list\": [[], {}, -1, 1025, 0.5, 12345678901234],"
	" \"long\": \""
	"0123456789012345678901234567890123456789012345678901234567890123456789\"},"
	" \"x_empty\": \"\"}";

static void
assert_round_trip(GntConfig *config, JsonObject *stored)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject)
		found = gnt_config_dup_object(config, GNT_OBJECT_INSTANCE, "rt", &error);
	g_autoptr(GPtrArray) all = gnt_config_dup_objects(config, GNT_OBJECT_INSTANCE);
	g_autoptr(JsonNode) want = NULL;
	g_autoptr(JsonNode) got = NULL;

	g_assert_no_error(error);
	g_assert_cmpuint(all->len, ==, 1);
	g_assert_true(json_object_equal(found, g_ptr_array_index(all, 0)));
	g_assert_true(g_uuid_string_is_valid(json_object_get_string_member(found, "uuid")));
	g_assert_cmpint(json_object_get_int_member(found, "serial_no"), ==, 1);
	g_assert_true(json_object_has_member(found, "ctime"));
	g_assert_true(json_object_has_member(found, "mtime"));
	for (guint i = 0; i < 4; i++) {
		static const gchar *const bookkeeping[] = {"uuid", "serial_no", "ctime", "mtime"};

		json_object_remove_member(found, bookkeeping[i]);
	}
	want = gnt_json_node_new_object(json_object_ref(stored));
	got = gnt_json_node_new_object(json_object_ref(found));
	if (!json_node_equal(want, got)) {
		g_autofree gchar *want_text = gnt_json_to_string(want);
		g_autofree gchar *got_text = gnt_json_to_string(got);

		g_assert_cmpstr(got_text, ==, want_text);
	}
}

static void
test_round_trip(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) stored = record(round_trip_json);
	g_autoptr(GntConfig) reopened = NULL;

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_INSTANCE, round_trip_json);
	assert_round_trip(root.config, stored);
	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	assert_round_trip(reopened, stored);
	g_clear_object(&reopened);
	gnt_test_root_clear(&root);
}

/* An instance as the create unit writes it, with one member the typed
 * record does not know. */
static const gchar typed_json[] =
	"{\"name\": \"typed.example.com\", \"primary_node\": \"0c4e7f4e-9d2b-4a57-8d43-3f1d2f0b1a11\","
	" \"os\": null, \"hypervisor\": \"fake\", \"hvparams\": {}, \"beparams\": {\"maxmem\": 512},"
	" \"osparams\": {}, \"osparams_private\": {}, \"admin_state\": \"down\","
	" \"admin_state_source\": \"admin\", \"disk_template\": \"diskless\", \"disks\": [],"
	" \"nics\": [], \"tags\": [\"a\"], \"network_port\": null, \"disks_active\": false,"
	" \"communication\": false, \"communication_nic\": {\"mac\": \"aa:00:00:75:af:c4\","
	" \"ip\": \"169.254.26.40\"}, \"x_unknown\": [1, {\"b\": null}]}";

typedef struct {
	guint typed;
	guint json;
} TypedCount;

static gboolean
count_typed_cb(GntConfigRecord *record, gpointer user_data)
{
	TypedCount *count = user_data;
	const GntInstance *instance = gnt_config_record_peek_instance(record);

	if (instance == NULL) {
		count->json++;
		return TRUE;
	}
	count->typed++;
	g_assert_cmpstr(instance->name, ==, "typed.example.com");
	g_assert_cmpstr(gnt_config_record_get_name(record), ==, "typed.example.com");
	g_assert_cmpstr(instance->communication_ip, ==, "169.254.26.40");
	g_assert_nonnull(gnt_config_record_peek_other(record, "x_unknown"));
	g_assert_null(gnt_config_record_peek_other(record, "hypervisor"));
	g_assert_cmpstr(json_object_get_string_member(gnt_config_record_peek_json(record),
						      "hypervisor"),
			==, "fake");
	return TRUE;
}

/* The cache keeps an instance typed when the typed record gives back
 * exactly what was stored (members it does not know kept beside it), and
 * as JSON otherwise (round_trip_json has no primary node); both come back
 * as stored, from the cache and from config.db. */
static void
test_typed_instances(void)
{
	GntTestRoot root;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) stored = record(typed_json);
	g_autoptr(GntConfig) reopened = NULL;
	GntConfig *configs[2];

	gnt_test_root_init(&root, "node1.example.com");
	add(root.config, GNT_OBJECT_INSTANCE, typed_json);
	add(root.config, GNT_OBJECT_INSTANCE, round_trip_json);
	reopened = gnt_config_open(gnt_paths_get_config_db(root.paths), &error);
	g_assert_no_error(error);
	configs[0] = root.config;
	configs[1] = reopened;
	for (guint i = 0; i < G_N_ELEMENTS(configs); i++) {
		g_autoptr(JsonObject) found =
			gnt_config_dup_object(configs[i], GNT_OBJECT_INSTANCE, "typed", &error);
		g_autoptr(GPtrArray) on_node =
			gnt_config_dup_names_where(configs[i], GNT_OBJECT_INSTANCE, "primary_node",
						   "0c4e7f4e-9d2b-4a57-8d43-3f1d2f0b1a11");
		g_autoptr(JsonNode) want = gnt_json_node_new_object(json_object_ref(stored));
		g_autoptr(JsonNode) got = NULL;
		TypedCount count = {0, 0};

		g_assert_no_error(error);
		gnt_config_foreach_record(configs[i], GNT_OBJECT_INSTANCE, count_typed_cb, &count);
		g_assert_cmpuint(count.typed, ==, 1);
		g_assert_cmpuint(count.json, ==, 1);
		g_assert_cmpuint(on_node->len, ==, 1);
		g_assert_cmpstr(g_ptr_array_index(on_node, 0), ==, "typed.example.com");
		g_assert_cmpint(json_object_get_int_member(found, "serial_no"), ==, 1);
		for (guint k = 0; k < 4; k++) {
			static const gchar *const bookkeeping[] = {"uuid", "serial_no", "ctime",
								   "mtime"};

			json_object_remove_member(found, bookkeeping[k]);
		}
		got = gnt_json_node_new_object(json_object_ref(found));
		if (!json_node_equal(want, got)) {
			g_autofree gchar *want_text = gnt_json_to_string(want);
			g_autofree gchar *got_text = gnt_json_to_string(got);

			g_assert_cmpstr(got_text, ==, want_text);
		}
	}
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
	g_test_add_func("/config/objects/round-trip", test_round_trip);
	g_test_add_func("/config/objects/typed-instances", test_typed_instances);
	g_test_add_func("/config/objects/update-and-remove", test_update_and_remove);
	g_test_add_func("/config/objects/schema-1-upgraded", test_schema_1_upgraded);
	g_test_add_func("/config/objects/schema-2-groups", test_schema_2_groups);
	g_test_add_func("/config/objects/group-ipolicy", test_group_ipolicy);
	return g_test_run();
}
