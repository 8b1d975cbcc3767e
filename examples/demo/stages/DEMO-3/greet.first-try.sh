#!/bin/sh
# greet: print a greeting. Usage: greet.sh [--shout] [NAME]
if [ "$1" = "--shout" ]; then shift; fi
name=${1:-world}
echo "Hello, $name!"
