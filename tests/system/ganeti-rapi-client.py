#!/usr/bin/python3
"""Drives gantry-rapi with Ganeti's own RAPI client (Debian's python3-ganeti-rapi).

A cluster on a temporary root (gnt-cluster init starts noded, masterd and
gantry-rapi on a free port), a user with write access; then GanetiRapiClient
over HTTPS with certificate verification on (the cluster CA, host name
checked) makes the calls a Ganeti tool makes and each answer is checked for
its content.
"""

import os
import shutil
import subprocess
import sys
import tempfile

# Debian's python3-ganeti-rapi (/usr/lib/python3/dist-packages/ganeti/rapi)
from ganeti.rapi import client as rapi  # noqa: E402

GNT_CLUSTER = os.environ["GNT_TEST_GNT_CLUSTER"]
GNT_DEBUG = os.environ["GNT_TEST_GNT_DEBUG"]
NOOP_OS = "/usr/share/ganeti/os/noop/create"
USER, PASSWORD = "ops", "rapi-test-pw"
# WaitForJobCompletion polls every 5 s by default
PERIOD = 0.05
checks = 0
failed = 0
# the client's public methods called by this test, checked against all of
# them at the end: a method added to the client fails the test until added
called = set()


def check(cond, what):
    """Counts and prints a check; a failed one does not stop the others."""
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
        print("not ok %d - %s" % (checks, what))
    else:
        print("ok %d - %s" % (checks, what))


class Recorder(object):
    """Wraps a GanetiRapiClient and notes which public methods are called."""

    def __init__(self, client):
        self._client = client

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if callable(attr) and not name.startswith("_"):
            called.add(name)
        return attr


def expect_501(call, resource, what):
    """The call answers 501 naming Ganeti's resource, never a 404."""
    try:
        call()
        check(False, "%s is not implemented: it did not fail" % what)
    except rapi.GanetiApiError as err:
        check(err.code == 501 and "Not implemented by Gantry" in str(err)
              and resource in str(err), "%s: %s" % (what, err))


def main(root):
    env = dict(os.environ, GANTRY_ROOT=root)
    # starts noded, masterd and gantry-rapi (on a free port with --noded-port 0)
    subprocess.run([GNT_CLUSTER, "init", "--noded-port", "0", "cluster.example.com"],
                   env=env, check=True)
    try:
        data = os.path.join(root, "var/lib/gantry")
        # gantry-rapi reads the users file again when it changes
        os.makedirs(os.path.join(data, "rapi"), exist_ok=True)
        with open(os.path.join(data, "rapi/users"), "w") as f:
            f.write("# the test's user\n%s %s write\n" % (USER, PASSWORD))
        with open(os.path.join(data, "rapi-port")) as f:
            port = int(f.read().strip())
        run_checks(env, port, os.path.join(data, "tls/ca.pem"))
    finally:
        subprocess.run([GNT_CLUSTER, "destroy", "--yes-do-it"], env=env, check=False)


def submit_delay(env, seconds):
    """A job of OP_TEST_DELAY that takes the master node's lock (RAPI has no
    resource that makes one)."""
    out = subprocess.run([GNT_DEBUG, "delay", "--submit", "--print-jobid", str(seconds)],
                         env=env, check=True, capture_output=True, text=True).stdout
    return int(out.split()[0])


