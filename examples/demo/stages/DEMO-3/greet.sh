#!/bin/sh
# greet: print a greeting. Usage: greet.sh [--shout] [NAME]
shout=no
if [ "$1" = "--shout" ]; then shout=yes; shift; fi
name=${1:-world}
msg="Hello, $name!"
if [ "$shout" = yes ]; then msg=$(printf '%s' "$msg" | tr '[:lower:]' '[:upper:]'); fi
echo "$msg"
