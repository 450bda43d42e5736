# Shared by the bin/ launchers: JDK check, the JDK 17 flags from their one home, and build-on-demand.
# shellcheck shell=bash

require_jdk17() {
  JAVA=${JAVA_HOME:+$JAVA_HOME/bin/java}
  JAVA=${JAVA:-java}
  local version
  version=$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
  if [ "$version" != "17" ]; then
    for candidate in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17*; do
      if [ -x "$candidate/bin/java" ]; then
        export JAVA_HOME=$candidate
        JAVA=$candidate/bin/java
        return
      fi
    done
    echo "phoenix-txn needs JDK 17 (found '$version' at $JAVA): HBase 2.6 and Hadoop 3.3 fail on newer JDKs." >&2
    echo "Install JDK 17 or point JAVA_HOME at it." >&2
    exit 1
  fi
}

jdk17_flags() {
  sed -n 's/^jdk17.flags=//p' "$root/etc/jdk17-flags.properties"
}

project_version() {
  sed -n 's:^  <version>\(.*\)</version>:\1:p' "$root/pom.xml" | head -n1
}

# Builds a launcher's module when its jar is missing or any source is newer, without `mvn install`: packages the
# module and what it depends on in one reactor build and writes a classpath of their target/ jars plus third-party
# jars from the local repository (nothing of ours is installed there, so no stale SNAPSHOT can leak in).
build_in_reactor_if_stale() {
  local module=$1 jar=$2 cp_file=$3
  if [ ! -f "$jar" ] || [ ! -f "$cp_file" ] || \
     [ -n "$(find "$root" -path '*/target' -prune -o \( -name '*.java' -o -name 'pom.xml' -o -name '*.properties' -o -name '*.xml' \) -newer "$jar" -print | head -n1)" ]; then
    echo "Building $module (first run, or sources changed)..." >&2
    (cd "$root" && mvn -B -q package dependency:build-classpath -DskipTests -pl "$module" -am \
      -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=runtime >&2)
    touch "$jar"
  fi
}
