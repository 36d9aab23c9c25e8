#!/bin/bash
# Install templates (doc/templates.md) on a one-node cluster, as an
# operator and a RAPI client use them: gnt-template (steps inline, from a
# file and from standard input; Ganeti's -o, --no-headers, --separator),
# then every RAPI case of issue 14 with curl over TLS, the CA verified:
# POST 201 + Location, again 409, a read-only user 403, no user 401;
# PATCH of /name 200, /uuid 400, op move 400, /steps/0/bogus 400 with the
# stored template byte-identical before and after; two PATCHes made from
# the same serial number at once: one 200, one 409; DELETE 204 then GET
# 404; a 2 MiB body 413; names custom_x, 129 characters, non-ASCII and
# empty 400. Templates outlive a restart of masterd. And a template at
# work: an instance tagged with its name is refused while its node lacks
# the tag, then installed with the template's step (the plan builder reads
# the template through gnt_config_dup_install_template()).
#
# The programs come from the environment meson sets (GNT_TEST_*).
set -euo pipefail

exec 3>&1 1>&2
tap() { echo "$*" >&3; }
: "${GNT_TEST_GNT_CLUSTER:?}" "${GNT_TEST_GNT_TEMPLATE:?}" "${GNT_TEST_GANTRY_DAEMONS:?}"
: "${GNT_TEST_GNT_INSTANCE:?}" "${GNT_TEST_GNT_NODE:?}"

TOP=$(mktemp -d /tmp/gnt-tpl-XXXXXX)
export GANTRY_ROOT="$TOP/root"
N=0
cleanup() {
	set +e
	"$GNT_TEST_GANTRY_DAEMONS" stop >/dev/null 2>&1
	rm -rf "$TOP"
}
trap cleanup EXIT
ok() {
	N=$((N + 1))
	tap "ok $N - $*"
}
fail() {
	N=$((N + 1))
	tap "not ok $N - $*"
	exit 1
}
tpl() { "$GNT_TEST_GNT_TEMPLATE" "$@"; }
# the test's own templates: every cluster has the shipped ones too
# (doc/install.md "Storage layouts"), which tools-instances checks
SHIPPED='^(CUSTOM_RAID1_LVM|CUSTOM_RAID0)( |:|$)'
own_tpl() { tpl "$@" | grep -Ev "$SHIPPED"; }
# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
	ok "$1"
}

mkdir -p "$GANTRY_ROOT"
"$GNT_TEST_GNT_CLUSTER" init --noded-port 0 --enabled-hypervisors fake \
	"tpl$$.example.com" >/dev/null

NOIMG='[{"interface": "deploy", "step": "write_image", "args": {}, "priority": 0}]'
VMX='[{"interface": "hypervisor", "step": "apply_settings",
       "args": {"hvparams": {"cpu_type": "host"}}, "priority": 50}]'

# ---- gnt-template ----

tpl add --steps "$NOIMG" --description "no image" CUSTOM_NOIMG >/dev/null
echo "$VMX" >"$TOP/vmx.json"
tpl add --steps "$TOP/vmx.json" CUSTOM_BIOS_VMX_ON >/dev/null
echo "$NOIMG" | tpl add --steps - plain.tag >/dev/null
expect_eq "list (default fields, headers)" "$(own_tpl list)" \
	"$(printf '%s\n' 'Template           Steps SerialNo Description' \
		'CUSTOM_BIOS_VMX_ON     1        1 ' \
		'CUSTOM_NOIMG           1        1 no image' \
		'plain.tag              1        1 ')"
expect_eq "list -o --no-headers --separator" \
	"$(tpl list --no-headers --separator=: -o name,step_cnt,description CUSTOM_NOIMG)" \
	"CUSTOM_NOIMG:1:no image"
