#!/bin/sh
# Placeholder until the distribution work lands: refuse clearly.
main() {
  echo "zcode-acp-server install.sh: not implemented yet; build from source (see README.md)" >&2
  exit 1
}
main "$@"
