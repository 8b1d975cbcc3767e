#!/bin/sh
# greet: print a greeting.
echo "Hello, world!"
