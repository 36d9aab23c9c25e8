#!/usr/bin/env python3
"""The install agent (appliance/agent) in the fake hypervisor's mode: a
process on the host speaking to a metad stand-in over a unix socket
(GANTRY_METAD_SOCKET), disks from GANTRY_DISKS. TAP output.

Checks: the order of the progress reports; the script sees the OSP_* values
exactly (quotes, spaces, newlines, $ and backticks); a failing script is
reported failed with its output's tail and nothing after it runs; no create
script; the package lands on a loop-mounted ext4 file disk, overwriting
(root only, skipped otherwise); the agent never calls poweroff on the host.
"""
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import metad_stub  # noqa: E402
from gnt_tap import check, report, skip  # noqa: E402

AGENT = os.environ.get("GNT_TEST_AGENT") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "appliance", "agent")

ENVIRONMENT = {
    "OS_API_VERSION": "20",
    "INSTANCE_NAME": "web1.example.com",
    "DISK_COUNT": "1",
    "OSP_PLAIN": "hello",
    "OSP_QUOTES": "it's \"quoted\"",
    "OSP_SPACES": "  two  spaces  ",
    "OSP_SHELL": "$HOME `id` $(id) \\n ;|&",
    "OSP_NEWLINE": "line one\nline two",
    "OSP_EMPTY": "",
    "OSP_TOKEN": "s3cr3t-4f9a-token",
}

PRINT_SCRIPT = """#!/bin/sh
for v in OSP_PLAIN OSP_QUOTES OSP_SPACES OSP_SHELL OSP_NEWLINE OSP_EMPTY; do
    eval "printf '%s=[%s]\\n' $v \\"\\${$v}\\""
done
echo "instance=$INSTANCE_NAME"
# the environment (secrets) must be in no file of the agent's while it runs
if grep -rqs "$OSP_TOKEN" "$TMPDIR"; then echo "secret in a file"; else echo "secret in no file"; fi
"""



class Run:
    def __init__(self, environment=ENVIRONMENT, script=PRINT_SCRIPT, package=None, disks=None):
        self.dir = tempfile.mkdtemp(prefix="gnt-agent-")
        self.socket = os.path.join(self.dir, "metad.sock")
        self.stub = metad_stub.Stub(self.socket, environment, script, package)
        # a poweroff that only leaves a mark: the host must never power off
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        self.mark = os.path.join(self.dir, "poweroff-called")
        with open(os.path.join(self.bin, "poweroff"), "w") as f:
            f.write("#!/bin/sh\ntouch %s\n" % self.mark)
        os.chmod(os.path.join(self.bin, "poweroff"), 0o755)
        env = dict(os.environ)
        env.update({
            "GANTRY_METAD_SOCKET": self.socket,
            "GANTRY_METAD_URL": "http://metad",
            "GANTRY_DISKS": " ".join(disks or []),
            # even with /init's mark, a socket means the host
            "GANTRY_APPLIANCE": "1",
            "PATH": self.bin + ":" + os.environ.get("PATH", "/usr/bin:/bin"),
            "TMPDIR": self.dir,
        })
        proc = subprocess.run(["sh", AGENT], env=env, capture_output=True, timeout=120)
        self.status = proc.returncode
        self.stderr = proc.stderr.decode(errors="replace")
        self.stub.close()
        self.progress = self.stub.progress
        self.steps = self.stub.steps()
        self.poweroff_called = os.path.exists(self.mark)
        self.leftovers = sorted(n for n in os.listdir(self.dir) if n not in ("bin", "poweroff-called"))

    def entry(self, step, state):
        for e in self.progress:
            if (e["step"], e["state"]) == (step, state):
                return e
        return None

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def test_success_no_package():
    r = Run()
    expected_steps = [("appliance", "start"), ("run_os_scripts", "start"),
                      ("run_os_scripts", "done"), ("personalize", "info"),
                      ("appliance", "done")]
    check("success: exit status 0", r.status == 0, r.stderr)
    check("success: the reports in order", r.steps == expected_steps, repr(r.steps))
    done = r.entry("run_os_scripts", "done") or {"output": ""}
    expected = "".join("%s=[%s]\n" % (k, ENVIRONMENT[k]) for k in
                       ("OSP_PLAIN", "OSP_QUOTES", "OSP_SPACES", "OSP_SHELL", "OSP_NEWLINE",
                        "OSP_EMPTY")) + "instance=web1.example.com\nsecret in no file\n"
    check("success: the script saw the OSP_* values exactly", done["output"] == expected,
          repr(done["output"]))
    info = r.entry("personalize", "info") or {}
    check("success: no package reported", info.get("detail") == "no personalization package",
          repr(info))
    check("success: no poweroff on the host", not r.poweroff_called)
    check("success: the work directory removed", r.leftovers == ["metad.sock"] or r.leftovers == [],
          repr(r.leftovers))
    r.cleanup()


