#!/bin/sh
# Placeholder: the bundled corpora are built here.
exit 0
