/*
 * The cluster settings table (gnt-cluster-settings.h). Defaults are Ganeti
 * 3.0's, so a Ganeti client reading QueryClusterInfo finds what it expects;
 * Gantry's own settings are marked.
 */
#include "gnt-cluster-settings.h"

#include "gnt-error.h"
#include "gnt-kickstart-uri.h"

/* default_ks_template: a source as --ks-template takes it, a file:// one
 * under kickstart_dir, or "" (Gantry's shipped default). */
static gboolean
validate_default_ks_template(JsonNode *value, JsonObject *settings, GError **error)
{
	const gchar *source = value != NULL ? json_node_get_string(value) : NULL;

	return source == NULL || *source == '\0' ||
	       gnt_kickstart_source_check_dir(
		       source,
		       json_object_get_string_member_with_default(settings, "kickstart_dir", ""),
		       error);
}

/* kickstart_dir: an absolute path that still holds a file:// default. */
static gboolean
validate_kickstart_dir(JsonNode *value, JsonObject *settings, GError **error)
{
	const gchar *dir = json_node_get_string(value);

	if (dir == NULL || !g_path_is_absolute(dir)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the kickstart directory '%s' is not an absolute path",
			    dir != NULL ? dir : "");
		return FALSE;
	}
	return validate_default_ks_template(json_object_get_member(settings, "default_ks_template"),
					    settings, error);
}

