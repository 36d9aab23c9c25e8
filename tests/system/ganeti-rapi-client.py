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


def check(cond, what):
    """Counts and prints a check; a failed one does not stop the others."""
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
        print("not ok %d - %s" % (checks, what))
    else:
        print("ok %d - %s" % (checks, what))


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
    c = rapi.GanetiRapiClient("127.0.0.1", port=port, username=USER, password=PASSWORD,
                              curl_config_fn=rapi.GenericCurlConfig(cafile=cafile,
                                                                    verify_hostname=True))

    check(c.GetVersion() == 2, "GetVersion is 2 (port %d, certificate verified)" % port)
    info = c.GetInfo()
    check(info["name"] == "cluster.example.com", "GetInfo names the cluster")
    check("fake" in info["enabled_hypervisors"], "GetInfo: enabled hypervisors %r"
          % info["enabled_hypervisors"])
    check("vg_name" in info and "drbd_helper" in info, "GetInfo has rlib2's aliases")
    features = c.GetFeatures()
    check(sorted(features) == [rapi._INST_CREATE_REQV1, rapi._INST_REINSTALL_REQV1],
          "GetFeatures: %r" % features)
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
