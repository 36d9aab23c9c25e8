/* The image catalog's opcodes and units (doc/images.md), run by the job
 * queue against a scripted node (tests/rpc/fake-node.h): what each
 * parameter accepts and refuses, add, set-params and remove, an instance
 * created and reinstalled with --os-image NAME, and a removal refused
 * while an instance names the image. */
#include "queue-fixture.h"

#include "fake-node.h"
#include "gnt-config-images.h"

#define SHA_A	    "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
#define SHA_B	    "a2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a488"
#define SHA_B_UPPER "A2D711642B726B04401627CA9FBAC32F5C8530FB1903CC4DB02258717921A488"
#define ADD_ROCKY                                                                                  \
	"{\"image_name\": \"rocky-9\", \"url\": \"https://images.example.com/r9.qcow2\", "         \
	"\"format\": \"qcow2\", \"sha256\": \"" SHA_A "\""
#define WRITE_ANSWER                                                                               \
	"{\"format\": \"qcow2\", \"image_bytes\": 1, \"virtual_bytes\": 1, \"disk_bytes\": 1, "    \
	"\"seconds\": 0.1, \"write_seconds\": 0.1, \"mb_per_s\": 1.0, \"sha256\": null, "          \
	"\"cache\": \"filled\"}"
#define CREATE_WEB1                                                                                \
	"{\"instance_name\": \"web1\", \"mode\": \"create\", \"disk_template\": \"file\", "        \
	"\"disks\": [{\"size\": 1024}], \"nics\": [], \"start\": false"

typedef struct {
	QueueFx q;
	FakeNode *nodes;
} ImageFx;

static void
fx_set_up(ImageFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) node = json_object_new();
	g_autoptr(GError) error = NULL;

	fx->nodes = fake_node_new();
	fake_node_answer(fx->nodes, "image_write", WRITE_ANSWER);
	gnt_test_root_init(&fx->q.root, "node1.example.com");
	fx->q.env.config = fx->q.root.config;
	fx->q.env.paths = fx->q.root.paths;
	fx->q.env.rpc = fake_node_get_client(fx->nodes);
	json_object_set_string_member(node, "name", "node1.example.com");
	json_object_set_string_member(node, "primary_ip", "192.0.2.1");
	g_assert_true(gnt_config_add_object(fx->q.root.config, GNT_OBJECT_NODE, node, &error));
	queue_fx_open(&fx->q);
	gnt_queue_start(fx->q.queue);
}

static void
fx_tear_down(ImageFx *fx, gconstpointer data)
{
	queue_fx_tear_down(&fx->q, data);
	g_clear_pointer(&fx->nodes, fake_node_free);
}

/* Runs one opcode: "success", or the error message. (transfer full) */
static gchar *
run(ImageFx *fx, const gchar *op_id, const gchar *params)
{
	guint64 id = queue_fx_submit(&fx->q, queue_fx_job(op_id, params, NULL));
	g_autofree gchar *status = queue_fx_wait_final(&fx->q, id);
	g_autoptr(JsonObject) record = queue_fx_record(&fx->q, id);
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	JsonNode *result = json_object_get_member(op, "result");

	if (g_strcmp0(status, "success") == 0)
		return g_strdup(status);
	return g_strdup(json_array_get_string_element(
		json_array_get_array_element(json_node_get_array(result), 1), 0));
}

static void
expect_run(ImageFx *fx, const gchar *op_id, const gchar *params, const gchar *needle)
{
	g_autofree gchar *outcome = run(fx, op_id, params);

	if (strstr(outcome, needle) == NULL)
		g_error("'%s' is not in '%s'", needle, outcome);
}

static void
add_rocky(ImageFx *fx)
{
	expect_run(fx, "OP_IMAGE_ADD",
		   ADD_ROCKY ", \"os_distro\": \"Rocky\", \"os_version\": \"9.4\", "
			     "\"ks_template\": \"file:///etc/gantry/ks/rocky.ks\", "
			     "\"installer_memory\": 2048}",
		   "success");
}

/* ---- the parameters: each refused at submission, naming it ---- */

static void
expect_parse_error(const gchar *op_id, const gchar *params, const gchar *needle)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntOpcode) op = gnt_opcode_new_from_string(op_id, params, &error);

	g_assert_null(op);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	if (strstr(error->message, needle) == NULL)
		g_error("'%s' is not in '%s'", needle, error->message);
}

