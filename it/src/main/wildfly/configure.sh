#!/usr/bin/env bash
# Configures an unpacked WildFly for the Exclusive demo and the integration tests; the build runs it in `package`
# (profile wildfly) after unpacking org.wildfly:wildfly-dist:
#
#   src/main/wildfly/configure.sh <WildFly home>
#
# The demo's users and roles (configuration/*.properties) replace WildFly's empty ones; configure.cli adds the
# data sources and the lock folder's system property to standalone-microprofile.xml, offline.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=${1:?usage: configure.sh <WildFly home>}
cp "$here"/configuration/application-users.properties "$here"/configuration/application-roles.properties \
  "$home"/standalone/configuration/
"$home"/bin/jboss-cli.sh --file="$here"/configure.cli