def run_checks(env, port, cafile):
    c = Recorder(rapi.GanetiRapiClient("127.0.0.1", port=port, username=USER,
                                       password=PASSWORD,
                                       curl_config_fn=rapi.GenericCurlConfig(
                                           cafile=cafile, verify_hostname=True)))

    check(c.GetVersion() == 2, "GetVersion is 2 (port %d, certificate verified)" % port)
    info = c.GetInfo()
    check(info["name"] == "cluster.example.com", "GetInfo names the cluster")
    check("fake" in info["enabled_hypervisors"], "GetInfo: enabled hypervisors %r"
          % info["enabled_hypervisors"])
    check("vg_name" in info and "drbd_helper" in info, "GetInfo has rlib2's aliases")
    features = c.GetFeatures()
    # Ganeti's two, then Gantry's own (install-steps and install-templates: doc/rapi.md)
    check({rapi._INST_CREATE_REQV1, rapi._INST_REINSTALL_REQV1} <= set(features)
          and {"install-steps", "install-templates"} <= set(features), "GetFeatures: %r" % features)
    oses = c.GetOperatingSystems()
    check("noop" in oses, "GetOperatingSystems lists noop: %r" % oses)
    check(c.GetInstances(bulk=True) == [], "GetInstances: none yet")

    nodes = c.GetNodes()
    check(len(nodes) == 1 and nodes[0] == info["master"], "GetNodes: the master %r" % nodes)
    node = c.GetNodes(bulk=True)[0]
    check(node["name"] == info["master"] and node["role"] == "M"
          and node["master_candidate"] is True, "GetNodes(bulk): the master's fields")

    # the client sends "__version__": 1 because the feature is listed; a file
    # disk, as a reinstall needs one
    job = c.CreateInstance("create", "web1.example.com", "file", [{"size": 16}], [], os="noop",
                           hypervisor="fake", beparams={"maxmem": 128})
    check(isinstance(job, int), "CreateInstance answers an int job ID: %r" % job)
    check(c.WaitForJobCompletion(job, period=PERIOD), "the create job succeeds")
    status = c.GetJobStatus(job)
    check(status["id"] == job and status["status"] == "success"
          and status["summary"] == ["INSTANCE_CREATE(web1.example.com)"]
          and status["opstatus"] == ["success"], "GetJobStatus of the create job")
    check(status["ops"][0]["os_type"] == "noop"
          and status["ops"][0]["instance_name"] == "web1.example.com",
          "name and os were renamed instance_name and os_type")

    inst = c.GetInstance("web1.example.com")
    check(inst["name"] == "web1.example.com" and inst["os"] == "noop"
          and inst["disk_template"] == "file" and inst["admin_state"] == "up"
          and inst["status"] == "running", "GetInstance: running, status %r" % inst["status"])
    check(inst["beparams"]["maxmem"] == 128 and inst["beparams"]["memory"] == 128,
          "GetInstance: beparams with the old 'memory'")
    bulk = c.GetInstances(bulk=True)
    check(len(bulk) == 1 and bulk[0]["name"] == "web1.example.com"
          and bulk[0]["oper_state"] is True, "GetInstances(bulk): the instance")
    check(c.GetInstances() == ["web1.example.com"], "GetInstances: its name")

    job = c.ShutdownInstance("web1.example.com", timeout=5)
    check(c.WaitForJobCompletion(job, period=PERIOD), "ShutdownInstance's job succeeds")
    inst = c.GetInstance("web1.example.com")
    check(inst["admin_state"] == "down" and inst["status"] == "ADMIN_down",
          "after ShutdownInstance: %s" % inst["status"])
    job = c.StartupInstance("web1.example.com")
    check(c.WaitForJobCompletion(job, period=PERIOD), "StartupInstance's job succeeds")
    check(c.GetInstance("web1.example.com")["status"] == "running",
          "after StartupInstance: running")

    # a job of OP_INSTANCE_QUERY_DATA; its result holds the instance
    job = c.GetInstanceInfo("web1.example.com", static=True)
    check(c.WaitForJobCompletion(job, period=PERIOD), "GetInstanceInfo's job succeeds")
    result = c.GetJobStatus(job)["opresult"][0]
    check(list(result) == ["web1.example.com"]
          and result["web1.example.com"]["os"] == "noop"
          and result["web1.example.com"]["config_state"] == "up"
          and result["web1.example.com"]["run_state"] is None,
          "GetInstanceInfo(static=True): the instance, no live state")

    # one job: shutdown, reinstall, startup
    job = c.ReinstallInstance("web1.example.com", os="noop")
    ops = [op["OP_ID"] for op in c.GetJobStatus(job)["ops"]]
    check(ops == ["OP_INSTANCE_SHUTDOWN", "OP_INSTANCE_REINSTALL", "OP_INSTANCE_STARTUP"],
          "ReinstallInstance submits shutdown, reinstall, startup: %r" % ops)
    check(c.WaitForJobCompletion(job, period=PERIOD),
          "ReinstallInstance's job succeeds: %r" % c.GetJobStatus(job)["opresult"])
    check(c.GetInstance("web1.example.com")["status"] == "running",
          "after ReinstallInstance: running again")

    # cancel a job queued behind one that holds the master node's lock
    hold = submit_delay(env, 2)
    queued = submit_delay(env, 0)
    (ok, message) = c.CancelJob(queued)
    check(ok is True, "CancelJob of a queued job: %s" % message)
    check(not c.WaitForJobCompletion(queued, period=PERIOD), "the canceled job did not succeed")
    check(c.GetJobStatus(queued)["status"] == "canceled", "GetJobStatus: canceled")
    check(c.WaitForJobCompletion(hold, period=PERIOD), "the job holding the lock succeeds")
    (ok, message) = c.CancelJob(hold)
    check(ok is False, "CancelJob of a finished job fails: %s" % message)

    jobs = c.GetJobs()
    check(all(isinstance(j, int) for j in jobs) and queued in jobs and hold in jobs,
          "GetJobs: int IDs %r" % jobs)
    bulk_jobs = {j["id"]: j for j in c.GetJobs(bulk=True)}
    check(bulk_jobs[queued]["status"] == "canceled" and bulk_jobs[hold]["status"] == "success",
          "GetJobs(bulk): statuses")

    check_more_instance_calls(c, info["master"])
    check_group_calls(c, info["master"])
    check_not_implemented(c, info["master"])

    job = c.DeleteInstance("web1.example.com")
    check(c.WaitForJobCompletion(job, period=PERIOD), "DeleteInstance's job succeeds")
    check(c.GetInstances() == [], "GetInstances: none left")

    # errors come back as Ganeti's
    try:
        c.GetInstance("nosuch.example.com")
        check(False, "GetInstance of an unknown instance fails")
    except rapi.GanetiApiError as err:
        check(err.code == 404, "GetInstance of an unknown instance: %s" % err)
    try:
        c.CreateInstance("create", "web2.example.com", "diskless", [], [], os="noop",
                         bogus_parameter=1)
        check(False, "an unknown parameter is refused")
    except rapi.GanetiApiError as err:
        check(err.code == 400 and "bogus_parameter" in str(err),
              "an unknown parameter is a 400 naming it: %s" % err)
    reader = rapi.GanetiRapiClient("127.0.0.1", port=port, username=USER, password="wrong",
                                   curl_config_fn=rapi.GenericCurlConfig(cafile=cafile))
    try:
        reader.GetInfo()
        check(False, "a wrong password is refused")
    except rapi.GanetiApiError as err:
        check(err.code == 401, "a wrong password is a 401: %s" % err)

    check_cluster_calls(c, info["master"])
    missing = sorted(m for m in dir(rapi.GanetiRapiClient)
                     if not m.startswith("_") and callable(getattr(rapi.GanetiRapiClient, m))
                     and m not in called)
    check(missing == [], "every public method of GanetiRapiClient was called: %r missing"
          % missing)


