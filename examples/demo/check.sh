#!/bin/sh
# The project's test runner: every tests/*.sh must pass. `ralph demo` uses it as the verify command.
status=0
for t in tests/*.sh; do
  [ -e "$t" ] || continue
  if sh "$t"; then echo "ok   $t"; else echo "FAIL $t"; status=1; fi
done
exit $status
