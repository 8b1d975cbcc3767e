#!/bin/sh
# greet: print a greeting. Usage: greet.sh [NAME]
name=${1:-world}
echo "Hello, $name!"