expect_eq "list -o +field" "$(tpl list --no-headers -o +uuid plain.tag | wc -w)" "4"
tpl list-fields | grep -q "^steps" || fail "list-fields lacks steps"
ok "list-fields"
info=$(tpl info CUSTOM_BIOS_VMX_ON)
grep -q "step: hypervisor.apply_settings" <<<"$info" &&
	grep -q 'args: {"hvparams":{"cpu_type":"host"}}' <<<"$info" &&
	grep -q "Serial number: 1" <<<"$info" || fail "info: $info"
ok "info shows the steps and the serial number"

# refused: each names what is wrong, and nothing is stored
refused() { # WHAT PATTERN COMMAND...
	local what=$1 pattern=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		fail "$what: accepted"
	fi
	grep -q -- "$pattern" <<<"$out" || fail "$what: '$out' lacks '$pattern'"
	ok "$what refused"
}
refused "a name in use" "already exists" tpl add --steps "$NOIMG" CUSTOM_NOIMG
refused "custom_x" "custom name is CUSTOM_" tpl add --steps "$NOIMG" custom_x
refused "a core step given priority 50" "may only disable" tpl add --steps \
	'[{"interface": "deploy", "step": "write_image", "args": {}, "priority": 50}]' CUSTOM_P
refused "an unknown step" "CUSTOM_U" tpl add --steps \
	'[{"interface": "deploy", "step": "nope", "args": {}, "priority": 5}]' CUSTOM_U
refused "steps that are not a list" "must be a JSON list" tpl add --steps '{}' CUSTOM_L
refused "an unknown template" "not found" tpl modify --description x CUSTOM_NONE
expect_eq "nothing refused was stored" "$(own_tpl list --no-headers -o name | wc -l)" "3"

out=$(tpl modify --new-name CUSTOM_NO_IMAGE --description "none" CUSTOM_NOIMG)
grep -q -- "- name  -> CUSTOM_NO_IMAGE" <<<"$out" || fail "modify printed: $out"
expect_eq "modify renames and bumps the serial number" \
	"$(tpl list --no-headers --separator=' ' -o name,serial_no,description CUSTOM_NO_IMAGE)" \
	"CUSTOM_NO_IMAGE 2 none"
tpl remove plain.tag >/dev/null
expect_eq "remove" "$(own_tpl list --no-headers -o name | tr '\n' ' ')" \
	"CUSTOM_BIOS_VMX_ON CUSTOM_NO_IMAGE "
"$GNT_TEST_GANTRY_DAEMONS" stop >/dev/null
"$GNT_TEST_GANTRY_DAEMONS" start >/dev/null
expect_eq "templates outlive a restart of masterd" \
	"$(own_tpl list --no-headers -o name,serial_no | tr -s ' \n' '  ')" \
	"CUSTOM_BIOS_VMX_ON 1 CUSTOM_NO_IMAGE 2 "

# ---- a template at work ----

tpl add --steps '[{"interface": "deploy", "step": "resize_disk",
                   "args": {"disk": 0, "size": "96M"}, "priority": 30}]' CUSTOM_M >/dev/null
NODE=$("$GNT_TEST_GNT_NODE" list --no-headers -o name)
add_web1() {
	"$GNT_TEST_GNT_INSTANCE" add -t file --disk 0:size=64M -o noop -H fake --no-nics \
		--no-name-check --no-ip-check --no-start --tags CUSTOM_M -n "$NODE" web1.example.com
}
refused "an instance tagged CUSTOM_M on a node without the tag" \
	"node '$NODE' does not allow: it lacks the tag 'CUSTOM_M'" add_web1
"$GNT_TEST_GNT_NODE" add-tags "$NODE" CUSTOM_M
log=$(add_web1 2>&1) || fail "add with the node tagged: $log"
grep -q "install step deploy.resize_disk \[CUSTOM_M#1\] (30): done" <<<"$log" ||
	fail "no template step in the job log: $log"
ok "accepted once the node has the tag; the template's step ran"
expect_eq "the template's step grew disk 0" \
	"$("$GNT_TEST_GNT_INSTANCE" list --no-headers -o disk.size/0 web1.example.com)" "96M"
