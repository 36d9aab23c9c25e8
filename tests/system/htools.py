#!/usr/bin/python3
"""Ganeti's htools (Debian's ganeti-htools-3.0) against gantry-rapi.

A cluster of two nodes on this machine: the master on a temporary root and
a second gantry-noded on its own root at 127.0.0.2, joined with the token
gnt-node add prints; three instances (the fake hypervisor, two running,
file and diskless disks) and a second, empty node group. hinfo, hcheck,
hspace and hbal (a dry run: without -X it only prints its plan) read the
cluster through gantry-rapi (-m https://127.0.0.1:PORT: their RAPI backend
asks /2/groups, /2/nodes, /2/instances and /2/info), hbal also over LUXI
(-L). Each must run to completion, and what it reports must agree with
gnt-node list, gnt-instance list and gnt-group list, and with Ganeti's RAPI
client reading the same resources over verified TLS.

Exits 77 (skipped) only when ganeti-htools-3.0 is not installed;
scripts/install-deps installs it.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from ganeti.rapi import client as rapi  # Debian's python3-ganeti-rapi

from tap import Checks

HTOOLS = "/usr/lib/ganeti/3.0/usr/bin"
GNT_CLUSTER = os.environ["GNT_TEST_GNT_CLUSTER"]
GNT_NODE = os.environ["GNT_TEST_GNT_NODE"]
GNT_INSTANCE = os.environ["GNT_TEST_GNT_INSTANCE"]
GNT_GROUP = os.environ["GNT_TEST_GNT_GROUP"]
GANTRY_DAEMONS = os.environ["GNT_TEST_GANTRY_DAEMONS"]
NODED = os.path.join(os.environ["GANTRY_DAEMON_DIR"], "gantry-noded")
NODE2, NODE2_IP = "node2.example.com", "127.0.0.2"
# free memory and disk are read live from the hosts at different moments
# (and other tests write to the same disk): they agree within this much
MEM_SLACK_MIB = 512
DSK_SLACK_GIB = 2
check = Checks()


def run(argv, env, check_rc=True):
    """Runs a command; its stdout. A failure shows its output."""
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    if check_rc and proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError("%s exited %d" % (" ".join(argv), proc.returncode))
    return proc


def table(tool, what, fields, env):
    """gnt-* list with a separator: raw values (sizes in MiB), by name."""
    out = run([tool, "list", "--no-headers", "--separator=|", "-o", ",".join(fields)],
              env).stdout
    rows = {}
    for line in out.splitlines():
        cells = line.split("|")
        rows[cells[0]] = dict(zip(fields, cells))
    check(len(rows) > 0, "gnt-%s list answers" % what)
    return rows


def free_port(address):
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def add_node2(env, root2):
    """gantry-noded on its own root at 127.0.0.2, joined with a token."""
    port = str(free_port(NODE2_IP))
    first = run([GNT_NODE, "add", "--primary-ip", NODE2_IP, "--noded-port", port,
                 "--join-timeout", "0", NODE2], env).stdout
    token = re.search(r"GNTJ1\.[A-Za-z0-9._=-]+", first).group(0)
    run([NODED, "--join", token, "--address", NODE2_IP, "--listen",
         "%s:%s" % (NODE2_IP, port)], dict(env, GANTRY_ROOT=root2))
    run([GNT_NODE, "add", "--primary-ip", NODE2_IP, "--noded-port", port, NODE2], env)


def make_cluster(env, root2):
    run([GNT_CLUSTER, "init", "--noded-port", "0", "--enabled-hypervisors", "fake",
         "htools.example.com"], env)
    add_node2(env, root2)
    nodes = table(GNT_NODE, "node", ["name", "master"], env)
    master = [n for n, row in nodes.items() if row["master"] == "Y"][0]
    common = ["-o", "noop", "-H", "fake", "--no-install", "--no-nics"]
    run([GNT_INSTANCE, "add", "-t", "file", "--disk", "0:size=1G", "-B", "maxmem=512,vcpus=2",
         "-n", master] + common + ["web1"], env)
    run([GNT_INSTANCE, "add", "-t", "file", "--disk", "0:size=2G", "-B", "maxmem=1024",
         "-n", NODE2] + common + ["web2"], env)
    run([GNT_INSTANCE, "add", "-t", "diskless", "-B", "maxmem=256", "-n", NODE2] + common +
        ["web3"], env)
    run([GNT_INSTANCE, "startup", "web1"], env)
    run([GNT_INSTANCE, "startup", "web2"], env)
    # a second group: htools read every group, this one has no nodes
    run([GNT_GROUP, "add", "--alloc-policy", "unallocable", "spare"], env)
    return master


def wait_for_live_data(env, timeout=60):
    """Until every node reports its live figures: htools need them (a node
    that did not answer a query within masterd's 5 s shows "?"), and a
    loaded machine (sanitizer builds, parallel tests) can be slow at first."""
    deadline = time.monotonic() + timeout
    while True:
        out = run([GNT_NODE, "list", "--no-headers", "--separator=|", "-o",
                   "mtotal,dtotal,ctotal"], env).stdout
        cells = [c for line in out.splitlines() for c in line.split("|")]
        if cells and all(c.isdigit() for c in cells):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(1)


def htool(name, args, env):
    """An htool run to completion (exit 0); its output (hbal prints its
    tables on stderr)."""
    proc = run([os.path.join(HTOOLS, name)] + args, env, check_rc=False)
    ok = proc.returncode == 0
    check(ok, "%s %s exits 0%s" % (name, " ".join(args), "" if ok else
                                   " (%d): %s" % (proc.returncode, proc.stderr[-500:])))
    return proc.stdout + proc.stderr


def machine_readable(text):
    """KEY=VALUE lines of --machine-readable."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def status_table(text, header_start, blank=()):
    """hbal -p / --print-instances: the table after @header_start, rows by
    name. Column one (F) is a flag or blank; the columns in @blank are
    empty in every row (Sec_node: Gantry's instances have no secondary)."""
    lines = text.splitlines()
    start = lines.index(header_start)
    header = [h for h in lines[start + 1].split()[1:] if h not in blank]
    rows = {}
    for line in lines[start + 2:]:
        if not line.strip():
            break
        row = dict(zip(header, line[2:].split()))
        row["F"] = line[1].strip()
        rows[row["Name"]] = row
    return rows


def run_checks(env, cafile):
    port = int(open(os.path.join(env["GANTRY_ROOT"], "var/lib/gantry/rapi-port")).read())
    url = "https://127.0.0.1:%d" % port
    check(wait_for_live_data(env), "every node reports its memory, disk and CPUs")
    nodes = table(GNT_NODE, "node", ["name", "mtotal", "mnode", "mfree", "dtotal", "dfree",
                                     "ctotal", "pinst_cnt", "group.uuid"], env)
    insts = table(GNT_INSTANCE, "instance", ["name", "pnode", "status", "oper_ram",
                                             "be/maxmem", "be/vcpus", "disk_usage"], env)
    groups = table(GNT_GROUP, "group", ["name", "uuid", "node_cnt", "pinst_cnt",
                                        "alloc_policy"], env)
    check(len(nodes) == 2 and len(insts) == 3 and len(groups) == 2,
          "two nodes, three instances, two groups")

    # Ganeti's RAPI client over verified TLS sees the same groups
    c = rapi.GanetiRapiClient("127.0.0.1", port=port,
                              curl_config_fn=rapi.GenericCurlConfig(cafile=cafile))
    bulk = {g["name"]: g for g in c.GetGroups(bulk=True)}
    check(sorted(bulk) == sorted(groups), "GetGroups(bulk=True): %r" % sorted(bulk))
    for name, row in groups.items():
        g = bulk.get(name, {})
        check(g.get("uuid") == row["uuid"] and str(g.get("node_cnt")) == row["node_cnt"]
              and g.get("alloc_policy") == row["alloc_policy"],
              "group %s over RAPI: %r" % (name, {k: g.get(k) for k in
                                                ("uuid", "node_cnt", "alloc_policy")}))
    check(sorted(c.GetGroup("default")["node_list"]) == sorted(nodes),
          "GetGroup(default) lists both nodes")

    # hinfo: what it loaded
    out = htool("hinfo", ["-m", url], env)
    check("Loaded 2 nodes, 3 instances, 2 node groups" in out,
          "hinfo loaded 2 nodes, 3 instances, 2 node groups")

    # hcheck: every group, by the UUIDs gnt-group lists
    out = htool("hcheck", ["--machine-readable", "-m", url], env)
    mr = machine_readable(out)
    uuids = sorted(v.strip("'") for k, v in mr.items() if k.startswith("HCHECK_GROUP_UUID_"))
    check(uuids == sorted(r["uuid"] for r in groups.values()),
          "hcheck checked the groups gnt-group lists: %r" % uuids)
    check(mr.get("HCHECK_INIT_CLUSTER_N1_FAIL") == "0", "hcheck: no node fails N+1")

    # hspace: the cluster's resources are the nodes' totals
    out = htool("hspace", ["--machine-readable", "-m", url], env)
    mr = machine_readable(out)
    want = {
        "HTS_CLUSTER_NODES": len(nodes),
        "HTS_CLUSTER_MEM": sum(int(n["mtotal"]) for n in nodes.values()),
        "HTS_CLUSTER_DSK": sum(int(n["dtotal"]) for n in nodes.values()),
        "HTS_CLUSTER_CPU": sum(int(n["ctotal"]) for n in nodes.values()),
        "HTS_INI_INST_CNT": len(insts),
        # htools count the memory of running instances (their oper_ram)
        "HTS_INI_MEM_INST": sum(int(i["oper_ram"]) for i in insts.values()
                                if i["status"] == "running"),
    }
    for key, value in want.items():
        check(mr.get(key) == str(value), "hspace %s=%s (gnt-* lists: %s)" %
              (key, mr.get(key), value))
    check(mr.get("HTS_OK") == "1", "hspace HTS_OK=1")

    # hbal, a dry run: per node and per instance figures
    out = htool("hbal", ["-m", url, "-p", "--print-instances"], env)
    check("Solution length=" in out, "hbal computed a solution (dry run)")
    check("Selected node group: default" in out, "hbal balanced the group with the nodes")
    hnodes = status_table(out, "Initial cluster status:")
    check(sorted(hnodes) == sorted(nodes), "hbal's nodes: %r" % sorted(hnodes))
    for name, n in nodes.items():
        h = hnodes.get(name, {})
        running = sum(int(i["oper_ram"]) for i in insts.values()
                      if i["pnode"] == name and i["status"] == "running")
        check(h.get("t_mem") == n["mtotal"] and h.get("pcpu") == n["ctotal"] and
              h.get("pcnt") == n["pinst_cnt"] and h.get("i_mem") == str(running),
              "hbal node %s: t_mem %s pcpu %s pcnt %s i_mem %s (gnt-* lists: %s %s %s %d)" %
              (name, h.get("t_mem"), h.get("pcpu"), h.get("pcnt"), h.get("i_mem"),
               n["mtotal"], n["ctotal"], n["pinst_cnt"], running))
        check(int(h.get("t_dsk", -1)) == round(int(n["dtotal"]) / 1024),
              "hbal node %s: t_dsk %s GiB (dtotal %s MiB)" % (name, h.get("t_dsk"), n["dtotal"]))
        check(abs(int(h.get("f_mem", 0)) - int(n["mfree"])) <= MEM_SLACK_MIB and
              abs(int(h.get("f_dsk", 0)) - round(int(n["dfree"]) / 1024)) <= DSK_SLACK_GIB,
              "hbal node %s: f_mem %s f_dsk %s GiB (mfree %s, dfree %s MiB)" %
              (name, h.get("f_mem"), h.get("f_dsk"), n["mfree"], n["dfree"]))
    hinsts = status_table(out, "Initial instance map:", blank=("Sec_node",))
    check(sorted(hinsts) == sorted(insts), "hbal's instances: %r" % sorted(hinsts))
    for name, i in insts.items():
        h = hinsts.get(name, {})
        check(h.get("Pri_node") == i["pnode"] and h.get("vcpu") == i["be/vcpus"] and
              h.get("mem") == i["be/maxmem"] and
              h.get("dsk") == str(round(int(i["disk_usage"]) / 1024)) and
              (h.get("F") == "R") == (i["status"] == "running"),
              "hbal instance %s: %r (gnt-instance list: %r)" % (name, h, i))

    # hbal over LUXI sees the same cluster
    socket_path = os.path.join(env["GANTRY_ROOT"], "run/gantry/socket/gantry-master")
    out = htool("hbal", ["-L" + socket_path], env)
    check("Loaded 2 nodes, 3 instances" in out and "Solution length=" in out,
          "hbal -L (LUXI) loaded 2 nodes, 3 instances")


def main():
    if not os.access(os.path.join(HTOOLS, "hbal"), os.X_OK):
        print("1..0 # SKIP ganeti-htools-3.0 is not installed (scripts/install-deps)")
        return 77
    root1 = tempfile.mkdtemp(prefix="gnt-ht1-")
    root2 = tempfile.mkdtemp(prefix="gnt-ht2-")
    env = dict(os.environ, GANTRY_ROOT=root1)
    try:
        make_cluster(env, root2)
        run_checks(env, os.path.join(root1, "var/lib/gantry/tls/ca.pem"))
    finally:
        run([GANTRY_DAEMONS, "stop"], dict(env, GANTRY_ROOT=root2), check_rc=False)
        run([GNT_CLUSTER, "destroy", "--yes-do-it"], env, check_rc=False)
        shutil.rmtree(root1, ignore_errors=True)
        shutil.rmtree(root2, ignore_errors=True)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
