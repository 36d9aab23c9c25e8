/* OP_CLUSTER_SET_PARAMS' merge of the cluster settings
 * (config/gnt-cluster-settings-params.c), which the cluster unit and
 * gnt-cluster init call: what it refuses against the cluster model, what it
 * leaves out, and which volume group it names for the caller to look for. */
#include "config-test-json.h"
#include "gnt-cluster-settings-params.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-test-util.h"

typedef struct {
	GntTestRoot root;
} ParamsFx;

static void
add_instance(GntConfig *config, const gchar *name, const gchar *template)
{
	g_autofree gchar *json = g_strdup_printf(
		"{\"name\": \"%s\", \"primary_node\": \"node1.example.com\", \"os\": \"noop\","
		" \"hypervisor\": \"fake\", \"admin_state\": \"down\", \"disk_template\": \"%s\"}",
		name, template);
	g_autoptr(JsonNode) node = test_json_parse(json);
	g_autoptr(GError) error = NULL;

	g_assert_true(gnt_config_add_object(config, GNT_OBJECT_INSTANCE, json_node_get_object(node),
					    &error));
	g_assert_no_error(error);
}

/* Stores @changes (JSON) as the cluster's settings, as a change would. */
static void
set_settings(GntConfig *config, const gchar *changes)
{
	g_autoptr(JsonNode) node = test_json_parse(changes);
	g_autoptr(GError) error = NULL;

	g_assert_true(gnt_config_set_cluster_settings(config, json_node_get_object(node), &error));
	g_assert_no_error(error);
}

/* The merge of @params (JSON): its changes, the volume group it names in
 * *@vg and its error in *@error. */
static JsonObject *
merge(ParamsFx *fx, const gchar *params, gchar **vg, GError **error)
{
	g_autoptr(JsonNode) node = test_json_parse(params);

	return gnt_cluster_settings_from_params(fx->root.config, json_node_get_object(node), vg,
						error);
}

static void
fx_set_up(ParamsFx *fx, gconstpointer data)
{
	gnt_test_root_init(&fx->root, "node1.example.com");
}

static void
fx_tear_down(ParamsFx *fx, gconstpointer data)
{
	gnt_test_root_clear(&fx->root);
}

/* Plain newly enabled names its volume group; named again, it changes
 * nothing and names none; another volume group is named again. */
static void
test_volume_group(ParamsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *vg = NULL;
	g_autofree gchar *vg_again = NULL;
	g_autofree gchar *vg_other = NULL;
	g_autoptr(JsonObject) changes = NULL;
	g_autoptr(JsonObject) again = NULL;
	g_autoptr(JsonObject) other = NULL;

	changes =
		merge(fx,
		      "{\"enabled_disk_templates\": [\"plain\", \"file\"], \"vg_name\": \"gnt-vg\","
		      " \"mac_prefix\": null}",
		      &vg, &error);
	g_assert_no_error(error);
	g_assert_nonnull(changes);
	g_assert_cmpstr(vg, ==, "gnt-vg");
	g_assert_cmpstr(json_object_get_string_member(changes, "volume_group_name"), ==, "gnt-vg");
	g_assert_true(json_object_has_member(changes, "enabled_disk_templates"));
	g_assert_false(json_object_has_member(changes, "mac_prefix"));

	set_settings(fx->root.config, "{\"enabled_disk_templates\": [\"plain\", \"file\"],"
				      " \"volume_group_name\": \"gnt-vg\"}");
	again = merge(
		fx, "{\"enabled_disk_templates\": [\"plain\", \"file\"], \"vg_name\": \"gnt-vg\"}",
		&vg_again, &error);
	g_assert_no_error(error);
	g_assert_nonnull(again);
	g_assert_cmpuint(json_object_get_size(again), ==, 0);
	g_assert_null(vg_again);

	other = merge(fx, "{\"vg_name\": \"gnt-vg2\"}", &vg_other, &error);
	g_assert_no_error(error);
	g_assert_nonnull(other);
	g_assert_cmpstr(vg_other, ==, "gnt-vg2");
}

/* A disk template instances use stays enabled; the message lists them. */
static void
test_template_in_use(ParamsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *vg = NULL;
	g_autoptr(JsonObject) changes = NULL;

	add_instance(fx->root.config, "web1.example.com", "file");
	changes = merge(fx, "{\"enabled_disk_templates\": [\"diskless\"]}", &vg, &error);
	g_assert_null(changes);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"Cannot disable disk template 'file', because there is at least one disk "
			"using it:\n * instance web1.example.com");
	g_assert_null(vg);
}