"$GNT_TEST_GNT_INSTANCE" remove -f web1.example.com >/dev/null
tpl remove CUSTOM_M >/dev/null

# ---- RAPI with curl over TLS ----

LIB="$GANTRY_ROOT/var/lib/gantry"
mkdir -p "$LIB/rapi"
{
	echo "ops {HA1}$(printf 'ops:Ganeti Remote API:s3cret' | md5sum | cut -d' ' -f1) write"
	echo "viewer {HA1}$(printf 'viewer:Ganeti Remote API:look' | md5sum | cut -d' ' -f1) read"
} >"$LIB/rapi/users"
sleep 1.2 # the users file is read again once it changed
URL="https://localhost:$(cat "$LIB/rapi-port")"
# req [curl options...] URL_PATH: sets CODE, BODY, HEAD
req() {
	local path=${*: -1}
	local opts=("${@:1:$#-1}")
	BODY=$(curl -sS --cacert "$LIB/tls/ca.pem" -D "$TOP/head" -o - -w '\n%{http_code}' \
		"${opts[@]}" "$URL$path")
	CODE=${BODY##*$'\n'}
	BODY=${BODY%$'\n'*}
	BODY=${BODY%$'\n'} # RAPI ends its answers with a newline
	HEAD=$(cat "$TOP/head")
}
W=(-u ops:s3cret)
JSON=(-H "Content-Type: application/json")
PATCHT=(-H "Content-Type: application/json-patch+json")
RAID='{"name": "CUSTOM_RAID", "description": "mirror",
  "steps": [{"interface": "deploy", "step": "resize_disk", "args": {"disk": 0, "size": "2G"},
             "priority": 30}]}'

req "${W[@]}" "${JSON[@]}" -X POST -d "$RAID" /2/install-templates
expect_eq "POST: 201" "$CODE" 201
grep -qi "^Location: /2/install-templates/CUSTOM_RAID" <<<"$HEAD" || fail "no Location: $HEAD"
ok "POST: Location"
grep -q '"serial_no":1' <<<"$BODY" || fail "POST answered $BODY"
ok "POST: the template in the answer"
req "${W[@]}" "${JSON[@]}" -X POST -d "$RAID" /2/install-templates
expect_eq "POST again: 409" "$CODE" 409
req -u viewer:look "${JSON[@]}" -X POST -d "${RAID/RAID/RAID2}" /2/install-templates
expect_eq "POST by a read-only user: 403" "$CODE" 403
req "${JSON[@]}" -X POST -d "${RAID/RAID/RAID2}" /2/install-templates
expect_eq "POST without a user: 401" "$CODE" 401
req /2/install-templates
expect_eq "GET the list" "$BODY" \
	'[{"name":"CUSTOM_BIOS_VMX_ON","uri":"/2/install-templates/CUSTOM_BIOS_VMX_ON"},{"name":"CUSTOM_NO_IMAGE","uri":"/2/install-templates/CUSTOM_NO_IMAGE"},{"name":"CUSTOM_RAID","uri":"/2/install-templates/CUSTOM_RAID"},{"name":"CUSTOM_RAID0","uri":"/2/install-templates/CUSTOM_RAID0"},{"name":"CUSTOM_RAID1_LVM","uri":"/2/install-templates/CUSTOM_RAID1_LVM"}]'
req "/2/install-templates?bulk=1"
expect_eq "GET ?bulk=1: every template (the shipped two too), whole" \
	"$(grep -o '"steps":' <<<"$BODY" | wc -l)" 5
req -u viewer:look /2/install-templates/CUSTOM_RAID
expect_eq "GET one, as a read-only user" "$CODE" 200

req "${W[@]}" "${PATCHT[@]}" -X PATCH \
	-d '[{"op": "replace", "path": "/name", "value": "CUSTOM_RAID1"}]' \
	/2/install-templates/CUSTOM_RAID
