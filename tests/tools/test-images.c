/*
 * The image catalog through every daemon (gnt-cluster init: noded, metad,
 * masterd, rapi on a temporary root; the fake hypervisor, file disks) and
 * an HTTP server in the test that counts the requests it answers:
 * gnt-image add, list, list-fields, info, modify and remove with their
 * refusals; gnt-instance add --os-image NAME writing the catalog's image
 * onto disk 0 through the node's artifact cache (downloaded once, then a
 * hit); the removal refused while instances name the image; and two
 * installs of the same image at once downloading it once.
 */
#include <string.h>

#include "image-test-server.h"
#include "tools-test.h"

#define IMAGE_SIZE (1024 * 1024)

typedef struct {
	gchar *root;
	gchar *file_storage;
	ImageServer *server;
	GBytes *image;
	gchar *sha256;
	gchar *url;
} ImagesFx;

#define IMAGE(fx, ...)	  RUN(fx, "GNT_TEST_GNT_IMAGE", __VA_ARGS__)
#define INSTANCE(fx, ...) RUN(fx, "GNT_TEST_GNT_INSTANCE", __VA_ARGS__)
#define JOB(fx, ...)	  RUN(fx, "GNT_TEST_GNT_JOB", __VA_ARGS__)

static void
fx_set_up(ImagesFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Run) init = NULL;
	gsize len = 0;
	gconstpointer bytes;

	fx->root = g_dir_make_tmp("gtimg-XXXXXX", &error);
	g_assert_no_error(error);
	fx->file_storage = g_build_filename(fx->root, "srv", "gantry", "file-storage", NULL);
	fx->server = image_server_new(NULL);
	fx->image = image_test_pattern(IMAGE_SIZE, 7);
	bytes = g_bytes_get_data(fx->image, &len);
	fx->sha256 = g_compute_checksum_for_data(G_CHECKSUM_SHA256, bytes, len);
	fx->url = g_strconcat(image_server_get_base(fx->server), "/web.raw", NULL);
	image_server_add(fx->server, "/web.raw", 200, fx->image, 0);
	init = RUN(fx, "GNT_TEST_GNT_CLUSTER", "init", "--noded-port", "0", "test.example.com");
	expect(init, 0, NULL);
}

static void
fx_tear_down(ImagesFx *fx, gconstpointer data)
{
	g_autoptr(Run) stop = RUN(fx, "GNT_TEST_GANTRY_DAEMONS", "stop");
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->root);

	expect(stop, 0, NULL);
	g_clear_pointer(&fx->server, image_server_free);
	g_assert_cmpint(system(cmd), ==, 0);
	g_bytes_unref(fx->image);
	g_free(fx->sha256);
	g_free(fx->url);
	g_free(fx->root);
	g_free(fx->file_storage);
}

/* Whether disk 0 of @instance (a file disk) starts with the image. */
static gboolean
disk0_holds_image(ImagesFx *fx, const gchar *instance)
{
	g_autofree gchar *dir = g_build_filename(fx->file_storage, instance, NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const gchar *name;

	g_assert_nonnull(d);
	while ((name = g_dir_read_name(d)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);

		if (g_str_has_suffix(name, ".disk0"))
			return image_test_disk_holds(path, fx->image);
	}
	return FALSE;
}

static Run *
add_web(ImagesFx *fx)
{
	return IMAGE(fx, "add", "--url", fx->url, "--format", "raw", "--sha256", fx->sha256,
		     "--size", "1048576", "--os-distro", "Fedora", "--os-version", "40",
		     "--installer-memory", "2G", "web");
}

/* gnt-instance add of @name from the catalog's image "web" (with @submit:
 * --submit) */
static Run *
add_instance(ImagesFx *fx, const gchar *name, gboolean submit)
{
	if (submit)
		return INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=8M", "--no-nics", "-H",
				"fake", "--os-image", "web", "--no-start", "--submit", name);
	return INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=8M", "--no-nics", "-H", "fake",
			"--os-image", "web", "--no-start", name);
}