/* LVM stays while a plain instance exists, even with plain disabled. */
static void
test_lvm_in_use(ParamsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *vg = NULL;
	g_autoptr(JsonObject) changes = NULL;
	g_autoptr(JsonObject) without_plain = NULL;

	set_settings(fx->root.config, "{\"volume_group_name\": \"gnt-vg\"}");
	without_plain = merge(fx, "{\"vg_name\": \"\"}", &vg, &error);
	g_assert_no_error(error);
	g_assert_nonnull(without_plain);
	g_assert_true(
		JSON_NODE_HOLDS_NULL(json_object_get_member(without_plain, "volume_group_name")));

	add_instance(fx->root.config, "db1.example.com", "plain");
	changes = merge(fx, "{\"vg_name\": \"\"}", &vg, &error);
	g_assert_null(changes);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"Cannot disable lvm storage while lvm-based instances exist");
	g_assert_null(vg);
}

/* The install policy (doc/install.md, "Cluster policy"): the denied steps
 * replaced, the priorities merged ("default" removes one, the CLI's
 * digits are typed), both checked against the step registry. */
static void
test_install_policy(ParamsFx *fx, gconstpointer data)
{
	static const struct {
		const gchar *params;
		const gchar *error;
	} refused[] = {
		{"{\"install_denied_steps\": [\"deploy.raid\"]}",
		 "denied install steps: unknown install step 'deploy.raid' (gnt-os list-steps "
		 "lists them)"},
		{"{\"install_step_priorities\": {\"deploy.run_os_scripts\": \"85\"}}",
		 "install step priorities: deploy.run_os_scripts (85) must stay below "
		 "deploy.write_image (80): core steps keep their order"},
		{"{\"install_step_priorities\": {\"deploy.boot\": \"soon\"}}",
		 "install step priorities: deploy.boot: give an integer (0..999) or \"default\""},
		{"{\"install_step_priorities\": {\"deploy.boot\": \"1000\"}}",
		 "install step priorities: deploy.boot: give an integer (0..999) or \"default\""},
		{"{\"install_step_priorities\": {\"deploy.resize_disk\": 50}}",
		 "install step priorities: deploy.resize_disk needs the argument 'disk', which only "
		 "a template gives: it cannot run by default"},
	};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *vg = NULL;
	g_autoptr(JsonObject) changes = NULL;
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;

	changes = merge(fx,
			"{\"install_denied_steps\": [\"deploy.resize_disk\"],"
			" \"install_step_priorities\": {\"deploy.run_os_scripts\": \"75\","
			" \"deploy.boot\": 0}}",
			&vg, &error);
	g_assert_no_error(error);
	node = gnt_json_node_new_object(json_object_ref(changes));
	text = gnt_json_to_string(node);
	g_assert_cmpstr(text, ==,
			"{\"install_denied_steps\":[\"deploy.resize_disk\"],"
			"\"install_step_priorities\":{\"deploy.run_os_scripts\":75,"
			"\"deploy.boot\":0}}");
	set_settings(fx->root.config, text);
	/* merged: one removed, one kept, one added */
	g_clear_pointer(&changes, json_object_unref);
	g_clear_pointer(&node, json_node_unref);
	g_clear_pointer(&text, g_free);
	changes = merge(fx,
			"{\"install_step_priorities\": {\"deploy.boot\": \"default\","
			" \"deploy.switch_networks\": 25}}",
			&vg, &error);
	g_assert_no_error(error);
	node = gnt_json_node_new_object(json_object_ref(changes));
	text = gnt_json_to_string(node);
	g_assert_cmpstr(text, ==,
			"{\"install_step_priorities\":{\"deploy.run_os_scripts\":75,"
			"\"deploy.switch_networks\":25}}");
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) local = NULL;
		g_autoptr(JsonObject) none = merge(fx, refused[i].params, &vg, &local);

		g_assert_null(none);
		g_assert_error(local, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(local->message, ==, refused[i].error);
	}
}

/* The stored value of the setting @key. (transfer full) */
static gchar *
dup_setting(GntConfig *config, const gchar *key)
{
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(config);

	return g_strdup(json_object_get_string_member(cluster->settings, key));
}

