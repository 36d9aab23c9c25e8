#!/bin/sh
# The fake hypervisor's kickstart installer (noded/gnt-noded-installer.c
# with GANTRY_FAKE_INSTALLER): a host process that behaves towards metad as
# the installer does, through the instance's unix socket. What it does is
# chosen by the kickstart's "# fake: WHAT" line:
#   ok       start, the liveimg fetched whole, end, power-off
#   error    start, error with a message, power-off
#   poweroff start, then power-off without end
#   hang     start, then nothing (the second clock)
#   silent   nothing at all (the first clock)
#   linger   start, end, then no power-off (the grace period)
set -u
say() { echo "fake-installer: $*"; }
metad() { curl --silent --show-error --unix-socket "$GANTRY_METAD_SOCKET" "$@"; }
report() {
	metad --fail -X POST -H 'Content-Type: application/json' \
		-d "{\"agent_status\": \"$1\", \"agent_status_message\": \"$2\", \"agent_token\": \"$token\"}" \
		http://169.254.169.254/gantry/latest/install/callback
}
say "command line: $GANTRY_CMDLINE"
case "$GANTRY_CMDLINE" in
*inst.ks=http://169.254.169.254/gantry/latest/install/ks.cfg*) ;;
*) say "FAILED: no inst.ks"; exit 1 ;;
esac
ks=$(metad --fail http://169.254.169.254/gantry/latest/install/ks.cfg) || { say "FAILED: no kickstart"; exit 1; }
token=$(printf '%s\n' "$ks" | sed -n 's/.*"agent_token": *"\([^"]*\)".*/\1/p' | head -n 1)
what=$(printf '%s\n' "$ks" | sed -n 's/^# fake: *//p' | head -n 1)
liveimg=$(printf '%s\n' "$ks" | sed -n 's/^liveimg --url=http:\/\/169.254.169.254//p' | head -n 1)
say "behaviour: $what"
[ "$what" = silent ] && exec sleep 1000
report start "installing" || exit 1
case "$what" in
ok|linger)
	bytes=$(metad --fail "http://169.254.169.254$liveimg" | wc -c)
	say "liveimg: $bytes bytes"
	sync
	report end "done after $bytes bytes"
	[ "$what" = linger ] && exec sleep 1000
	say "powering off" ;;
error) report error "disk on fire: %pre failed"; say "FAILED: %pre" ;;
poweroff) say "the last words before the power went" ;;
hang) exec sleep 1000 ;;
esac
exit 0
