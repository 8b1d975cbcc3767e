# Shared by the bench scripts (source it; it defines functions only).

# median X...: the median of the numbers given (sort -g: decimals, negatives and exponents),
# the mean of the middle two for an even count.
median() {
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
}

# copy_crates DEST WANT NAME: copy whole crates from the local cargo registry cache into DEST
# until it holds WANT files that match the caller's `src_find` array (find arguments); when the
# cache holds fewer, a second pass copies them again under another folder (same files, separate
# paths; a warning says so: repeated files repeat their words, a lighter load than a project's
# own files, and `fetch_crates` fills the cache). Sets `count` (files copied) and `pass`
# (passes made). NAME prefixes the messages.
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
  if [ "$pass" -gt 1 ]; then
    echo "$name: warning: the cargo registry cache holds fewer than $want source files, so the" \
      "tree repeats them ($pass passes); BENCH_FETCH=1 fetches enough distinct crates first" >&2
  fi
}

# fetch_crates: fill the local cargo registry cache from crates.io with the sources of a fixed
# set of large crates and everything they depend on (about 1,100 crates: 36,000 source files,
# 1.2 GB unpacked), so that a 35,000-file tree is made of distinct files, as a real project's
# are. The manifest is written to a temporary folder; only the cache keeps anything.
fetch_crates() {
  local dir
  dir="$(mktemp -d)"
  mkdir -p "$dir/src"
  : > "$dir/src/lib.rs"
  cat > "$dir/Cargo.toml" <<'TOML'
[package]
name = "bench-crates"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
bevy = "=0.20.1"
datafusion = "=55.2.0"
diesel = "=2.3.14"
gix = "=0.90.0"
oxc = "=0.157.0"
polars = "=0.55.2"
reqwest = "=0.13.5"
rustls = "=0.23.46"
sqlx = "=0.9.0"
swc_ecma_parser = "=47.0.0"
syn = { version = "=2.0.119", features = ["full"] }
tokio = { version = "=1.54.1", features = ["full"] }
wasmtime = "=50.0.1"
wgpu = "=30.0.2"
windows = "=0.62.2"
TOML
  cargo fetch --quiet --manifest-path "$dir/Cargo.toml"
  rm -rf "$dir"
}