/* The table's validation hooks: default_ks_template takes what
 * --ks-template takes, a file:// one only under kickstart_dir (also when
 * kickstart_dir changes later or in the same call); a refusal names the
 * setting and its option, and the stored values stay. */
static void
test_kickstart_sources(ParamsFx *fx, gconstpointer data)
{
	g_autofree gchar *dir = dup_setting(fx->root.config, "kickstart_dir");
	g_autofree gchar *inside = g_strdup_printf("file://%s/rhel9.ks", dir);
	g_autofree gchar *set_inside = g_strdup_printf("{\"default_ks_template\": \"%s\"}", inside);
	g_autofree gchar *dot_dot =
		g_strdup_printf("{\"default_ks_template\": \"file://%s/../../shadow\"}", dir);
	g_autofree gchar *the_dir =
		g_strdup_printf("{\"default_ks_template\": \"file://%s\"}", dir);
	g_autofree gchar *not_under = g_strdup_printf(
		"setting 'default_ks_template' (--default-ks-template): kickstart template "
		"'file:///etc/shadow' is not under the cluster's kickstart directory '%s'",
		dir);
	g_autofree gchar *the_dir_error = g_strdup_printf(
		"setting 'default_ks_template' (--default-ks-template): kickstart template "
		"'file://%s' is not under the cluster's kickstart directory '%s'",
		dir, dir);
	g_autofree gchar *moved_error = g_strdup_printf(
		"setting 'kickstart_dir' (--kickstart-dir): kickstart template '%s' is not under "
		"the cluster's kickstart directory '/srv/ks'",
		inside);
	/* GUri folds the dot segments: what is left is outside */
	g_autofree gchar *dot_dot_error = g_strdup_printf(
		"setting 'default_ks_template' (--default-ks-template): kickstart template "
		"'file://%s/../../shadow' is not under the cluster's kickstart directory '%s'",
		dir, dir);
	const struct {
		const gchar *params;
		const gchar *error;
	} refused[] = {
		{"{\"default_ks_template\": \"file:///etc/shadow\"}", not_under},
		{dot_dot, dot_dot_error},
		{the_dir, the_dir_error},
		{"{\"default_ks_template\": \"file://../..\"}",
		 "setting 'default_ks_template' (--default-ks-template): kickstart template "
		 "'file://../..': file:// takes an absolute path on the master (file:///PATH) under "
		 "the cluster's kickstart directory"},
		{"{\"default_ks_template\": \"ftp://ks.example.com/a.ks\"}",
		 "setting 'default_ks_template' (--default-ks-template): kickstart template "
		 "'ftp://ks.example.com/a.ks' is neither file:///PATH, an http(s) URL nor "
		 "'default'"},
		{"{\"default_ks_template\": \"https://u:pw@ks.example.com/a.ks\"}",
		 "setting 'default_ks_template' (--default-ks-template): a kickstart template URL "
		 "must not hold credentials (they would show in logs and records)"},
		{"{\"kickstart_dir\": \"srv/ks\"}",
		 "setting 'kickstart_dir' (--kickstart-dir): the kickstart directory 'srv/ks' is "
		 "not an absolute path"},
		/* a file:// default stays under the directory when it moves */
		{"{\"kickstart_dir\": \"/srv/ks\"}", moved_error},
	};
	static const gchar *const accepted[] = {
		"{\"default_ks_template\": \"https://ks.example.com/rhel9.ks\"}",
		"{\"default_ks_template\": \"default\"}",
		"{\"default_ks_template\": \"\"}",
		/* both at once: checked against the new directory */
		("{\"kickstart_dir\": \"/srv/ks\", \"default_ks_template\": "
		 "\"file:///srv/ks/sub/rhel9.ks\"}"),
	};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *vg = NULL;
	g_autoptr(JsonObject) changes = NULL;

	changes = merge(fx, set_inside, &vg, &error);
	g_assert_no_error(error);
	g_assert_nonnull(changes);
	g_assert_cmpstr(json_object_get_string_member(changes, "default_ks_template"), ==, inside);
	set_settings(fx->root.config, set_inside);
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) local = NULL;
		g_autofree gchar *vg_none = NULL;
		g_autoptr(JsonObject) none = merge(fx, refused[i].params, &vg_none, &local);
		g_autofree gchar *stored = dup_setting(fx->root.config, "default_ks_template");
		g_autofree gchar *stored_dir = dup_setting(fx->root.config, "kickstart_dir");

		g_test_message("refused: %s", refused[i].params);
		g_assert_null(none);
		g_assert_error(local, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_cmpstr(local->message, ==, refused[i].error);
		g_assert_cmpstr(stored, ==, inside);
		g_assert_cmpstr(stored_dir, ==, dir);
	}
	for (guint i = 0; i < G_N_ELEMENTS(accepted); i++) {
		g_autoptr(GError) local = NULL;
		g_autofree gchar *vg_none = NULL;
		g_autoptr(JsonObject) some = merge(fx, accepted[i], &vg_none, &local);

		g_test_message("accepted: %s", accepted[i]);
		g_assert_no_error(local);
		g_assert_nonnull(some);
		g_assert_true(json_object_has_member(some, "default_ks_template") ||
			      json_object_has_member(some, "kickstart_dir"));
	}
}