const GntClusterSetting gnt_cluster_settings[] = {
	{.key = "enabled_hypervisors",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[\"fake\"]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .help = "Comma-separated list of hypervisors (fake, kvm)",
	 .option = "enabled-hypervisors",
	 .option_arg = "HYPERVISORS"},
	/* where OS definitions are looked for, the first directory holding a
	 * name wins; Ganeti's directories, so installed Ganeti OS definitions
	 * are found */
	{.key = "os_search_path",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json =
		 "[\"/srv/ganeti/os\", \"/usr/local/lib/ganeti/os\", \"/usr/lib/ganeti/os\","
		 " \"/usr/share/ganeti/os\"]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "OS search path",
	 .show = GNT_SETTING_SHOW_SEARCH_PATH,
	 .help = "Comma-separated directories looked in for OS definitions, before Ganeti's four (which always end the path)",
	 .option = "os-search-path",
	 .option_arg = "DIRS"},
	/* the hypervisors' own tables give the defaults (hypervisor/) */
	{.key = "hvparams",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{\"fake\": {}, \"kvm\": {}}",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .help = "Hypervisor parameters, repeatable"},
	{.key = "os_hvp",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{}",
	 .change = GNT_SETTING_CHANGE_CUSTOM},
	{.key = "beparams",
	 .type = GNT_SETTING_OBJECT,
	 .default_json =
		 "{\"default\": {\"always_failover\": false, \"auto_balance\": true, \"maxmem\": 128,"
		 " \"minmem\": 128, \"spindle_use\": 1, \"vcpus\": 1}}",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .help = "Default backend parameters"},
	{.key = "osparams",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{}",
	 .change = GNT_SETTING_CHANGE_MERGE_GROUPED},
	{.key = "ipolicy",
	 .type = GNT_SETTING_OBJECT,
	 .default_json =
		 "{\"disk-templates\": [\"diskless\", \"file\", \"plain\"],"
		 " \"minmax\": [{\"max\": {\"cpu-count\": 8, \"disk-count\": 16, \"disk-size\": 1048576,"
		 " \"memory-size\": 32768, \"nic-count\": 8, \"spindle-use\": 12},"
		 " \"min\": {\"cpu-count\": 1, \"disk-count\": 1, \"disk-size\": 1024,"
		 " \"memory-size\": 128, \"nic-count\": 1, \"spindle-use\": 1}}],"
		 " \"spindle-ratio\": 32.0,"
		 " \"std\": {\"cpu-count\": 1, \"disk-count\": 1, \"disk-size\": 1024,"
		 " \"memory-size\": 128, \"nic-count\": 1, \"spindle-use\": 1},"
		 " \"vcpu-ratio\": 4.0}",
	 .change = GNT_SETTING_CHANGE_UNSUPPORTED},
	{.key = "nicparams",
	 .type = GNT_SETTING_OBJECT,
	 .default_json =
		 "{\"default\": {\"link\": \"br0\", \"mode\": \"bridged\", \"vlan\": \"\"}}",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .help = "Default NIC parameters (mode, link, vlan)"},
	{.key = "ndparams",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{\"cpu_speed\": 1.0, \"exclusive_storage\": false, \"oob_program\": \"\","
			 " \"ovs\": false, \"ovs_link\": \"\", \"ovs_name\": \"switch1\","
			 " \"spindle_count\": 1, \"ssh_port\": 22}",
	 .change = GNT_SETTING_CHANGE_MERGE},
	{.key = "diskparams",
	 .type = GNT_SETTING_OBJECT,
	 .default_json =
		 "{\"diskless\": {}, \"file\": {}, \"sharedfile\": {}, \"plain\": {\"stripes\": 1},"
		 " \"blockdev\": {}, \"ext\": {\"access\": \"kernelspace\"}}",
	 .change = GNT_SETTING_CHANGE_MERGE_GROUPED},
	{.key = "candidate_pool_size",
	 .type = GNT_SETTING_INT,
	 .default_json = "10",
	 .min = 1,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "candidate pool size",
	 .help = "Set the candidate pool size",
	 .option = "candidate-pool-size",
	 .option_short = 'C',
	 .option_arg = "SIZE"},
	{.key = "max_running_jobs",
	 .type = GNT_SETTING_INT,
	 .default_json = "20",
	 .min = 1,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "maximal number of jobs running simultaneously",
	 .help = "The maximal number of jobs running simultaneously",
	 .option = "max-running-jobs",
	 .option_arg = "N"},
	{.key = "max_tracked_jobs",
	 .type = GNT_SETTING_INT,
	 .default_json = "25",
	 .min = 1,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "maximal number of jobs simultaneously tracked by the scheduler",
	 .help = "The maximal number of jobs tracked by the scheduler",
	 .option = "max-tracked-jobs",
	 .option_arg = "N"},
	{.key = "mac_prefix",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"aa:00:00\"",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .label = "mac prefix",
	 .help = "Three-octet MAC prefix of the instances' NICs",
	 .option = "mac-prefix",
	 .option_arg = "PREFIX"},
	{.key = "master_netdev",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"lo\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "master netdev"},
	{.key = "master_netmask",
	 .type = GNT_SETTING_INT,
	 .default_json = "32",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "master netmask"},
	{.key = "use_external_mip_script",
	 .type = GNT_SETTING_BOOL,
	 .default_json = "false",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "use external master IP address setup script"},
	{.key = "primary_ip_version",
	 .type = GNT_SETTING_INT,
	 .default_json = "4",
	 .min = 4,
	 .label = "primary ip version"},
	{.key = "volume_group_name",
	 .type = GNT_SETTING_STRING_OR_NULL,
	 .default_json = "null",
	 .param = "vg_name",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .label = "lvm volume group",
	 .help = "The volume group of the plain disk template (\"\" disables LVM)",
	 .option = "vg-name",
	 .option_arg = "VG"},
	{.key = "drbd_usermode_helper",
	 .type = GNT_SETTING_STRING_OR_NULL,
	 .default_json = "null",
	 .param = "drbd_helper",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "drbd usermode helper"},
	{.key = "file_storage_dir",
	 .type = GNT_SETTING_STRING,
	 .dir = GNT_SETTING_DIR_ROOT,
	 .path = "srv/gantry/file-storage",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "file storage path",
	 .help = "The absolute directory for file disks",
	 .option = "file-storage-dir",
	 .option_arg = "DIR"},
	{.key = "shared_file_storage_dir",
	 .type = GNT_SETTING_STRING,
	 .dir = GNT_SETTING_DIR_ROOT,
	 .path = "srv/gantry/shared-file-storage",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "shared file storage path"},
	{.key = "gluster_storage_dir",
	 .type = GNT_SETTING_STRING,
	 .dir = GNT_SETTING_DIR_RUN,
	 .path = "gluster",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "gluster storage path"},
	{.key = "prealloc_wipe_disks",
	 .type = GNT_SETTING_BOOL,
	 .default_json = "false",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "preallocation wipe disks"},
	{.key = "reserved_lvs",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "lvm reserved volumes",
	 .show = GNT_SETTING_SHOW_LIST_OR_NONE},
	{.key = "enabled_disk_templates",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[\"file\", \"diskless\"]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "enabled disk templates",
	 .show = GNT_SETTING_SHOW_LIST,
	 .help = "Comma-separated list of disk templates (diskless, file, plain)",
	 .option = "enabled-disk-templates",
	 .option_arg = "TEMPLATES"},
	{.key = "maintain_node_health",
	 .type = GNT_SETTING_BOOL,
	 .default_json = "false",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "maintenance of node health"},
	{.key = "uid_pool",
	 .type = GNT_SETTING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "uid pool",
	 .show = GNT_SETTING_SHOW_UID_POOL},
	{.key = "default_iallocator",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "default instance allocator"},
	{.key = "default_iallocator_params",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{}",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "default instance allocator parameters"},
	{.key = "hidden_os",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_LIST_MODS},
	{.key = "blacklisted_os",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_LIST_MODS},
	{.key = "install_image",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "install image"},
	{.key = "instance_communication_network",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "instance communication network"},
	{.key = "zeroing_image",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "zeroing image"},
	{.key = "compression_tools",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[\"gzip\", \"gzip-fast\", \"gzip-slow\"]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "compression tools"},
	{.key = "enabled_user_shutdown",
	 .type = GNT_SETTING_BOOL,
	 .default_json = "false",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "enabled user shutdown"},
	{.key = "enabled_data_collectors",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{\"cpu-avg-load\": true, \"diskstats\": true, \"drbd\": true,"
			 " \"inst-status-xen\": true, \"lv\": true, \"xen-cpu-avg-load\": true}",
	 .change = GNT_SETTING_CHANGE_MERGE},
	{.key = "data_collector_interval",
	 .type = GNT_SETTING_OBJECT,
	 .default_json =
		 "{\"cpu-avg-load\": 5000000, \"diskstats\": 5000000, \"drbd\": 5000000,"
		 " \"inst-status-xen\": 5000000, \"lv\": 5000000, \"xen-cpu-avg-load\": 5000000}",
	 .change = GNT_SETTING_CHANGE_MERGE},
	{.key = "modify_ssh_setup",
	 .type = GNT_SETTING_BOOL,
	 .default_json = "false",
	 .label = "modify ssh setup"},
	{.key = "ssh_key_type",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"rsa\"",
	 .label = "ssh_key_type"},
	{.key = "ssh_key_bits",
	 .type = GNT_SETTING_INT,
	 .default_json = "2048",
	 .min = 1,
	 .label = "ssh_key_bits"},
	/* Gantry's installs (doc/install.md): OS scripts run inside the
	 * install appliance unless an OS is trusted and safe install is off */
	{.key = "enable_safe_install",
	 .type = GNT_SETTING_BOOL,
	 .default_json = "true",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "safe install",
	 .help = "Run OS scripts inside the install appliance (yes, the default) or, for OSes marked trusted (gnt-os modify --trusted yes), on the node (no)",
	 .option = "enable-safe-install",
	 .option_arg = "yes|no"},
	{.key = "install_timeout",
	 .type = GNT_SETTING_INT,
	 .default_json = "1800",
	 .min = 1,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "install timeout",
	 .help = "Seconds an in-band install step may take unless its row says otherwise, and "
		 "an install appliance session before it is killed (longer for rows that ask "
		 "for longer)",
	 .option = "install-timeout",
	 .option_arg = "SECONDS"},
	/* the nodes' artifact cache of catalog images (doc/images.md) */
	{.key = "image_cache_size",
	 .type = GNT_SETTING_INT,
	 .default_json = "20480",
	 .min = 0,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "image cache size",
	 .help = "MiB of downloaded disk images each node keeps in its artifact cache, least recently used going first (0: none kept)",
	 .option = "image-cache-size",
	 .option_arg = "MIB"},
	/* kickstart installs (doc/kickstart.md) */
	{.key = "kickstart_dir",
	 .type = GNT_SETTING_STRING,
	 .dir = GNT_SETTING_DIR_ROOT,
	 .path = "etc/gantry/kickstart",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .validate = validate_kickstart_dir,
	 .label = "kickstart directory",
	 .help = "The directory on the master under which file:// kickstart templates must be",
	 .option = "kickstart-dir",
	 .option_arg = "DIR"},
	{.key = "default_ks_template",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .validate = validate_default_ks_template,
	 .label = "default kickstart template",
	 .help = "The kickstart template of instances and images without one: file:///PATH under "
		 "the kickstart directory, an http(s) URL (\"\": Gantry's shipped default)",
	 .option = "default-ks-template",
	 .option_arg = "SOURCE"},
	{.key = "ksvalidator",
	 .type = GNT_SETTING_STRING,
	 .default_json = "\"\"",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "ksvalidator",
	 .help = "pykickstart's ksvalidator, run on every kickstart file (\"\": ksvalidator on "
		 "PATH, if any)",
	 .option = "ksvalidator",
	 .option_arg = "PATH"},
	/* kickstart installs' clocks (doc/kickstart.md "Running the installer") */
	{.key = "installer_start_timeout",
	 .type = GNT_SETTING_INT,
	 .default_json = "600",
	 .min = 1,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "installer start timeout",
	 .help = "Seconds a kickstart installer has from its boot to report start",
	 .option = "installer-start-timeout",
	 .option_arg = "SECONDS"},
	{.key = "installer_end_timeout",
	 .type = GNT_SETTING_INT,
	 .default_json = "3600",
	 .min = 1,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "installer end timeout",
	 .help = "Seconds a kickstart installer has from start (each start again) to report end",
	 .option = "installer-end-timeout",
	 .option_arg = "SECONDS"},
	{.key = "installer_poweroff_grace",
	 .type = GNT_SETTING_INT,
	 .default_json = "60",
	 .min = 0,
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "installer power-off grace",
	 .help = "Seconds a kickstart installer has after end or error to power off before it is "
		 "destroyed",
	 .option = "installer-poweroff-grace",
	 .option_arg = "SECONDS"},
	/* authorized_keys lines served to instances that have none of their own */
	{.key = "ssh_keys",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_REPLACE,
	 .label = "default ssh keys",
	 .show = GNT_SETTING_SHOW_SSH_KEYS,
	 .help = "A file of authorized_keys lines served to instances without keys of their own (repeatable; replaces the cluster's keys)"},
	/* OS names (without variant) an administrator marked trusted */
	{.key = "trusted_os",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_LIST_MODS,
	 .label = "trusted OSes",
	 .show = GNT_SETTING_SHOW_LIST_OR_NONE},
	/* Gantry's install policy (issue 14, doc/install.md "Cluster
	 * policy"): install steps no install may run, and the default
	 * priorities of steps ({step: priority}); checked against the step
	 * registry (gnt-cluster-settings-params.c) */
	{.key = "install_denied_steps",
	 .type = GNT_SETTING_STRING_LIST,
	 .default_json = "[]",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .label = "denied install steps",
	 .show = GNT_SETTING_SHOW_LIST_OR_NONE,
	 .help = "Comma-separated install steps no install may run (gnt-os list-steps); replaces the list, \"\" empties it",
	 .option = "denied-install-steps",
	 .option_arg = "STEPS"},
	{.key = "install_step_priorities",
	 .type = GNT_SETTING_OBJECT,
	 .default_json = "{}",
	 .change = GNT_SETTING_CHANGE_CUSTOM,
	 .label = "install step priorities",
	 .help = "Default priorities of install steps, STEP=PRIORITY,... (0 disables a core step, which keeps its order among the core steps; \"default\" removes an override)",
	 .option = "install-step-priorities",
	 .option_arg = "STEP=PRIORITY,..."},
	{NULL},
};

const GntClusterSetting *
gnt_cluster_setting_lookup(const gchar *key)
{
	for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
		if (g_strcmp0(s->key, key) == 0)
			return s;
	}
	return NULL;
}

gchar *
gnt_cluster_setting_describe(const GntClusterSetting *setting)
{
	if (setting->help == NULL)
		return g_strdup(setting->key);
	if (setting->type == GNT_SETTING_INT && setting->default_json != NULL)
		return g_strdup_printf("%s (default %s)", setting->help, setting->default_json);
	return g_strdup(setting->help);
}

const gchar *
gnt_cluster_setting_get_param(const GntClusterSetting *setting)
{
	if (setting->change == GNT_SETTING_CHANGE_NONE)
		return NULL;
	return setting->param != NULL ? setting->param : setting->key;
}
