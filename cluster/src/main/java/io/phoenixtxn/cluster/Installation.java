package io.phoenixtxn.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * What the build of this repository provides to the cluster: the classpath files Maven writes at {@code package}
 * ({@code cluster/target/classpath}: HBase's and Phoenix's jars, our region-server jars, sqlline;
 * {@code cluster-tm/target/classpath}: the TM server's), the JDK 17 flags ({@code etc/jdk17-flags.properties}) and
 * the java binary this launcher runs on.
 *
 * <p>Our own jars are copied into the cluster directory when it starts ({@code lib/}, {@code tm-lib/}), the way an
 * operator drops them into HBase's lib directory: a rebuild while the cluster runs cannot change or truncate a jar
 * under a running region server. Third-party jars are used in place, from the local Maven repository.
 */
public final class Installation {
    private final Path root;

    private Installation(Path root) {
        this.root = root;
    }

    /** The build under {@code root}; fails naming the command that produces what is missing. */
    public static Installation at(Path root) throws ClusterException {
        Installation installation = new Installation(root.toAbsolutePath().normalize());
        for (Path file : List.of(installation.hbaseLibFile(), installation.phoenixTxnLibFile(),
                installation.sqllineFile(), installation.tmLibFile(), installation.tmPhoenixTxnLibFile(),
                installation.jdkFlagsFile())) {
            if (!Files.isReadable(file)) {
                throw new ClusterException(file + " is missing: build first (bin/phoenix-txn-cluster builds on its"
                        + " own; or run: mvn -B package -DskipTests -pl cluster,cluster-tm -am)");
            }
        }
        return installation;
    }

    public Path root() {
        return root;
    }

    /** The java binary of this JVM (JDK 17: the launcher script checked it). */
    public Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** HBase, Hadoop, Phoenix, ZooKeeper and their dependencies: what HBase's lib directory holds. */
    public List<Path> hbaseLib() throws ClusterException {
        return read(hbaseLibFile());
    }

    public List<Path> sqlline() throws ClusterException {
        return read(sqllineFile());
    }

    /** The TM server's third-party jars (Curator, ZooKeeper, Netty; no HBase). */
    public List<Path> tmLib() throws ClusterException {
        return read(tmLibFile());
    }

    public List<String> jdkFlags() throws ClusterException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(jdkFlagsFile())) {
            p.load(in);
        } catch (IOException e) {
            throw new ClusterException("cannot read " + jdkFlagsFile() + ": " + e, e);
        }
        String flags = p.getProperty("jdk17.flags", "").trim();
        return flags.isEmpty() ? List.of() : Arrays.asList(flags.split("\\s+"));
    }

    /** Copies our jars into the cluster: region-server jars into {@code lib/}, the TM server's into {@code tm-lib/}. */
    public void installInto(ClusterPaths paths) throws ClusterException {
        copy(read(phoenixTxnLibFile()), paths.lib());
        copy(read(tmPhoenixTxnLibFile()), paths.tmLib());
    }

    private static void copy(List<Path> jars, Path into) throws ClusterException {
        try {
            Files.createDirectories(into);
            for (Path jar : jars) {
                if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
                    throw new ClusterException(jar + " is not a jar: package the modules first (mvn -B package"
                            + " -DskipTests -pl cluster,cluster-tm -am)");
                }
                Files.copy(jar, into.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new ClusterException("cannot copy our jars into " + into + ": " + e, e);
        }
    }

    private static List<Path> read(Path classpathFile) throws ClusterException {
        try {
            String text = Files.readString(classpathFile).trim();
            List<Path> entries = new ArrayList<>();
            for (String entry : text.split(java.io.File.pathSeparator)) {
                if (!entry.isBlank()) {
                    entries.add(Path.of(entry));
                }
            }
            return entries;
        } catch (IOException e) {
            throw new ClusterException("cannot read " + classpathFile + ": " + e, e);
        }
    }

    private Path hbaseLibFile() {
        return root.resolve("cluster/target/classpath/hbase-lib.classpath");
    }

    private Path phoenixTxnLibFile() {
        return root.resolve("cluster/target/classpath/phoenix-txn-lib.classpath");
    }

    private Path sqllineFile() {
        return root.resolve("cluster/target/classpath/sqlline.classpath");
    }

    private Path tmLibFile() {
        return root.resolve("cluster-tm/target/classpath/tm-lib.classpath");
    }

    private Path tmPhoenixTxnLibFile() {
        return root.resolve("cluster-tm/target/classpath/tm-phoenix-txn-lib.classpath");
    }

    private Path jdkFlagsFile() {
        return root.resolve("etc/jdk17-flags.properties");
    }
}