static void
test_parameters(void)
{
	static const struct {
		const gchar *extra; /* members after ADD_ROCKY's, or replacing them */
		const gchar *needle;
	} refused[] = {
		{", \"url\": \"https://ops:s3cret@images.example.com/r9.qcow2\"}",
		 "credentials in a URL are refused (anyone who may list images would see them): "
		 "'https://images.example.com/r9.qcow2'"},
		{", \"url\": \"ftp://images.example.com/r9.qcow2\"}", "image url: 'ftp://"},
		{", \"url\": \"relative/r9.qcow2\"}", "must be an absolute path on the nodes or a"},
		{", \"url\": \"/srv/images/../../etc/shadow\"}",
		 "must be a normalised absolute path"},
		{", \"url\": \"https:///r9.qcow2\"}", "names no host"},
		{", \"format\": \"vmdk\"}", "'format' must be one of raw, qcow2, tarball"},
		{", \"sha256\": \"abc\"}", "image sha256: 'abc' must be 64 hexadecimal digits"},
		{", \"size\": 0}", "image size: 0 must be a number of bytes >= 1"},
		{", \"size\": \"1G\"}", "'size'"},
		{", \"os_distro\": \"Rocky Linux\"}", "image os_distro: 'Rocky Linux' must be"},
		{", \"os_version\": \"\"}", "image os_version: '' must be"},
		{", \"installer_kernel\": \"tftp://x/vmlinuz\"}", "image installer_kernel:"},
		{", \"installer_initrd\": \"http://u@x/initrd\"}", "credentials in a URL"},
		{", \"installer_stage2\": \"stage2\"}", "image installer_stage2:"},
		{", \"ks_template\": \"/etc/gantry/ks/rocky.ks\"}",
		 "image ks_template: '/etc/gantry/ks/rocky.ks' must be a URL (file, http, https)"},
		{", \"ks_template\": \"file://host/ks\"}", "a file:// URL names no host"},
		{", \"installer_memory\": 64}", "64 MiB is not between 256 and 1048576 MiB"},
		{", \"installer_kernel_args\": \"a\\nb\"}", "printable ASCII on one line"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autofree gchar *params = g_strconcat(ADD_ROCKY, refused[i].extra, NULL);

		expect_parse_error("OP_IMAGE_ADD", params, refused[i].needle);
	}
	expect_parse_error("OP_IMAGE_ADD",
			   "{\"image_name\": \"a/b\", \"url\": \"/x\", "
			   "\"format\": \"raw\", \"sha256\": \"" SHA_A "\"}",
			   "invalid image name 'a/b'");
	/* the image itself is required to add, not to change */
	expect_parse_error("OP_IMAGE_ADD", "{\"image_name\": \"x\", \"format\": \"raw\"}", "url");
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(GntOpcode) op = gnt_opcode_new_from_string(
			"OP_IMAGE_SET_PARAMS", "{\"image_name\": \"x\", \"os_version\": \"10\"}",
			&error);

		g_assert_no_error(error);
		g_assert_nonnull(op);
	}
}

/* The record checks (the units' last word, and what a config holds). */
static void
test_record_check(void)
{
	static const gchar *const bad[] = {
		"{\"name\": \"x\", \"url\": \"/x\", \"format\": \"raw\"}",
		"{\"name\": \"x\", \"url\": \"/x\", \"format\": \"raw\", \"sha256\": \"" SHA_A
		"\", \"colour\": \"red\"}",
		"{\"name\": \"x\", \"url\": \"/x\", \"format\": \"raw\", \"sha256\": \"" SHA_A
		"\", \"properties\": {\"url\": \"/y\"}}",
		"{\"name\": \"x\", \"url\": \"/x\", \"format\": \"raw\", \"sha256\": \"" SHA_A
		"\", \"properties\": {\"installer_memory\": \"2G\"}}",
	};
	static const gchar *const needles[] = {
		"image 'x': its sha256 is missing",
		"image 'x': unknown image key 'colour'",
		"image 'x': unknown image property 'url'",
		"image 'x': image installer_memory: must be an integer, not string",
	};
	g_autoptr(JsonNode) good = gnt_json_parse(
		"{\"name\": \"x\", \"uuid\": \"u\", \"serial_no\": 1, \"url\": \"/x\", \"format\": "
		"\"raw\", \"sha256\": \"" SHA_A "\", \"size\": null, \"properties\": "
		"{\"os_distro\": \"Fedora\", \"installer_memory\": 4096}}",
		-1, NULL);
	g_autoptr(GError) error = NULL;

	g_assert_true(gnt_image_record_check(json_node_get_object(good), &error));
	g_assert_no_error(error);
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(JsonNode) record = gnt_json_parse(bad[i], -1, NULL);
		g_autoptr(GError) local = NULL;

		g_assert_false(gnt_image_record_check(json_node_get_object(record), &local));
		g_assert_cmpstr(local->message, ==, needles[i]);
	}
	g_assert_true(gnt_image_is_name("rocky-9.4_x"));
	g_assert_false(gnt_image_is_name("/srv/r.qcow2"));
	g_assert_false(gnt_image_is_name("http://x/r.qcow2"));
	g_assert_false(gnt_image_is_name(".hidden"));
}

