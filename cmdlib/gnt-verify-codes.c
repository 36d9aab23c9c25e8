/* Ganeti 3.0's cluster verify error codes (src/Ganeti/Constants.hs cvE*). */
#include "gnt-verify-codes.h"

#include <string.h>

static const GntCvCodeDef cv_codes[] = {
	[GNT_CV_ECLUSTERCFG] = {"ECLUSTERCFG", "cluster",
				"Cluster configuration verification failure"},
	[GNT_CV_ECLUSTERCERT] = {"ECLUSTERCERT", "cluster",
				 "Cluster certificate files verification failure"},
	[GNT_CV_ECLUSTERCLIENTCERT] = {"ECLUSTERCLIENTCERT", "cluster",
				       "Cluster client certificate files verification failure"},
	[GNT_CV_ECLUSTERFILECHECK] = {"ECLUSTERFILECHECK", "cluster",
				      "Cluster configuration verification failure"},
	[GNT_CV_ECLUSTERDANGLINGNODES] = {"ECLUSTERDANGLINGNODES", "node",
					  "Some nodes belong to non-existing groups"},
	[GNT_CV_ECLUSTERDANGLINGINST] = {"ECLUSTERDANGLINGINST", "node",
					 "Some instances have a non-existing primary node"},
	[GNT_CV_EINSTANCEBADNODE] = {"EINSTANCEBADNODE", "instance",
				     "Instance marked as running lives on an offline node"},
	[GNT_CV_EINSTANCEDOWN] = {"EINSTANCEDOWN", "instance",
				  "Instance not running on its primary node"},
	[GNT_CV_EINSTANCELAYOUT] = {"EINSTANCELAYOUT", "instance",
				    "Instance has multiple secondary nodes"},
	[GNT_CV_EINSTANCEMISSINGDISK] = {"EINSTANCEMISSINGDISK", "instance",
					 "Missing volume on an instance"},
	[GNT_CV_EINSTANCEFAULTYDISK] = {"EINSTANCEFAULTYDISK", "instance",
					"Impossible to retrieve status for a disk"},
	[GNT_CV_EINSTANCEWRONGNODE] = {"EINSTANCEWRONGNODE", "instance",
				       "Instance running on the wrong node"},
	[GNT_CV_EINSTANCESPLITGROUPS] =
		{"EINSTANCESPLITGROUPS", "instance",
		 "Instance with primary and secondary nodes in different groups"},
	[GNT_CV_EINSTANCEPOLICY] = {"EINSTANCEPOLICY", "instance", "Instance does not meet policy"},
	[GNT_CV_EINSTANCEUNSUITABLENODE] =
		{"EINSTANCEUNSUITABLENODE", "instance",
		 "Instance running on nodes that are not suitable for it"},
	[GNT_CV_EINSTANCEMISSINGCFGPARAMETER] =
		{"EINSTANCEMISSINGCFGPARAMETER", "instance",
		 "A configuration parameter for an instance is missing"},
	[GNT_CV_ENODEDRBD] = {"ENODEDRBD", "node", "Error parsing the DRBD status file"},
	[GNT_CV_ENODEDRBDVERSION] = {"ENODEDRBDVERSION", "node",
				     "DRBD version mismatch within a node group"},
	[GNT_CV_ENODEDRBDHELPER] = {"ENODEDRBDHELPER", "node", "Error caused by the DRBD helper"},
	[GNT_CV_ENODEFILECHECK] = {"ENODEFILECHECK", "node",
				   "Error retrieving the checksum of the node files"},
	[GNT_CV_ENODEHOOKS] = {"ENODEHOOKS", "node", "Communication failure in hooks execution"},
	[GNT_CV_ENODEHV] = {"ENODEHV", "node", "Hypervisor parameters verification failure"},
	[GNT_CV_ENODELVM] = {"ENODELVM", "node", "LVM-related node error"},
	[GNT_CV_ENODEN1] = {"ENODEN1", "node",
			    "Not enough memory to accommodate instance failovers"},
	[GNT_CV_ENODENET] = {"ENODENET", "node", "Network-related node error"},
	[GNT_CV_ENODEOS] = {"ENODEOS", "node", "OS-related node error"},
	[GNT_CV_ENODEORPHANINSTANCE] = {"ENODEORPHANINSTANCE", "node",
					"Unknown intance running on a node"},
	[GNT_CV_ENODEORPHANLV] = {"ENODEORPHANLV", "node", "Unknown LVM logical volume"},
	[GNT_CV_ENODERPC] = {"ENODERPC", "node",
			     "Error during connection to the primary node of an instance"},
	[GNT_CV_ENODESSH] = {"ENODESSH", "node", "SSH-related node error"},
	[GNT_CV_ENODEVERSION] = {"ENODEVERSION", "node",
				 "Protocol version mismatch or Ganeti version mismatch"},
	[GNT_CV_ENODESETUP] = {"ENODESETUP", "node", "Node setup error"},
	[GNT_CV_ENODETIME] = {"ENODETIME", "node", "Node returned invalid time"},
	[GNT_CV_ENODEOOBPATH] = {"ENODEOOBPATH", "node", "Invalid Out Of Band path"},
	[GNT_CV_ENODEUSERSCRIPTS] = {"ENODEUSERSCRIPTS", "node",
				     "User scripts not present or not executable"},
	[GNT_CV_ENODEFILESTORAGEPATHS] = {"ENODEFILESTORAGEPATHS", "node",
					  "Detected bad file storage paths"},
	[GNT_CV_ENODEFILESTORAGEPATHUNUSABLE] = {"ENODEFILESTORAGEPATHUNUSABLE", "node",
						 "File storage path unusable"},
	[GNT_CV_ENODESHAREDFILESTORAGEPATHUNUSABLE] = {"ENODESHAREDFILESTORAGEPATHUNUSABLE", "node",
						       "Shared file storage path unusable"},
	[GNT_CV_ENODEGLUSTERSTORAGEPATHUNUSABLE] = {"ENODEGLUSTERSTORAGEPATHUNUSABLE", "node",
						    "Gluster storage path unusable"},
	[GNT_CV_EGROUPDIFFERENTPVSIZE] = {"EGROUPDIFFERENTPVSIZE", "group",
					  "PVs in the group have different sizes"},
	[GNT_CV_EEXTAGS] = {"EEXTAGS", "node",
			    "Instances with same exclusion tag on the same node"},
};
G_STATIC_ASSERT(G_N_ELEMENTS(cv_codes) == GNT_CV_LAST);

const GntCvCodeDef *
gnt_cv_code_get(GntCvCode code)
{
	g_return_val_if_fail(code < GNT_CV_LAST, NULL);
	return &cv_codes[code];
}

gboolean
gnt_cv_code_lookup(const gchar *name, GntCvCode *out)
{
	for (guint i = 0; i < GNT_CV_LAST; i++) {
		if (name != NULL && strcmp(cv_codes[i].name, name) == 0) {
			if (out != NULL)
				*out = (GntCvCode)i;
			return TRUE;
		}
	}
	return FALSE;
}