def wait_ok(c, job, what):
    ok = c.WaitForJobCompletion(job, period=PERIOD)
    check(ok, "%s's job succeeds%s" % (what, "" if ok else ": %r" % c.GetJobStatus(job)))
    return c.GetJobStatus(job)["opresult"]


def check_more_instance_calls(c, master):
    """Instance resources beyond the basic life cycle, on web1 (running, one
    16 MiB file disk)."""
    name = "web1.example.com"
    wait_ok(c, c.RebootInstance(name, reboot_type="soft"), "RebootInstance")
    wait_ok(c, c.ModifyInstance(name, beparams={"vcpus": 2}), "ModifyInstance")
    check(c.GetInstance(name)["beparams"]["vcpus"] == 2, "ModifyInstance: vcpus 2")

    # the fake hypervisor has no interactive console: Ganeti's "message" kind
    console = c.GetInstanceConsole(name)
    check(console["instance"] == name and console["kind"] == "message"
          and "no interactive console" in console["message"],
          "GetInstanceConsole: %r" % console)

    result = wait_ok(c, c.ActivateInstanceDisks(name), "ActivateInstanceDisks")
    rows = result[0]
    check(len(rows) == 1 and rows[0][0] == master and rows[0][1] == "disk/0"
          and rows[0][2].startswith("/"), "ActivateInstanceDisks: %r" % (rows,))
    path = rows[0][2]
    check(os.path.getsize(path) == 16 << 20, "the disk file is 16 MiB")
    wait_ok(c, c.GrowInstanceDisk(name, 0, 16), "GrowInstanceDisk")
    check(os.path.getsize(path) == 32 << 20, "GrowInstanceDisk grew the file to 32 MiB")
    check(c.GetInstance(name)["disk.sizes"] == [32], "GrowInstanceDisk: disk.sizes [32]")
    job = c.GrowInstanceDisk(name, 5, 16)
    check(not c.WaitForJobCompletion(job, period=PERIOD)
          and "Invalid disk index 5" in str(c.GetJobStatus(job)["opresult"]),
          "GrowInstanceDisk of a disk the instance lacks fails")
    wait_ok(c, c.DeactivateInstanceDisks(name, force=True), "DeactivateInstanceDisks")

    wait_ok(c, c.AddInstanceTags(name, ["web", "prod"]), "AddInstanceTags")
    check(sorted(c.GetInstanceTags(name)) == ["prod", "web"], "GetInstanceTags")
    wait_ok(c, c.DeleteInstanceTags(name, ["prod"]), "DeleteInstanceTags")
    check(c.GetInstanceTags(name) == ["web"], "DeleteInstanceTags removed one")

    wait_ok(c, c.ShutdownInstance(name, timeout=5), "ShutdownInstance")
    wait_ok(c, c.RenameInstance(name, "web9.example.com", ip_check=False, name_check=False),
            "RenameInstance")
    wait_ok(c, c.RenameInstance("web9.example.com", name, ip_check=False, name_check=False),
            "RenameInstance back")
    try:
        c.GetInstanceConsole(name)
        check(False, "GetInstanceConsole of a stopped instance fails")
    except rapi.GanetiApiError as err:
        check(err.code == 503, "GetInstanceConsole of a stopped instance: %s" % err)
    wait_ok(c, c.StartupInstance(name), "StartupInstance")

    # an instance that does not exist is a 404; a job on one fails
    for (what, call) in [("GetInstanceConsole", lambda: c.GetInstanceConsole("nosuch")),
                         ("GetInstanceTags", lambda: c.GetInstanceTags("nosuch"))]:
        try:
            call()
            check(False, "%s of an unknown instance fails" % what)
        except rapi.GanetiApiError as err:
            check(err.code == 404, "%s of an unknown instance: %s" % (what, err))