/* ---- the units ---- */

static void
test_add_modify(ImageFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) image = NULL;
	g_autoptr(JsonObject) changed = NULL;
	JsonObject *properties;

	add_rocky(fx);
	image = gnt_config_dup_image(fx->q.root.config, "rocky-9");
	g_assert_nonnull(image);
	g_assert_cmpstr(json_object_get_string_member(image, "url"), ==,
			"https://images.example.com/r9.qcow2");
	g_assert_cmpstr(json_object_get_string_member(image, "sha256"), ==, SHA_A);
	properties = json_object_get_object_member(image, "properties");
	g_assert_cmpstr(json_object_get_string_member(properties, "os_distro"), ==, "Rocky");
	g_assert_cmpint(json_object_get_int_member(properties, "installer_memory"), ==, 2048);
	g_assert_cmpstr(json_object_get_string_member(properties, "ks_template"), ==,
			"file:///etc/gantry/ks/rocky.ks");
	/* exact names only: no short name, no prefix */
	g_assert_null(gnt_config_dup_image(fx->q.root.config, "rocky"));
	g_assert_null(gnt_config_dup_image(fx->q.root.config, "nope"));

	expect_run(fx, "OP_IMAGE_ADD", ADD_ROCKY "}", "image 'rocky-9' already exists");
	expect_run(fx, "OP_IMAGE_SET_PARAMS", "{\"image_name\": \"rocky-9\"}",
		   "Please pass at least one modification");
	expect_run(fx, "OP_IMAGE_SET_PARAMS",
		   "{\"image_name\": \"rocky-9\", \"remove_properties\": [\"url\"]}",
		   "cannot remove 'url': it is not an image property");
	expect_run(fx, "OP_IMAGE_SET_PARAMS",
		   "{\"image_name\": \"rocky-9\", \"os_version\": \"9.5\", "
		   "\"remove_properties\": [\"os_version\"]}",
		   "property 'os_version' is both set and removed");
	expect_run(fx, "OP_IMAGE_SET_PARAMS", "{\"image_name\": \"nope\", \"os_version\": \"9.5\"}",
		   "image 'nope' does not exist");
	/* upper-case checksums are stored as the writer compares them */
	expect_run(
		fx, "OP_IMAGE_SET_PARAMS",
		"{\"image_name\": \"rocky-9\", \"os_version\": \"9.5\", \"sha256\": \"" SHA_B_UPPER
		"\", \"remove_properties\": [\"ks_template\"]}",
		"success");
	changed = gnt_config_dup_image(fx->q.root.config, "rocky-9");
	properties = json_object_get_object_member(changed, "properties");
	g_assert_cmpstr(json_object_get_string_member(properties, "os_version"), ==, "9.5");
	g_assert_false(json_object_has_member(properties, "ks_template"));
	g_assert_cmpstr(json_object_get_string_member(changed, "sha256"), ==, SHA_B);
	g_assert_cmpint(json_object_get_int_member(changed, "serial_no"), ==,
			json_object_get_int_member(image, "serial_no") + 1);
}