def test_failing_script():
    script = "#!/bin/sh\ni=0\nwhile [ $i -lt 3000 ]; do echo \"line $i of the script's output\"; i=$((i+1)); done\necho 'the last words' >&2\nexit 3\n"
    r = Run(script=script)
    check("failing: exit status 1", r.status == 1, r.stderr)
    check("failing: the reports in order",
          r.steps == [("appliance", "start"), ("run_os_scripts", "start"),
                      ("run_os_scripts", "failed"), ("appliance", "failed")], repr(r.steps))
    failed = r.entry("run_os_scripts", "failed") or {"detail": "", "output": ""}
    check("failing: the exit status named",
          failed["detail"] == "the create script failed with exit status 3", failed["detail"])
    check("failing: the output's tail (64 KiB, ending with the last line)",
          failed["output"].endswith("line 2999 of the script's output\nthe last words\n")
          and len(failed["output"]) == 65536, "%d bytes" % len(failed["output"]))
    check("failing: the package never asked for",
          "GET /ganeti/latest/os/package" not in r.stub.requests, repr(r.stub.requests))
    check("failing: no poweroff on the host", not r.poweroff_called)
    r.cleanup()


def test_no_script():
    r = Run(script=None)
    check("no script: exit status 1", r.status == 1, r.stderr)
    failed = r.entry("run_os_scripts", "failed") or {"detail": ""}
    check("no script: reported", failed["detail"] == "metad has no create script for this instance",
          repr(failed))
    check("no script: appliance failed last", r.steps[-1] == ("appliance", "failed"), repr(r.steps))


def make_package():
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        def add(name, kind, content=b"", mode=0o644, uid=0, target=""):
            info = tarfile.TarInfo(name)
            info.mode, info.uid, info.gid, info.mtime = mode, uid, uid, 1700000000
            if kind == "d":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif kind == "l":
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
        add("etc", "d", mode=0o755)
        add("etc/motd", "f", b"personalized\n")
        add("home/alice/.ssh/authorized_keys", "f", b"ssh-ed25519 AAAA alice\n", 0o600, 4321)
        add("etc/motd.link", "l", target="motd")
    return data.getvalue()


def debugfs(image, request):
    return subprocess.run(["debugfs", "-R", request, image], capture_output=True,
                          timeout=60).stdout.decode(errors="replace")


def test_package_on_disk():
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4") or not shutil.which("debugfs"):
        skip("package: skipped (needs root, mkfs.ext4 and debugfs)")
        return
    work = tempfile.mkdtemp(prefix="gnt-agent-disk-")
    tree = os.path.join(work, "tree")
    os.makedirs(os.path.join(tree, "etc"))
    with open(os.path.join(tree, "etc", "motd"), "w") as f:
        f.write("from the OS script\n")
    with open(os.path.join(tree, "etc", "hostname"), "w") as f:
        f.write("web1\n")
    disk = os.path.join(work, "disk0.img")
    subprocess.run(["mkfs.ext4", "-q", "-F", "-d", tree, disk, "16M"], check=True,
                   capture_output=True)
    r = Run(package=make_package(), disks=[disk])
    check("package: exit status 0", r.status == 0, r.stderr)
    check("package: the reports in order",
          r.steps == [("appliance", "start"), ("run_os_scripts", "start"),
                      ("run_os_scripts", "done"), ("personalize", "start"),
                      ("personalize", "done"), ("appliance", "done")], repr(r.steps))
    check("package: etc/motd overwritten", debugfs(disk, "cat /etc/motd") == "personalized\n",
          debugfs(disk, "cat /etc/motd"))
    check("package: the script's other files kept",
          debugfs(disk, "cat /etc/hostname") == "web1\n")
    check("package: authorized_keys there",
          debugfs(disk, "cat /home/alice/.ssh/authorized_keys") == "ssh-ed25519 AAAA alice\n")
    stat = debugfs(disk, "stat /home/alice/.ssh/authorized_keys")
    check("package: numeric owner and mode kept",
          "User:  4321" in stat and "Mode:  0600" in stat, stat[:300])
    check("package: the symlink", "Fast link dest: \"motd\"" in debugfs(disk, "stat /etc/motd.link"))
    losetup = subprocess.run(["losetup", "-j", disk], capture_output=True).stdout.decode()
    check("package: the loop device detached", losetup.strip() == "", losetup)
    with open("/proc/mounts") as f:
        check("package: nothing left mounted", "gantry-disk0" not in f.read())
    check("package: no poweroff on the host", not r.poweroff_called)
    r.cleanup()
    shutil.rmtree(work, ignore_errors=True)


def test_package_on_partition():
    if os.geteuid() != 0 or not shutil.which("sfdisk") or not shutil.which("debugfs"):
        skip("partition: skipped (needs root, sfdisk and debugfs)")
        return
    work = tempfile.mkdtemp(prefix="gnt-agent-part-")
    disk = os.path.join(work, "disk0.img")
    with open(disk, "wb") as f:
        f.truncate(32 << 20)
    subprocess.run(["sfdisk", "-q", disk], input=b"start=2048, type=83\n", check=True,
                   capture_output=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "offset=1048576", disk, "30M"], check=True,
                   capture_output=True)
    r = Run(package=make_package(), disks=[disk])
    check("partition: exit status 0", r.status == 0, r.stderr)
    part1 = disk + "?offset=1048576"
    check("partition: the package is on partition 1",
          debugfs(part1, "cat /etc/motd") == "personalized\n", debugfs(part1, "cat /etc/motd"))
    table = subprocess.run(["sfdisk", "-d", disk], capture_output=True).stdout.decode()
    check("partition: the partition table kept", "start=        2048" in table, table)
    r.cleanup()
    shutil.rmtree(work, ignore_errors=True)


def main():
    for test in (test_success_no_package, test_failing_script, test_no_script,
                 test_package_on_disk, test_package_on_partition):
        test()
    return report()


if __name__ == "__main__":
    sys.exit(main())
