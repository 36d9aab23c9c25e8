#!/usr/bin/python3
"""Drives gantry-masterd with Ganeti's own Python LUXI client (ganeti-3.0).

Every call below is the real ganeti.luxi.Client / ganeti.cli code path a
Ganeti tool takes; the assertions check what Ganeti itself would return.
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, "/usr/share/ganeti/3.0")

from ganeti import cli, errors, luxi, opcodes  # noqa: E402

GNT_CLUSTER = os.environ["GNT_TEST_GNT_CLUSTER"]
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        raise AssertionError(what)
    print("ok %d - %s" % (checks, what))


def main(root):
    env = dict(os.environ, GANTRY_ROOT=root)
    subprocess.run([GNT_CLUSTER, "init", "--noded-port", "0", "cluster.example.com"], env=env, check=True)
    try:
        run_checks(os.path.join(root, "run/gantry/socket/gantry-master"))
    finally:
        subprocess.run([GNT_CLUSTER, "destroy", "--yes-do-it"], env=env, check=False)


def run_checks(address):
    c = luxi.Client(address=address)

    info = c.QueryClusterInfo()
    check(info["name"] == "cluster.example.com", "QueryClusterInfo names the cluster")
    check(info["protocol_version"] == 3000000, "QueryClusterInfo protocol_version")

    jid = c.SubmitJob([opcodes.OpTestDelay(duration=0)])
    check(isinstance(jid, int), "SubmitJob returns an int job ID")

    log = []
    result = cli.PollJob(jid, cl=c, feedback_fn=log.append)
    check(result == [None], "cli.PollJob returns the opcode results")

    rows = c.QueryJobs([jid], ["id", "status", "opstatus", "opresult", "summary"])
    check(rows == [[jid, "success", ["success"], [None], ["TEST_DELAY(0)"]]],
          "QueryJobs row: %r" % (rows,))
    rows = c.QueryJobs([str(jid)], ["id"])
    check(rows == [[jid]], "QueryJobs accepts the ID as a string")
    rows = c.QueryJobs([999999], ["id", "status"])
    check(rows == [[999999, None]], "QueryJobs of an unknown job: %r" % (rows,))

    # the log shows through WaitForJobChangeOnce
    jid2 = c.SubmitJob([opcodes.OpTestDummy(result={"a": 1}, messages=["one", "two"],
                                            fail=False, submit_jobs=[])])
    msgs = []
    result = cli.PollJob(jid2, cl=c, feedback_fn=msgs.append)
    check(result == [{"a": 1}], "OP_TEST_DUMMY result comes back: %r" % (result,))
    texts = [m[2] for m in msgs]
    check(texts == ["one", "two"], "job log reaches the client in order: %r" % (texts,))

    # an opcode that fails is re-raised by the client as OpExecError
    jid3 = c.SubmitJob([opcodes.OpTestDummy(result=None, messages=[], fail=True,
                                            submit_jobs=[])])
    try:
        cli.PollJob(jid3, cl=c, feedback_fn=lambda m: None)
        check(False, "a failing job raises")
    except errors.OpExecError as err:
        check("Opcode failure was requested" in str(err), "OpExecError carries the message")

    # many jobs at once, with a relative dependency
    ops = [[opcodes.OpTestDelay(duration=0.2)],
           [opcodes.OpTestDelay(duration=0, depends=[[-1, ["success"]]])]]
    res = c.SubmitManyJobs(ops)
    check(len(res) == 2 and all(ok for ok, _ in res), "SubmitManyJobs: %r" % (res,))
    first, second = res[0][1], res[1][1]
    check(second == first + 1, "consecutive IDs")
    cli.PollJob(second, cl=c, feedback_fn=lambda m: None)
    rows = c.QueryJobs([first, second], ["status"])
    check(rows == [["success"], ["success"]], "dependency ran in order")

    # query2
    resp = c.Query("job", ["id", "status"], ["==", "id", jid])
    check(resp.data == [[[0, jid], [0, "success"]]], "Query job: %r" % (resp.data,))
    fields = c.QueryFields("job", ["id", "nonexistent"])
    kinds = [f.kind for f in fields.fields]
    check(kinds == ["number", "unknown"], "QueryFields kinds: %r" % (kinds,))

    # cancel a queued job behind a lock holder
    hold = c.SubmitJob([opcodes.OpTestDelay(duration=2, no_locks=False)])
    queued = c.SubmitJob([opcodes.OpTestDelay(duration=0, no_locks=False)])
    (ok, msg) = c.CancelJob(queued)
    check(ok, "CancelJob of a waiting job: %s" % msg)
    (ok, msg) = c.CancelJob(jid)
    check(not ok, "CancelJob of a finished job fails: %s" % msg)
    cli.PollJob(hold, cl=c, feedback_fn=lambda m: None)
    rows = c.QueryJobs([queued], ["status"])
    check(rows == [["canceled"]], "the canceled job ends canceled: %r" % (rows,))

    # archive
    check(c.ArchiveJob(jid) is True, "ArchiveJob of a finished job")
    check(c.ArchiveJob(jid) is False, "ArchiveJob twice")
    resp = c.Query("job", ["id", "archived"], ["==", "id", jid])
    check(resp.data == [[[0, jid], [0, True]]], "archived job found by Query")
    (count, left) = c.AutoArchiveJobs(-1)
    check(count >= 5 and left == 0, "AutoArchiveJobs(-1): %d, %d" % (count, left))
    check(c.QueryJobs(None, ["id"]) == [], "no live jobs after auto-archive")

    # node groups with Ganeti's own opcodes (their defaults serialized as
    # Ganeti sends them) and queries
    jid = c.SubmitJob([opcodes.OpGroupAdd(group_name="rack2", alloc_policy="last_resort",
                                          ndparams={"ssh_port": 2200})])
    cli.PollJob(jid, cl=c, feedback_fn=lambda m: None)
    rows = c.QueryGroups([], ["name", "node_cnt", "alloc_policy", "ndp/ssh_port"], False)
    check(sorted(rows) == [["default", 1, "preferred", 22], ["rack2", 0, "last_resort", 2200]],
          "QueryGroups: %r" % (rows,))
    jid = c.SubmitJob([opcodes.OpGroupSetParams(group_name="rack2", alloc_policy="preferred",
                                                ipolicy={"vcpu-ratio": 2.0}),
                       opcodes.OpGroupRename(group_name="rack2", new_name="rack3"),
                       opcodes.OpTagsSet(kind="nodegroup", name="rack3", tags=["cold"])])
    result = cli.PollJob(jid, cl=c, feedback_fn=lambda m: None)
    check(result[1] == "rack3", "OpGroupRename answers the new name: %r" % (result,))
    resp = c.Query("group", ["name", "alloc_policy", "custom_ipolicy"], ["=", "name", "rack3"])
    check(resp.data == [[[0, "rack3"], [0, "preferred"], [0, {"vcpu-ratio": 2.0}]]],
          "Query group: %r" % (resp.data,))
    check(c.QueryTags("nodegroup", "rack3") == ["cold"], "QueryTags nodegroup")
    jid = c.SubmitJob([opcodes.OpGroupRemove(group_name="rack3")])
    cli.PollJob(jid, cl=c, feedback_fn=lambda m: None)
    try:
        jid = c.SubmitJob([opcodes.OpGroupRemove(group_name="default")])
        cli.PollJob(jid, cl=c, feedback_fn=lambda m: None)
        check(False, "the group with the master node is not removed")
    except errors.OpPrereqError as err:
        check("not empty" in str(err), "a group with nodes stays: %s" % err)
    verify_with_ganeti_cli(c)

    # bad input answers, and the connection stays usable
    try:
        c.CallMethod("SubmitJob", [[{"OP_ID": "OP_NO_SUCH_THING"}]])
        check(False, "an unknown opcode is refused")
    except (errors.LuxiError, errors.GenericError) as err:
        check("OP_NO_SUCH_THING" in str(err), "unknown opcode refused: %s" % err)
    # what Gantry lacks of Ganeti's: an error Ganeti's CLI shows as such,
    # not "Unhandled protocol error"
    try:
        c.SubmitJob([opcodes.OpInstanceMigrate(instance_name="web1.example.com")])
        check(False, "an opcode Gantry lacks is refused")
    except errors.OpPrereqError as err:
        text = cli.FormatError(err)[1]
        check("OP_INSTANCE_MIGRATE' is not supported by Gantry" in text
              and "Unhandled" not in text, "an opcode Gantry lacks: %r" % text)
    try:
        c.QueryNetworks(None, ["name"], False)
        check(False, "a LUXI method Gantry lacks is refused")
    except errors.OpPrereqError as err:
        text = cli.FormatError(err)[1]
        check("'QueryNetworks' is not supported by Gantry" in text and "Unhandled" not in text,
              "a LUXI method Gantry lacks: %r" % text)
    try:
        c.SubmitJob([opcodes.OpTestDelay(duration=-1)])
        check(False, "a negative duration is refused")
    except (errors.LuxiError, errors.GenericError) as err:
        check("duration" in str(err), "invalid parameter refused: %s" % err)
    check(c.QueryClusterInfo()["name"] == "cluster.example.com", "still serving")


class VerifyOpts(object):
    """The options gnt-cluster verify and verify-disks parse, as Ganeti's
    optparse leaves them by default."""
    verbose = False
    error_codes = True
    simulate_errors = False
    skip_nplusone_mem = False
    skip_hvparam_assessment = False
    ignore_errors = []
    nodegroup = None
    verify_clutter = False
    no_strict = False
    debug = 0
    dry_run = False
    priority = None
    submit_only = False
    print_jobid = False
    reason = None


def verify_with_ganeti_cli(c):
    """Ganeti's own gnt-cluster verify and verify-disks (gnt_cluster.py
    VerifyCluster, VerifyDisks): its JobExecutor follows the job IDs the
    opcode returns, and its exit code comes from their results."""
    import contextlib
    import io
    from ganeti.client import gnt_cluster

    gnt_cluster.GetClient = lambda *args, **kwargs: c
    saved_argv = sys.argv
    sys.argv = ["gnt-cluster", "verify"]  # the reason trail names the command
    try:
        verify_runs(gnt_cluster)
    finally:
        sys.argv = saved_argv


def verify_runs(gnt_cluster):
    import contextlib
    import io

    opts = VerifyOpts()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = gnt_cluster.VerifyCluster(opts, [])
    text = out.getvalue()
    check(rc == 0, "Ganeti's VerifyCluster: exit 0 on a healthy cluster: %s" % text)
    check("Submitted jobs " in text and "* Verifying group 'default'" in text,
          "Ganeti's VerifyCluster follows the submitted jobs: %s" % text)
    opts.simulate_errors = True
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = gnt_cluster.VerifyCluster(opts, [])
    check(rc == 1 and "ERROR:ENODEVERSION:node:" in out.getvalue(),
          "Ganeti's VerifyCluster: simulated errors give exit 1: %s" % out.getvalue())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = gnt_cluster.VerifyDisks(opts, [])
    check(rc == 0 and "No disks need to be activated." in out.getvalue(),
          "Ganeti's VerifyDisks reads the group result: %s" % out.getvalue())


if __name__ == "__main__":
    root = tempfile.mkdtemp(prefix="gnt-py-", dir="/tmp")
    try:
        main(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d passed, 0 failed" % checks)