static void
test_os_image_name(ImageFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) web1 = NULL;
	JsonObject *install;
	const FakeCall *call;

	add_rocky(fx);
	/* without its kickstart template: a ks_template makes an install a
	 * kickstart install (doc/kickstart.md); this one writes the image */
	expect_run(fx, "OP_IMAGE_SET_PARAMS",
		   "{\"image_name\": \"rocky-9\", \"remove_properties\": [\"ks_template\"]}",
		   "success");
	expect_run(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 ", \"os_image\": \"nope\"}",
		   "OS image 'nope' is neither an absolute path on the node, an http(s) URL nor "
		   "an image of the catalog (gnt-image list)");
	expect_run(fx, "OP_INSTANCE_CREATE",
		   CREATE_WEB1 ", \"os_image\": \"rocky-9\", \"os_image_sha256\": \"" SHA_B "\"}",
		   "the SHA-256 given (" SHA_B ") is not the one of image 'rocky-9'");
	g_assert_null(gnt_config_dup_object(fx->q.root.config, GNT_OBJECT_INSTANCE, "web1", NULL));
	fake_node_clear_calls(fx->nodes);

	/* the node is asked to write the catalog's URL, checked against its
	 * SHA-256, through its artifact cache of the setting's size */
	expect_run(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 ", \"os_image\": \"rocky-9\"}", "success");
	call = fake_node_find_call(fx->nodes, "image_write", 1);
	g_assert_nonnull(call);
	g_assert_cmpstr(gnt_rpc_args_get_string(call->args, "image"), ==,
			"https://images.example.com/r9.qcow2");
	g_assert_cmpstr(gnt_rpc_args_get_string(call->args, "sha256"), ==, SHA_A);
	g_assert_cmpuint(gnt_rpc_args_get_uint(call->args, "cache_bytes"), ==,
			 20480ULL * 1024 * 1024);
	web1 = gnt_config_dup_object(fx->q.root.config, GNT_OBJECT_INSTANCE, "web1", NULL);
	install = json_object_get_object_member(web1, "install");
	g_assert_cmpstr(json_object_get_string_member(install, GNT_IMAGE_INSTALL_KEY), ==,
			"rocky-9");
	g_assert_cmpstr(json_object_get_string_member(install, "os_image"), ==,
			"https://images.example.com/r9.qcow2");

	/* named: not removed, the instance named */
	expect_run(fx, "OP_IMAGE_REMOVE", "{\"image_name\": \"rocky-9\"}",
		   "image 'rocky-9' is named by the install parameters of instance web1; "
		   "reinstall it from another image first");
	g_assert_nonnull(gnt_config_dup_image(fx->q.root.config, "rocky-9"));

	/* reinstalled from a path: the name goes, and so may the image */
	expect_run(fx, "OP_INSTANCE_REINSTALL",
		   "{\"instance_name\": \"web1\", \"os_image\": \"/srv/images/other.raw\"}",
		   "success");
	g_clear_pointer(&web1, json_object_unref);
	web1 = gnt_config_dup_object(fx->q.root.config, GNT_OBJECT_INSTANCE, "web1", NULL);
	install = json_object_get_object_member(web1, "install");
	g_assert_false(json_object_has_member(install, GNT_IMAGE_INSTALL_KEY));
	expect_run(fx, "OP_IMAGE_REMOVE", "{\"image_name\": \"rocky-9\"}", "success");
	g_assert_null(gnt_config_dup_image(fx->q.root.config, "rocky-9"));
	expect_run(fx, "OP_IMAGE_REMOVE", "{\"image_name\": \"rocky-9\"}",
		   "image 'rocky-9' does not exist");
}

/* A tarball is for installers (liveimg), not for a disk. */
static void
test_tarball_refused(ImageFx *fx, gconstpointer data)
{
	expect_run(fx, "OP_IMAGE_ADD",
		   "{\"image_name\": \"rootfs\", \"url\": \"http://x.example.com/root.tar.gz\", "
		   "\"format\": \"tarball\", \"sha256\": \"" SHA_A "\"}",
		   "success");
	expect_run(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 ", \"os_image\": \"rootfs\"}",
		   "image 'rootfs' is a root filesystem tarball: only raw and qcow2 images are "
		   "written onto a disk");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	g_test_add_func("/lu-image/parameters", test_parameters);
	g_test_add_func("/lu-image/record-check", test_record_check);
	g_test_add("/lu-image/add-modify", ImageFx, NULL, fx_set_up, test_add_modify, fx_tear_down);
	g_test_add("/lu-image/os-image-name", ImageFx, NULL, fx_set_up, test_os_image_name,
		   fx_tear_down);
	g_test_add("/lu-image/tarball-refused", ImageFx, NULL, fx_set_up, test_tarball_refused,
		   fx_tear_down);
	return g_test_run();
}
