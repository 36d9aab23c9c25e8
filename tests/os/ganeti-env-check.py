#!/usr/bin/env python3
"""Checks tests/data/os-env-create.golden against Ganeti 3.0's own
backend.OSEnvironment, fed the instance test-os-env.c builds. Skipped (77)
where Ganeti's Python is not installed. The one intended difference: we
also turn '.' into '_' in OSP_* names (Ganeti 3.0 only turns '-')."""

import json
import os
import sys
from unittest import mock

GANETI = "/usr/share/ganeti/3.0"
if not os.path.isdir(os.path.join(GANETI, "ganeti")):
    print("Ganeti's Python is not installed under %s" % GANETI)
    sys.exit(77)
sys.path.insert(0, GANETI)
# modules backend.py imports but OSEnvironment never touches
sys.modules.setdefault("simplejson", json)
for name in ("pycurl", "OpenSSL", "OpenSSL.crypto", "OpenSSL.SSL", "pyinotify"):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = mock.MagicMock()
try:
    __import__("bitarray")
except ImportError:
    stub = mock.MagicMock()
    stub.bitarray = type("bitarray", (), {"__init__": lambda self, *a, **k: None})
    sys.modules["bitarray"] = stub

from ganeti import backend, constants, objects, serializer  # noqa: E402


class RealDisk:
    def __init__(self, path):
        self.dev_path = path


PATHS = {"d0-uuid": "/srv/gantry/file-storage/inst1.example.com/disk0", "d1-uuid": None}
URIS = {"d0-uuid": None, "d1-uuid": "rbd:pool/vol1"}
backend._OpenRealBD = lambda disk: RealDisk(PATHS[disk.uuid])
backend._CalculateDeviceURI = lambda instance, disk, real: URIS[disk.uuid]

disks = [
    objects.Disk(uuid="d0-uuid", mode="rw", size=10240, name="root",
                 dev_type=constants.DT_FILE, logical_id=("loop", "/x")),
    objects.Disk(uuid="d1-uuid", mode="ro", size=512, name=None,
                 dev_type=constants.DT_RBD, logical_id=("rbd", "vol1")),
]
nics = [
    objects.NIC(mac="aa:00:00:11:22:33", uuid="n0-uuid", name="eth0", ip="192.0.2.10",
                nicparams={"mode": "bridged", "link": "br0"}, netinfo=None),
    objects.NIC(mac="aa:00:00:44:55:66", uuid="n1-uuid", name=None, ip=None,
                nicparams={"mode": "routed", "link": "rt100"}, netinfo=None),
]
instance = objects.Instance(
    name="inst1.example.com", os="sample+minimal", uuid="5f3b1c2e-inst",
    ctime=1700000000.5, mtime=1700000100.0, primary_node="node-uuid-1", hypervisor="kvm",
    nics=nics,
    hvparams={"serial_console": True, "disk_type": "paravirtual", "nic_type": "e1000",
              "kernel_args": "ro", "cpu_cores": 0, "vnc_bind_address": None,
              "cpu_mask": "all", "usb_devices": ["a", "b"]},
    beparams={"maxmem": 1024, "minmem": 512, "vcpus": 2, "auto_balance": True,
              "always_failover": False, "spindle_use": 1},
    osparams={"filesystem": "ext4", "root-size": "10G"},
    osparams_private=serializer.PrivateDict({"behaviour": "<redacted>",
                                             "secret.token": "<redacted>"}))
instance.disks_info = disks
instance.secondary_nodes = ["node-uuid-2"]
sample = objects.OS(name="sample", path="/x", api_versions=[20, 15, 10],
                    supported_variants=["default", "minimal"], supported_parameters=[])

env = backend.OSEnvironment(instance, sample, debug=1)
lines = []
for key in sorted(env):
    shown = key.replace(".", "_") if key.startswith("OSP_") else key
    lines.append("%s=%s" % (shown, env[key]))
lines.sort()
ganeti = "\n".join(lines) + "\n"
golden_path = os.path.join(os.environ["GNT_TEST_SRCDIR"], "data", "os-env-create.golden")
with open(golden_path) as golden_file:
    golden = golden_file.read()
if ganeti != golden:
    sys.stdout.writelines("-%s\n" % l for l in golden.splitlines() if l not in lines)
    sys.stdout.writelines("+%s\n" % l for l in lines if l not in golden.splitlines())
    sys.exit(1)
print("the golden environment is Ganeti's")
