/*
 * bench-kickstart: a kickstart template's way to the file served
 * (install/gnt-kickstart-prepare.h, doc/benchmarks.md "Kickstart"),
 * Gantry's own checks only (no ksvalidator): the input checked and read,
 * what Gantry adds added, rendered, validated. The template has 300 lines:
 * the default's commands, a four-disk RAID and LVM layout with 60 logical
 * volumes, and %post scripts that use the variables. Prints the files per
 * second of each run, by the wall clock and by the CPU time the thread got
 * (what a shared, loaded machine still measures fairly), and their
 * medians; the target is 10,000/s.
 * Asserts nothing but that the template passes.
 *
 *	bench-kickstart [--runs N] [--seconds S]	(default 5 runs of 1 s)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnt-kickstart-prepare.h"

#define N_LINES 300

static gchar *
make_template(void)
{
	GString *ks = g_string_new("# bench-kickstart: 300 lines\ncmdline\nlang en_US.UTF-8\n"
				   "keyboard us\ntimezone Etc/UTC --utc\n"
				   "network --bootproto=dhcp --hostname={{ hostname }}\n"
				   "rootpw --lock\nselinux --enforcing\nfirewall --enabled "
				   "--service=ssh\nzerombr\n"
				   "clearpart --all --initlabel --drives=vda,vdb,vdc,vdd\n"
				   "ignoredisk --only-use=vda,vdb,vdc,vdd\n"
				   "bootloader --boot-drive=vda --append=\"console=ttyS0\"\n"
				   "part /boot/efi --fstype=efi --size=600 --ondisk=vda\n");
	guint lines = 14;

	for (guint d = 0; d < 4; d++)
		g_string_append_printf(ks, "part raid.1%u --size=1024 --ondisk=vd%c\n", d, 'a' + d);
	g_string_append(ks, "raid /boot --level=RAID1 --device=md0 --fstype=xfs raid.10 raid.11\n");
	for (guint d = 0; d < 4; d++)
		g_string_append_printf(ks, "part raid.2%u --size=4096 --grow --ondisk=vd%c\n", d,
				       'a' + d);
	g_string_append(ks, "raid pv.01 --level=RAID10 --device=md1 raid.20 raid.21 raid.22 "
			    "raid.23\nvolgroup vg0 --pesize=4096 pv.01\n");
	lines += 12;
	g_string_append(ks, "logvol / --vgname=vg0 --name=root --fstype=xfs --size=8192\n");
	lines++;
	for (guint i = 0; i < 60; i++, lines++)
		g_string_append_printf(ks,
				       "logvol /srv/data%02u --vgname=vg0 --name=data%02u "
				       "--fstype=%s --size=64\n",
				       i, i, i % 2 == 0 ? "xfs" : "ext4");
	g_string_append(ks, "%post --log=/root/ks-post.log\n");
	lines++;
	while (lines < N_LINES - 1) {
		g_string_append_printf(ks, "echo '{{ instance_name }} step %u' >> /root/steps\n",
				       lines);
		lines++;
	}
	g_string_append(ks, "%end\n");
	return g_string_free(ks, FALSE);
}

static gint64
thread_cpu_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (gint64)ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gint
compare_doubles(gconstpointer a, gconstpointer b)
{
	gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	gint runs = 5;
	gdouble seconds = 1.0;
	GOptionEntry entries[] = {
		{"runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs (5)", "N"},
		{"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds, "Seconds per run (1)", "S"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- kickstart render+validate");
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = make_template();
	g_autoptr(GBytes) template = g_bytes_new(text, strlen(text));
	g_autoptr(GArray) rates = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) cpu_rates = g_array_new(FALSE, FALSE, sizeof(gdouble));
	GntKickstartRequest request = {.template = template,
				       .target = {.release = {GNT_KICKSTART_FAMILY_RHEL, 9},
						  .firmware = GNT_KICKSTART_FIRMWARE_UEFI,
						  .n_disks = 4,
						  .disk_names = {"vda", "vdb", "vdc", "vdd"},
						  .disk_mib = {40960, 40960, 40960, 40960}}};
	g_autofree gchar *token = gnt_kickstart_token_new();
	guint n_lines = 0;

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error) || runs < 1 || seconds <= 0) {
		g_printerr("bench-kickstart: %s\n", error != NULL ? error->message : "bad values");
		return 2;
	}
	for (const gchar *p = text; *p != '\0'; p++)
		n_lines += *p == '\n';
	request.values[GNT_KICKSTART_VAR_LIVEIMG_URL] = GNT_KICKSTART_METAD_INSTALL "/image.tar.gz";
	request.values[GNT_KICKSTART_VAR_CALLBACK_URL] = GNT_KICKSTART_CALLBACK_URL;
	request.values[GNT_KICKSTART_VAR_AGENT_TOKEN] = token;
	request.values[GNT_KICKSTART_VAR_INSTANCE_NAME] = "web1.example.com";
	request.values[GNT_KICKSTART_VAR_HOSTNAME] = "web1";
	request.values[GNT_KICKSTART_VAR_SSH_KEYS] = "ssh-ed25519 AAAAC3Nz ops@example.com";
	{
		g_autoptr(GntKickstart) ks = gnt_kickstart_prepare(&request, &error);
		if (ks == NULL) {
			g_printerr("bench-kickstart: the template is refused: %s\n",
				   error->message);
			return 1;
		}
		printf("template: %u lines, %zu bytes; rendered file: %zu bytes\n", n_lines,
		       strlen(text), ks->text->len);
	}
	for (gint run = 0; run < runs; run++) {
		gint64 start = g_get_monotonic_time(), cpu_start = thread_cpu_usec(), now;
		guint64 n = 0;
		gdouble rate, cpu_rate;

		do {
			for (guint i = 0; i < 100; i++) {
				GntKickstart *ks = gnt_kickstart_prepare(&request, NULL);
				if (ks == NULL)
					abort();
				gnt_kickstart_free(ks);
			}
			n += 100;
			now = g_get_monotonic_time();
		} while (now - start < (gint64)(seconds * G_USEC_PER_SEC));
		rate = (gdouble)n * G_USEC_PER_SEC / (gdouble)(now - start);
		cpu_rate = (gdouble)n * G_USEC_PER_SEC / (gdouble)(thread_cpu_usec() - cpu_start);
		g_array_append_val(rates, rate);
		g_array_append_val(cpu_rates, cpu_rate);
		printf("run %d: %.0f files/s by the clock, %.0f per CPU second (%.1f us each)\n",
		       run + 1, rate, cpu_rate, 1e6 / cpu_rate);
	}
	g_array_sort(rates, compare_doubles);
	g_array_sort(cpu_rates, compare_doubles);
	printf("median: %.0f files/s by the clock, %.0f per CPU second (target: at least "
	       "10000)\n",
	       g_array_index(rates, gdouble, rates->len / 2),
	       g_array_index(cpu_rates, gdouble, cpu_rates->len / 2));
	return 0;
}
