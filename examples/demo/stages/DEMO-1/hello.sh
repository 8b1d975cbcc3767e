out=$(sh greet.sh)
[ "$out" = "Hello, world!" ] || { echo "expected 'Hello, world!', got '$out'"; exit 1; }