static void
test_commands(ImagesFx *fx, gconstpointer data)
{
	g_autoptr(Run) added = add_web(fx);
	g_autoptr(Run) list = NULL;
	g_autoptr(Run) fields = NULL;
	g_autoptr(Run) info = NULL;
	g_autoptr(Run) again = NULL;
	g_autoptr(Run) secret = NULL;
	g_autoptr(Run) modified = NULL;
	g_autoptr(Run) img1 = NULL;
	g_autoptr(Run) img2 = NULL;
	g_autoptr(Run) refused = NULL;
	g_autoptr(Run) removed = NULL;
	g_autoptr(Run) empty = NULL;
	g_autofree gchar *row = NULL;

	expect(added, 0, NULL);
	gnt_test_assert_contains(added->out, "Adding image web");
	list = IMAGE(fx, "list");
	row = g_strdup_printf("web   raw    Fedora   40        1048576 %s\n", fx->url);
	expect(list, 0, NULL);
	gnt_test_assert_contains(list->out, "Image Format OsDistro OsVersion    Size URL\n");
	gnt_test_assert_contains(list->out, row);
	g_clear_pointer(&list, run_free);
	list = IMAGE(fx, "list", "--no-headers", "--separator", "|", "-o",
		     "name,sha256,installer_memory");
	g_clear_pointer(&row, g_free);
	row = g_strdup_printf("web|%s|2048\n", fx->sha256);
	expect(list, 0, row);
	fields = IMAGE(fx, "list-fields", "ks_template");
	expect_has(fields, 0, "ks_template");
	info = IMAGE(fx, "info", "web");
	expect(info, 0, NULL);
	gnt_test_assert_contains(info->out, "- Image: web\n");
	gnt_test_assert_contains(info->out, "  Format: raw\n");
	gnt_test_assert_contains(info->out, "    os_distro: Fedora\n");
	gnt_test_assert_contains(info->out, "    installer_memory: 2048\n");
	gnt_test_assert_contains(info->out, "    ks_template: (none)\n");

	/* refusals, nothing changed by them */
	again = add_web(fx);
	expect_has(again, 1, "image 'web' already exists");
	secret = IMAGE(fx, "add", "--url", "https://ops:s3cret@images.example.com/x.raw",
		       "--format", "raw", "--sha256", fx->sha256, "leaky");
	expect_has(secret, 1, "credentials in a URL are refused");
	gnt_test_assert_lacks(secret->err, "s3cret");
	modified = IMAGE(fx, "modify", "--os-version", "41", "--remove-property",
			 "installer_memory", "web");
	expect(modified, 0, NULL);
	gnt_test_assert_contains(modified->out, "Modified image web\n - os_version -> 41\n");

	/* installed from the catalog: downloaded once into the node's cache */
	img1 = add_instance(fx, "img1.example.com", FALSE);
	expect(img1, 0, NULL);
	gnt_test_assert_contains(img1->out, "image written (raw, 1.0 MB, artifact cache: filled)");
	g_assert_true(disk0_holds_image(fx, "img1.example.com"));
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	img2 = add_instance(fx, "img2.example.com", FALSE);
	expect(img2, 0, NULL);
	gnt_test_assert_contains(img2->out, "image written (raw, 1.0 MB, artifact cache: hit)");
	g_assert_true(disk0_holds_image(fx, "img2.example.com"));
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);

	/* named by both: kept */
	refused = IMAGE(fx, "remove", "web");
	expect_has(refused, 1,
		   "image 'web' is named by the install parameters of instances "
		   "img1.example.com, img2.example.com");
	{
		g_autoptr(Run) r1 = INSTANCE(fx, "remove", "-f", "img1.example.com");
		g_autoptr(Run) r2 = INSTANCE(fx, "remove", "-f", "img2.example.com");

		expect(r1, 0, NULL);
		expect(r2, 0, NULL);
	}
	removed = IMAGE(fx, "remove", "web");
	expect(removed, 0, NULL);
	empty = IMAGE(fx, "list", "--no-headers");
	expect(empty, 0, "");
}

/* The job ID a --submit printed on stderr ("JobID: N"). */
static gchar *
job_id(Run *run)
{
	const gchar *at = strstr(run->err, "JobID: ");

	g_assert_nonnull(at);
	return g_strndup(at + 7, strspn(at + 7, "0123456789"));
}

/* Waits until job @id's log holds @needle. */
static void
wait_job_log(ImagesFx *fx, const gchar *id, const gchar *needle)
{
	for (guint i = 0; i < 600; i++) {
		g_autoptr(Run) info = JOB(fx, "info", id);

		if (strstr(info->out, needle) != NULL)
			return;
		g_usleep(100 * 1000);
	}
	g_error("job %s never logged '%s'", id, needle);
}

/* Issue 17: two concurrent installs of the same catalog image download it
 * once; the server holds the body half way until both are writing. */
static void
test_concurrent_installs(ImagesFx *fx, gconstpointer data)
{
	g_autoptr(Run) added = add_web(fx);
	g_autoptr(Run) first = NULL;
	g_autoptr(Run) second = NULL;
	g_autofree gchar *id1 = NULL;
	g_autofree gchar *id2 = NULL;
	g_autofree gchar *logs = NULL;
	guint waited = 0;

	expect(added, 0, NULL);
	image_server_hold(fx->server, "/web.raw", IMAGE_SIZE / 2);
	first = add_instance(fx, "img1.example.com", TRUE);
	second = add_instance(fx, "img2.example.com", TRUE);
	expect(first, 0, NULL);
	expect(second, 0, NULL);
	id1 = job_id(first);
	id2 = job_id(second);
	wait_job_log(fx, id1, "writing the OS image onto disk 0");
	wait_job_log(fx, id2, "writing the OS image onto disk 0");
	/* both jobs at their write step while the one download is held */
	g_usleep(500 * 1000);
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	image_server_release(fx->server);
	{
		g_autoptr(Run) w1 = JOB(fx, "wait", id1);
		g_autoptr(Run) w2 = JOB(fx, "wait", id2);
		g_autoptr(Run) i1 = JOB(fx, "info", id1);
		g_autoptr(Run) i2 = JOB(fx, "info", id2);

		expect(w1, 0, NULL);
		expect(w2, 0, NULL);
		logs = g_strconcat(i1->out, i2->out, NULL);
	}
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	g_assert_true(disk0_holds_image(fx, "img1.example.com"));
	g_assert_true(disk0_holds_image(fx, "img2.example.com"));
	gnt_test_assert_contains(logs, "artifact cache: filled");
	waited = strstr(logs, "artifact cache: waited") != NULL;
	/* the second job's call may reach the node a moment after the
	 * download ended: then a hit, still without a request of its own */
	if (!waited)
		gnt_test_assert_contains(logs, "artifact cache: hit");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/images/commands", ImagesFx, NULL, fx_set_up, test_commands, fx_tear_down);
	g_test_add("/images/concurrent-installs", ImagesFx, NULL, fx_set_up,
		   test_concurrent_installs, fx_tear_down);
	return g_test_run();
}
