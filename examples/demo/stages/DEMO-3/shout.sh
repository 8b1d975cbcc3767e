out=$(sh greet.sh --shout Ada)
[ "$out" = "HELLO, ADA!" ] || { echo "expected 'HELLO, ADA!', got '$out'"; exit 1; }