def check_group_calls(c, node):
    """Node groups: made, read, changed, renamed, given the master node and
    back, tagged and removed, each step's effect read back."""
    check([g["name"] for g in c.GetGroups(bulk=True)] == ["default"]
          and "default" in c.GetGroups(), "GetGroups: the default group")
    wait_ok(c, c.CreateGroup("g2", alloc_policy="last_resort"), "CreateGroup")
    check(c.GetGroup("g2")["alloc_policy"] == "last_resort", "GetGroup: the new group")
    wait_ok(c, c.ModifyGroup("g2", alloc_policy="preferred"), "ModifyGroup")
    check(c.GetGroup("g2")["alloc_policy"] == "preferred", "ModifyGroup changed the policy")
    wait_ok(c, c.RenameGroup("g2", "g3"), "RenameGroup")
    check(sorted(c.GetGroups()) == ["default", "g3"], "RenameGroup: %r" % c.GetGroups())
    wait_ok(c, c.AssignGroupNodes("g3", [node]), "AssignGroupNodes")
    check(c.GetNode(node)["group.uuid"] == c.GetGroup("g3")["uuid"],
          "AssignGroupNodes moved %s" % node)
    wait_ok(c, c.AssignGroupNodes("default", [node]), "AssignGroupNodes back")
    wait_ok(c, c.AddGroupTags("g3", ["rack3"]), "AddGroupTags")
    check(c.GetGroupTags("g3") == ["rack3"], "GetGroupTags: %r" % c.GetGroupTags("g3"))
    wait_ok(c, c.DeleteGroupTags("g3", ["rack3"]), "DeleteGroupTags")
    check(c.GetGroupTags("g3") == [], "DeleteGroupTags removed it")
    wait_ok(c, c.DeleteGroup("g3"), "DeleteGroup")
    check(c.GetGroups() == ["default"], "DeleteGroup: %r" % c.GetGroups())


