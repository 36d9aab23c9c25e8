#!/usr/bin/python3
"""cloud-init's own crawlers (Debian's cloud-init) against gantry-metad.

metad on a temporary root; an instance pushed over the control socket with
a channel {"device": "lo", "address": "127.0.0.1", "port": <free>} (a TCP
listener bound to lo with SO_BINDTODEVICE, as on a tap); then cloud-init's
OpenStack reader (cloudinit.sources.helpers.openstack.MetadataReader, what
DataSourceOpenStack.read_metadata_service() runs) and its EC2 helpers
(get_instance_metadata, get_instance_userdata) with metadata_address
pointing at it. Each value they read is checked: instance id/uuid, host
name, public keys, user data, network data.
"""

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

# Debian's cloud-init (/usr/lib/python3/dist-packages/cloudinit)
from cloudinit.sources.helpers import ec2 as ec2_helpers  # noqa: E402
from cloudinit.sources.helpers import openstack  # noqa: E402

METAD = os.environ["GNT_TEST_METAD"]
UUID = "7d2f0c7e-0001-4d1e-9a7b-3c5e2a1b0c9d"
KEY_ALICE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAlice alice@example.com"
KEY_RSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQRsa"
USER_DATA = "#cloud-config\nhostname: web1\nruncmd:\n - [echo, 'héllo']\n"
RECORD = {
    "name": "web1", "uuid": UUID, "hostname": "web1.example.com",
    "os": "debootstrap+default",
    "user_data": USER_DATA,
    "ssh_keys": [KEY_ALICE, KEY_RSA],
    "nics": [{"mac": "52:54:00:00:00:01", "ip": "192.0.2.10", "netmask": "255.255.255.0"},
             {"mac": "52:54:00:00:00:02"}],
}
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


class UnixConnection(http.client.HTTPConnection):
    """HTTP over metad's control socket."""

    def __init__(self, path):
        super().__init__("localhost")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def control(path, method, url, body):
    conn = UnixConnection(path)
    conn.request(method, url, body=json.dumps(body),
                 headers={"Content-Type": "application/json"})
    answer = conn.getresponse()
    text = answer.read()
    conn.close()
    if answer.status != 204:
        raise RuntimeError("%s %s: %d %s" % (method, url, answer.status, text))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_checks(base):
    # OpenStack: what DataSourceOpenStack.read_metadata_service() does
    reader = openstack.MetadataReader(base, timeout=5, retries=0)
    found = reader.read_v2()
    md = found["metadata"]
    check(md.get("uuid") == UUID, "openstack: uuid %r" % md.get("uuid"))
    check(md.get("hostname") == "web1.example.com", "openstack: hostname")
    check(md.get("name") == "web1", "openstack: name")
    keys = md.get("public_keys", {})
    check(sorted(keys.values()) == sorted([KEY_ALICE, KEY_RSA]),
          "openstack: public_keys %r" % keys)
    check(keys.get("alice@example.com") == KEY_ALICE, "openstack: a key named by its comment")
    ud = found.get("userdata")
    if isinstance(ud, bytes):
        ud = ud.decode()
    check(ud == USER_DATA, "openstack: user data %r" % ud)
    net = found.get("networkdata") or {}
    links = net.get("links", [])
    check([link.get("ethernet_mac_address") for link in links]
          == ["52:54:00:00:00:01", "52:54:00:00:00:02"], "openstack: network links %r" % links)
    nets = net.get("networks", [])
    check(len(nets) == 2 and nets[0].get("ip_address") == "192.0.2.10"
          and nets[0].get("netmask") == "255.255.255.0" and nets[0].get("type") == "ipv4"
          and nets[1].get("type") == "ipv4_dhcp", "openstack: networks %r" % nets)
    check(found.get("vendordata") == {}, "openstack: vendor data")
    check(found.get("version") == 2, "openstack: version 2")
    # cloud-init turns network_data.json into its own network config
    from cloudinit.sources.helpers.openstack import convert_net_json
    config = convert_net_json(net, known_macs={"52:54:00:00:00:01": "eth0",
                                               "52:54:00:00:00:02": "eth1"})
    physical = [c for c in config.get("config", []) if c.get("type") == "physical"]
    check([p.get("name") for p in physical] == ["eth0", "eth1"],
          "openstack: network config names %r" % physical)
    subnets = physical[0].get("subnets", []) if physical else []
    check(subnets and subnets[0].get("address") == "192.0.2.10"
          and subnets[0].get("type") == "static", "openstack: static subnet %r" % subnets)

    # EC2, at latest and at the dated version cloud-init falls back on
    for version in ("latest", "2009-04-04"):
        meta = ec2_helpers.get_instance_metadata(version, metadata_address=base, timeout=5,
                                                 retries=0)
        check(meta.get("instance-id") == UUID, "ec2 %s: instance-id %r"
              % (version, meta.get("instance-id")))
        check(meta.get("hostname") == "web1.example.com", "ec2 %s: hostname" % version)
        check(meta.get("local-hostname") == "web1.example.com",
              "ec2 %s: local-hostname" % version)
        check(meta.get("local-ipv4") == "192.0.2.10", "ec2 %s: local-ipv4" % version)
        pk = meta.get("public-keys", {})
        # the materializer names keys by the listing ("0=alice@example.com")
        flat = sorted(v["openssh-key"] if isinstance(v, dict) else v for v in pk.values())
        check(flat == sorted([KEY_ALICE, KEY_RSA]), "ec2 %s: public keys %r" % (version, pk))
        ud = ec2_helpers.get_instance_userdata(version, metadata_address=base, timeout=5,
                                               retries=0)
        if isinstance(ud, bytes):
            ud = ud.decode()
        check(ud == USER_DATA, "ec2 %s: user data %r" % (version, ud))


def main():
    if os.geteuid() != 0:
        print("1..0 # SKIP SO_BINDTODEVICE needs root (CAP_NET_RAW)")
        return 77
    root = tempfile.mkdtemp(prefix="gnt-ci-")
    metad = None
    try:
        log = open(os.path.join(root, "metad.log"), "w")
        metad = subprocess.Popen([METAD, "--root", root, "--foreground", "--print-socket"],
                                 stdout=subprocess.PIPE, stderr=log, text=True)
        control_socket = metad.stdout.readline().strip()
        if not control_socket:
            raise RuntimeError("gantry-metad did not start: see %s" % log.name)
        port = free_port()
        control(control_socket, "PUT", "/instances/web1", RECORD)
        control(control_socket, "PUT", "/instances/web1/channel",
                {"device": "lo", "address": "127.0.0.1", "port": port})
        run_checks("http://127.0.0.1:%d" % port)
    finally:
        if metad is not None:
            metad.terminate()
            metad.wait()
        shutil.rmtree(root, ignore_errors=True)
    print("1..%d" % checks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
