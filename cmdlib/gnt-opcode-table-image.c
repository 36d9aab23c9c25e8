/*
 * Opcodes of the image catalog (doc/images.md): Gantry's own, Ganeti has
 * no catalog. A parameter's name is the record's key
 * (config/gnt-config-images.h), whose check each validator calls.
 */
#include "gnt-cmdlib.h"
#include "gnt-config-images.h"

/* One validator per key, each the catalog's check of that key. */
#define IMAGE_VALIDATOR(key)                                                                       \
	static gboolean validate_##key(JsonNode *value, GError **error)                            \
	{                                                                                          \
		return gnt_image_check_value(#key, value, error);                                  \
	}
IMAGE_VALIDATOR(url)
IMAGE_VALIDATOR(format)
IMAGE_VALIDATOR(sha256)
IMAGE_VALIDATOR(size)
IMAGE_VALIDATOR(os_distro)
IMAGE_VALIDATOR(os_version)
IMAGE_VALIDATOR(installer_kernel)
IMAGE_VALIDATOR(installer_initrd)
IMAGE_VALIDATOR(installer_stage2)
IMAGE_VALIDATOR(ks_template)
IMAGE_VALIDATOR(installer_memory)
IMAGE_VALIDATOR(installer_kernel_args)
IMAGE_VALIDATOR(installer_start_timeout)
IMAGE_VALIDATOR(installer_end_timeout)

static gboolean
validate_image_name(JsonNode *value, GError **error)
{
	return gnt_image_check_name(json_node_get_string(value), error);
}

#define IMAGE_FORMATS "raw|qcow2|tarball"

#define NAME_PARAM                                                                                 \
	{                                                                                          \
		.name = "image_name", .type = GNT_PARAM_TYPE_STRING,                               \
		.validate = validate_image_name, .help = "The image's name in the catalog"         \
	}

/* A row of a key; @optional: null unless given (set-params). */
#define IMAGE_PARAM(key, param_type, optional, help_text)                                          \
	{                                                                                          \
		.name = #key, .type = (param_type), .default_json = (optional) ? "null" : NULL,    \
		.nullable = (optional), .validate = validate_##key, .help = (help_text)            \
	}

/* What add and set-params share: the image itself (required to add) and
 * its properties (optional to both). */
#define IMAGE_PARAMS(optional)                                                                     \
	IMAGE_PARAM(url, GNT_PARAM_TYPE_STRING, optional,                                          \
		    "Where the image is: an absolute path on the nodes or an http(s) URL "         \
		    "(credentials in it are refused)"),                                            \
		{.name = "format",                                                                 \
		 .type = GNT_PARAM_TYPE_STRING,                                                    \
		 .default_json = (optional) ? "null" : NULL,                                       \
		 .nullable = (optional),                                                           \
		 .validate = validate_format,                                                      \
		 .choices = IMAGE_FORMATS,                                                         \
		 .help = "The image's format (tarball: a root filesystem tarball)"},               \
		IMAGE_PARAM(sha256, GNT_PARAM_TYPE_STRING, optional,                               \
			    "The SHA-256 of the image's bytes (64 hexadecimal digits)"),           \
		IMAGE_PARAM(size, GNT_PARAM_TYPE_INT, TRUE, "The image's size in bytes"),          \
		IMAGE_PARAM(os_distro, GNT_PARAM_TYPE_STRING, TRUE,                                \
			    "The OS distribution (RHEL, CentOS, Rocky, AlmaLinux, Fedora, ...)"),  \
		IMAGE_PARAM(os_version, GNT_PARAM_TYPE_STRING, TRUE,                               \
			    "The OS version (9.4, 40, ...)"),                                      \
		IMAGE_PARAM(installer_kernel, GNT_PARAM_TYPE_STRING, TRUE,                         \
			    "The installer's kernel: a path on the nodes or an http(s) URL"),      \
		IMAGE_PARAM(installer_initrd, GNT_PARAM_TYPE_STRING, TRUE,                         \
			    "The installer's initrd: a path on the nodes or an http(s) URL"),      \
		IMAGE_PARAM(installer_stage2, GNT_PARAM_TYPE_STRING, TRUE,                         \
			    "The installer's stage2 (inst.stage2): a path on the nodes or an "     \
			    "http(s) URL"),                                                        \
		IMAGE_PARAM(ks_template, GNT_PARAM_TYPE_STRING, TRUE,                              \
			    "The image's kickstart template: a file:// or http(s) URL"),           \
		IMAGE_PARAM(installer_memory, GNT_PARAM_TYPE_INT, TRUE,                            \
			    "Memory in MiB the installer runs with (256 or more)"),                \
		IMAGE_PARAM(installer_kernel_args, GNT_PARAM_TYPE_STRING, TRUE,                    \
			    "Extra kernel arguments for the installer (one line of printable "     \
			    "ASCII)"),                                                             \
		IMAGE_PARAM(installer_start_timeout, GNT_PARAM_TYPE_INT, TRUE,                     \
			    "Seconds the installer has to report start (the cluster's "            \
			    "installer_start_timeout otherwise)"),                                 \
		IMAGE_PARAM(installer_end_timeout, GNT_PARAM_TYPE_INT, TRUE,                       \
			    "Seconds the installer has from start to end (the cluster's "          \
			    "installer_end_timeout otherwise)")

static const GntParamDef image_add_params[] = {
	NAME_PARAM,
	IMAGE_PARAMS(FALSE),
	{NULL},
};

static const GntParamDef image_set_params_params[] = {
	NAME_PARAM,
	IMAGE_PARAMS(TRUE),
	{.name = "remove_properties",
	 .type = GNT_PARAM_TYPE_STRING_LIST,
	 .default_json = "[]",
	 .help = "Properties to remove, by name (os_distro, ks_template, ...)"},
	{NULL},
};

static const GntParamDef image_remove_params[] = {
	NAME_PARAM,
	{NULL},
};

/* The catalog is small and read by the create and reinstall units under
 * the shared cluster lock: changing it takes the lock exclusively, so an
 * install never sees an image half changed or removed under it. */
static const GntOpDef op_image_add = {
	.id = "OP_IMAGE_ADD",
	.summary_param = "image_name",
	.params = image_add_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
static const GntOpDef op_image_set_params = {
	.id = "OP_IMAGE_SET_PARAMS",
	.summary_param = "image_name",
	.params = image_set_params_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};
static const GntOpDef op_image_remove = {
	.id = "OP_IMAGE_REMOVE",
	.summary_param = "image_name",
	.params = image_remove_params,
	.bgl = GNT_LOCK_EXCLUSIVE,
};

const GntOpDef *const gnt_op_defs_image[] = {
	&op_image_add,
	&op_image_remove,
	&op_image_set_params,
	NULL,
};