/* Ganeti's -B values as gnt-cluster modify and gnt-instance add/modify
 * give them: the one parser both use types them or names what is wrong. */
static void
test_beparams(void)
{
	static const struct {
		const gchar *given;
		gboolean allow_default;
		const gchar *typed; /* or NULL */
		const gchar *error;
	} cases[] = {
		{"{\"memory\": \"1G\", \"vcpus\": \"2\", \"auto_balance\": \"no\"}", FALSE,
		 "{\"maxmem\": 1024, \"minmem\": 1024, \"vcpus\": 2, \"auto_balance\": false}",
		 NULL},
		{"{\"maxmem\": 512, \"spindle_use\": 0, \"always_failover\": true}", FALSE,
		 "{\"maxmem\": 512, \"spindle_use\": 0, \"always_failover\": true}", NULL},
		{"{\"memory\": \"default\", \"vcpus\": \"default\"}", TRUE,
		 "{\"maxmem\": \"default\", \"minmem\": \"default\", \"vcpus\": \"default\"}",
		 NULL},
		{"{\"vcpus\": \"default\"}", FALSE, NULL,
		 "backend parameter 'vcpus' must be a number from 1 to 1024"},
		{"{\"colour\": \"default\"}", TRUE, NULL, "unknown backend parameter 'colour'"},
		{"{\"maxmem\": \"lots\"}", FALSE, NULL,
		 "backend parameter 'maxmem': invalid size 'lots': expected a number of MiB, "
		 "optionally followed by"},
		{"{\"minmem\": \"0\"}", FALSE, NULL,
		 "backend parameter 'minmem' must be a size (512M, 2G, ...), not 0"},
		{"{\"maxmem\": [1]}", FALSE, NULL,
		 "backend parameter 'maxmem' must be a size (512M, 2G, ...)"},
		{"{\"vcpus\": 1025}", FALSE, NULL,
		 "backend parameter 'vcpus' must be a number from 1 to 1024"},
		{"{\"spindle_use\": -1}", FALSE, NULL,
		 "backend parameter 'spindle_use' must be a number from 0 to 1024"},
		{"{\"auto_balance\": \"maybe\"}", FALSE, NULL,
		 "backend parameter 'auto_balance' must be a boolean"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(JsonNode) given = test_json_parse(cases[i].given);
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonObject) typed = gnt_beparams_parse(json_node_get_object(given),
								 cases[i].allow_default, &error);

		g_test_message("%s", cases[i].given);
		if (cases[i].typed != NULL) {
			g_autoptr(JsonNode) got = json_node_init_object(json_node_alloc(), typed);

			g_assert_no_error(error);
			test_json_assert_text(got, cases[i].typed);
		} else {
			g_assert_null(typed);
			g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
			g_assert_true(g_str_has_prefix(error->message, cases[i].error));
		}
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/cluster-settings-params/beparams", test_beparams);
	g_test_add("/cluster-settings-params/install-policy", ParamsFx, NULL, fx_set_up,
		   test_install_policy, fx_tear_down);
	g_test_add("/cluster-settings-params/volume-group", ParamsFx, NULL, fx_set_up,
		   test_volume_group, fx_tear_down);
	g_test_add("/cluster-settings-params/template-in-use", ParamsFx, NULL, fx_set_up,
		   test_template_in_use, fx_tear_down);
	g_test_add("/cluster-settings-params/lvm-in-use", ParamsFx, NULL, fx_set_up,
		   test_lvm_in_use, fx_tear_down);
	g_test_add("/cluster-settings-params/kickstart-sources", ParamsFx, NULL, fx_set_up,
		   test_kickstart_sources, fx_tear_down);
	return g_test_run();
}
