#!/usr/bin/env bash
# The Payara Server domain the integration tests deploy into (profile payara). The build runs
#
#   src/main/payara/it-domain.sh start <Payara home> <domains folder> <admin port> <asadmin file>
#
# in pre-integration-test: it stops and deletes a domain that an earlier build left, creates the domain "it" (ports
# from the admin port: asadmin create-domain's port base is 48 below it, so HTTP is 32 above it), starts it,
# runs the asadmin file (users, data sources, JVM options) and restarts it, since JVM options apply at start. In
# post-integration-test it runs `it-domain.sh stop <Payara home> <domains folder>`.
set -euo pipefail
usage="usage: it-domain.sh start|stop <Payara home> <domains folder> [<admin port> <asadmin file>]"
command=${1:?$usage}
asadmin=${2:?$usage}/bin/asadmin
domains=${3:?$usage}
case $command in
  start)
    admin=${4:?$usage}
    setup=${5:?$usage}
    if [ -d "$domains/it" ]; then
      "$asadmin" stop-domain --domaindir "$domains" it >/dev/null 2>&1 || true
      rm -rf "$domains"
    fi
    "$asadmin" create-domain --domaindir "$domains" --portbase $((admin - 48)) --nopassword=true it
    "$asadmin" start-domain --domaindir "$domains" it
    "$asadmin" --port "$admin" multimode --file "$setup"
    "$asadmin" restart-domain --domaindir "$domains" it
    ;;
  stop)
    "$asadmin" stop-domain --domaindir "$domains" it
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