def check_not_implemented(c, node):
    """Every method Gantry lacks: 501 naming Ganeti's resource, even on
    objects that exist (web1, the master node)."""
    inst = "web1.example.com"
    cases = [
        ("AddFilter", lambda: c.AddFilter(0, [], "ACCEPT"), "R_2_filters"),
        ("GetFilters", lambda: c.GetFilters(), "R_2_filters"),
        ("GetFilter", lambda: c.GetFilter("f1"), "R_2_filters_uuid"),
        ("ReplaceFilter", lambda: c.ReplaceFilter("f1", 0, [], "ACCEPT"), "R_2_filters_uuid"),
        ("DeleteFilter", lambda: c.DeleteFilter("f1"), "R_2_filters_uuid"),
        ("RedistributeConfig", lambda: c.RedistributeConfig(), "R_2_redist_config"),
        ("GetNetworks", lambda: c.GetNetworks(), "R_2_networks"),
        ("CreateNetwork", lambda: c.CreateNetwork("n1", "192.0.2.0/24"), "R_2_networks"),
        ("GetNetwork", lambda: c.GetNetwork("n1"), "R_2_networks_name"),
        ("DeleteNetwork", lambda: c.DeleteNetwork("n1"), "R_2_networks_name"),
        ("ModifyNetwork", lambda: c.ModifyNetwork("n1", gateway="192.0.2.1"),
         "R_2_networks_name_modify"),
        ("ConnectNetwork", lambda: c.ConnectNetwork("n1", "default", "bridged", "br0"),
         "R_2_networks_name_connect"),
        ("DisconnectNetwork", lambda: c.DisconnectNetwork("n1", "default"),
         "R_2_networks_name_disconnect"),
        ("GetNetworkTags", lambda: c.GetNetworkTags("n1"), "R_2_networks_name_tags"),
        ("AddNetworkTags", lambda: c.AddNetworkTags("n1", ["t"]), "R_2_networks_name_tags"),
        ("DeleteNetworkTags", lambda: c.DeleteNetworkTags("n1", ["t"]),
         "R_2_networks_name_tags"),
        ("GetNodeRole", lambda: c.GetNodeRole(node), "R_2_nodes_name_role"),
        ("SetNodeRole", lambda: c.SetNodeRole(node, "master"), "R_2_nodes_name_role"),
        ("ModifyNode", lambda: c.ModifyNode(node, drained=False), "R_2_nodes_name_modify"),
        ("PowercycleNode", lambda: c.PowercycleNode(node), "R_2_nodes_name_powercycle"),
        ("EvacuateNode", lambda: c.EvacuateNode(node, accept_old=True),
         "R_2_nodes_name_evacuate"),
        ("MigrateNode", lambda: c.MigrateNode(node), "R_2_nodes_name_migrate"),
        ("GetNodeStorageUnits", lambda: c.GetNodeStorageUnits(node, "file", "name"),
         "R_2_nodes_name_storage"),
        ("ModifyNodeStorageUnits", lambda: c.ModifyNodeStorageUnits(node, "lvm-vg", "xenvg"),
         "R_2_nodes_name_storage_modify"),
        ("RepairNodeStorageUnits", lambda: c.RepairNodeStorageUnits(node, "lvm-vg", "xenvg"),
         "R_2_nodes_name_storage_repair"),
        ("InstancesMultiAlloc", lambda: c.InstancesMultiAlloc([]),
         "R_2_instances_multi_alloc"),
        ("MigrateInstance", lambda: c.MigrateInstance(inst), "R_2_instances_name_migrate"),
        ("FailoverInstance", lambda: c.FailoverInstance(inst), "R_2_instances_name_failover"),
        ("ReplaceInstanceDisks", lambda: c.ReplaceInstanceDisks(inst),
         "R_2_instances_name_replace_disks"),
        ("RecreateInstanceDisks", lambda: c.RecreateInstanceDisks(inst),
         "R_2_instances_name_recreate_disks"),
        ("PrepareExport", lambda: c.PrepareExport(inst, "remote"),
         "R_2_instances_name_prepare_export"),
        ("ExportInstance", lambda: c.ExportInstance(inst, "local", node),
         "R_2_instances_name_export"),
    ]
    for (method, call, resource) in cases:
        getattr(c, method)  # noted as called
        expect_501(call, resource, method)


