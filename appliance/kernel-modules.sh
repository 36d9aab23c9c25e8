# Kernel modules for a busybox initramfs, shared by appliance/build-appliance
# and tests/installer/build-installer (sourced, POSIX sh). The caller sets
# KVER and MODDIR (/lib/modules/$KVER) and defines die(). awk, and xz, zstd
# or gzip for compressed modules, are needed.

# The path of module NAME (- and _ alike) and of what it needs, dependencies
# first, one a line; nothing for a built-in one.
module_paths() {
	awk -v want="$1" '
	function norm(s) { gsub(/-/, "_", s); return s }
	function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.(xz|zst|gz))?$/, "", p); return norm(p) }
	{ sub(/:$/, "", $1); path[base($1)] = $1; deps[base($1)] = ""
	  for (i = 2; i <= NF; i++) deps[base($1)] = deps[base($1)] " " base($i) }
	function visit(m,    n, i, d) {
		if (m in seen) return
		seen[m] = 1
		n = split(deps[m], d, " ")
		for (i = n; i >= 1; i--) visit(d[i])
		print path[m]
	}
	END { if (norm(want) in path) visit(norm(want)) }' "$MODDIR/modules.dep"
}

# Copies the modules (and what they need) into DIR, uncompressed, and appends
# their names in load order to DIR/order.
add_modules() {
	dir=$1
	shift
	mkdir -p "$dir"
	touch "$dir/order"
	for m in "$@"; do
		if grep -q "/$(echo "$m" | sed 's/_/[-_]/g')\.ko" "$MODDIR/modules.builtin" 2>/dev/null; then
			continue # built in
		fi
		paths=$(module_paths "$m")
		[ -n "$paths" ] || die "kernel '$KVER' has no module '$m'"
		for p in $paths; do
			name=$(basename "$p" | sed -E 's/\.ko(\.(xz|zst|gz))?$//')
			grep -qx "$name" "$dir/order" && continue
			case "$p" in
			*.xz) xz -dc "$MODDIR/$p" >"$dir/$name.ko" ;;
			*.zst) zstd -qdc "$MODDIR/$p" >"$dir/$name.ko" ;;
			*.gz) gzip -dc "$MODDIR/$p" >"$dir/$name.ko" ;;
			*) cp "$MODDIR/$p" "$dir/$name.ko" ;;
			esac
			echo "$name" >>"$dir/order"
		done
	done
}