expect_eq "PATCH replace /name: 200" "$CODE" 200
grep -q '"name":"CUSTOM_RAID1".*"serial_no":2' <<<"$BODY" || fail "PATCH answered $BODY"
ok "PATCH: the renamed template, serial number 2"

req /2/install-templates/CUSTOM_RAID1
before=$BODY
for bad in '[{"op": "replace", "path": "/uuid", "value": "x"}]' \
	'[{"op": "move", "from": "/name", "path": "/description"}]' \
	'[{"op": "add", "path": "/steps/0/bogus", "value": 1}]' \
	'[{"op": "replace", "path": "/steps/0/args/size", "value": "lots"}]' \
	'[{"op": "remove", "path": "/name"}]' \
	'[{"op": "replace", "path": "/name", "value": "custom_x"}]' \
	'[{"op": "replace", "path": "/name", "value": "CUSTOM_BIOS_VMX_ON"}]' \
	'{"op": "remove", "path": "/description"}'; do
	req "${W[@]}" "${PATCHT[@]}" -X PATCH -d "$bad" /2/install-templates/CUSTOM_RAID1
	case "$bad" in
	*VMX_ON*) want=409 ;;
	*) want=400 ;;
	esac
	expect_eq "PATCH $bad: $want" "$CODE" "$want"
	req /2/install-templates/CUSTOM_RAID1
	expect_eq "the stored template byte-identical after it" "$BODY" "$before"
done
req "${W[@]}" "${JSON[@]}" -X PATCH -d '[]' /2/install-templates/CUSTOM_RAID1
expect_eq "PATCH as application/json: 415" "$CODE" 415

# two PATCHes made from serial number 2, at once: exactly one is applied
for i in 1 2; do
	curl -sS --cacert "$LIB/tls/ca.pem" "${W[@]}" "${PATCHT[@]}" -X PATCH -o /dev/null \
		-w '%{http_code}\n' \
		-d "[{\"op\": \"replace\", \"path\": \"/description\", \"value\": \"race $i\"}]" \
		"$URL/2/install-templates/CUSTOM_RAID1?serial_no=2" >"$TOP/race$i" &
done
wait
expect_eq "racing PATCHes: one 200, one 409" "$(cat "$TOP/race1" "$TOP/race2" | sort | tr '\n' ' ')" \
	"200 409 "
req /2/install-templates/CUSTOM_RAID1
grep -q '"description":"race [12]","steps":.*"serial_no":3' <<<"$BODY" ||
	fail "after the race: $BODY"
ok "after the race: the winner's description, serial number 3"

req "${W[@]}" -X DELETE /2/install-templates/CUSTOM_RAID1
expect_eq "DELETE: 204" "$CODE" 204
expect_eq "DELETE: no body" "$BODY" ""
req /2/install-templates/CUSTOM_RAID1
expect_eq "GET after DELETE: 404" "$CODE" 404
req "${W[@]}" -X DELETE /2/install-templates/CUSTOM_RAID1
expect_eq "DELETE again: 404" "$CODE" 404

head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$TOP/big"
req "${W[@]}" "${JSON[@]}" -X POST --data-binary @"$TOP/big" /2/install-templates
expect_eq "a 2 MiB body: 413" "$CODE" 413
long=$(printf 'A%.0s' $(seq 129))
for name in custom_x "$long" "CUSTOM_É" ""; do
	req "${W[@]}" "${JSON[@]}" -X POST \
		-d "{\"name\": \"$name\", \"steps\": $NOIMG}" /2/install-templates
	expect_eq "POST of the name '${name:0:12}': 400" "$CODE" 400
done
expect_eq "nothing refused was stored" "$(own_tpl list --no-headers -o name | wc -l)" "2"
req /2/features
grep -q '"install-templates"' <<<"$BODY" || fail "features: $BODY"
ok "/2/features lists install-templates"

tap "1..$N"