def check_cluster_calls(c, master):
    """The cluster's and nodes' resources, and what the client does alone."""
    wait_ok(c, c.AddClusterTags(["alpha", "beta"]), "AddClusterTags")
    check(sorted(c.GetClusterTags()) == ["alpha", "beta"], "GetClusterTags")
    wait_ok(c, c.DeleteClusterTags(["alpha"]), "DeleteClusterTags")
    check(c.GetClusterTags() == ["beta"], "DeleteClusterTags removed one")
    wait_ok(c, c.AddNodeTags(master, ["rack1"]), "AddNodeTags")
    check(c.GetNodeTags(master) == ["rack1"], "GetNodeTags")
    wait_ok(c, c.DeleteNodeTags(master, ["rack1"]), "DeleteNodeTags")
    check(c.GetNodeTags(master) == [], "DeleteNodeTags")
    check(c.GetNode(master)["name"] == master, "GetNode")
    try:
        c.GetNode("nosuch.example.com")
        check(False, "GetNode of an unknown node fails")
    except rapi.GanetiApiError as err:
        check(err.code == 404, "GetNode of an unknown node: %s" % err)

    # /2/modify: OP_CLUSTER_SET_PARAMS
    wait_ok(c, c.ModifyCluster(enabled_hypervisors=["fake", "kvm"]), "ModifyCluster")
    check(c.GetInfo()["enabled_hypervisors"] == ["fake", "kvm"],
          "ModifyCluster: enabled hypervisors fake, kvm")
    try:
        c.ModifyCluster(no_such_setting=1)
        check(False, "ModifyCluster with an unknown parameter fails")
    except rapi.GanetiApiError as err:
        check(err.code == 400 and "no_such_setting" in str(err),
              "ModifyCluster with an unknown parameter: %s" % err)

    rows = c.Query("node", ["name"])["data"]
    check(rows == [[[0, master]]], "Query(node): %r" % (rows,))
    fields = [f["name"] for f in c.QueryFields("node", ["name"])["fields"]]
    check(fields == ["name"], "QueryFields(node): %r" % fields)

    job = c.GetInstanceInfo("nosuch.example.com", static=True)
    check(not c.WaitForJobCompletion(job, period=PERIOD), "a failing job")
    status = c.WaitForJobChange(job, ["status"], None, None)
    check(status["job_info"] == ["error"], "WaitForJobChange of a finished job: %r" % status)
    try:
        c.GetJobStatus(987654)
        check(False, "GetJobStatus of an unknown job fails")
    except rapi.GanetiApiError as err:
        check(err.code == 404, "GetJobStatus of an unknown job: %s" % err)

    # an iallocator is refused, not ignored: Gantry has only its default placement
    job = c.CreateInstance("create", "web6.example.com", "diskless", [], [], os="noop",
                           iallocator="hail")
    check(not c.WaitForJobCompletion(job, period=PERIOD)
          and "iallocator 'hail' is not supported" in str(c.GetJobStatus(job)["opresult"]),
          "CreateInstance with an iallocator fails saying so")

    # builds a dict for InstancesMultiAlloc, no request
    alloc = c.InstanceAllocation("create", "web5.example.com", "file", [{"size": 1}], [])
    check(alloc["name"] == "web5.example.com", "InstanceAllocation: %r" % alloc)


if __name__ == "__main__":
    if not os.access(NOOP_OS, os.X_OK):
        print("SKIP: Debian's ganeti-os-noop is not installed (scripts/install-deps)")
        sys.exit(77)
    root = tempfile.mkdtemp(prefix="gnt-rapi-py-", dir="/tmp")
    try:
        main(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (checks - failed, failed))
    sys.exit(1 if failed else 0)
