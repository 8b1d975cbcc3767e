# Shared by the bench scripts (source it; it defines functions only).

# median X...: the median of the numbers given (sort -g: decimals, negatives and exponents),
# the mean of the middle two for an even count.
median() {
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
}

# copy_crates DEST WANT NAME: copy whole crates from the local cargo registry cache into DEST
# until it holds WANT files that match the caller's `src_find` array (find arguments); when the
# cache holds fewer, a second pass copies them again under another folder (same files, separate
# paths). Sets `count` (files copied) and `pass` (passes made). NAME prefixes the error message.
copy_crates() {
  local dest="$1" want="$2" name="$3"
  local registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
  local crate n copied
  count=0
  pass=0
  while [ "$count" -lt "$want" ]; do
    pass=$((pass + 1))
    copied=0
    for crate in "$registry"/*/*/; do
      [ -d "$crate" ] || continue
      n=$(find "$crate" "${src_find[@]}" | wc -l)
      [ "$n" -gt 0 ] || continue
      mkdir -p "$dest/pass$pass"
      cp -r "$crate" "$dest/pass$pass/"
      count=$((count + n))
      copied=1
      [ "$count" -ge "$want" ] && break
    done
    if [ "$copied" -eq 0 ]; then
      echo "$name: no source files under $registry; run \`cargo fetch\` first" >&2
      exit 1
    fi
  done
}
