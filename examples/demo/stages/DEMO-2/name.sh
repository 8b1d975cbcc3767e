out=$(sh greet.sh Ada)
[ "$out" = "Hello, Ada!" ] || { echo "expected 'Hello, Ada!', got '$out'"; exit 1; }
