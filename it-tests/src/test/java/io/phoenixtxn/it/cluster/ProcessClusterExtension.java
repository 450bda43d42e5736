package io.phoenixtxn.it.cluster;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Starts one multi-process cluster for a test class through {@code bin/phoenix-txn-cluster start} and guarantees
 * that none of its processes outlives the class: after the tests (passed or failed) it runs {@code stop}, then kills
 * with SIGKILL any process still carrying the cluster's marker, and fails the class if {@code stop} left any. A JVM
 * shutdown hook does the same if this JVM is ended early (failsafe's fork timeout); and the next {@code start} of
 * the same name cleans whatever a killed JVM left.
 *
 * <p>Runs only in the JVM of the {@code process-cluster-its} failsafe execution (the property gates it), so a
 * {@code -Dit.test=...} run does not start the cluster once per execution.
 */
final class ProcessClusterExtension implements BeforeAllCallback, AfterAllCallback {
    static final String OWN_JVM_PROPERTY = "phoenixtxn.it.cluster-jvm";

    private final String name;
    private final List<String> startArguments;
    private ClusterScript script;
    private String jdbcUrl;
    private Thread cleanupHook;

    ProcessClusterExtension(String name, String... startArguments) {
        this.name = name;
        this.startArguments = List.of(startArguments);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        assumeTrue(Boolean.getBoolean(OWN_JVM_PROPERTY), "process-cluster ITs start a cluster of their own and run"
                + " only in their own JVM (failsafe execution process-cluster-its sets -D" + OWN_JVM_PROPERTY + ")");
        script = new ClusterScript(ClusterScript.repositoryRoot(), Path.of("target", "cluster"), name);
        script.newTranscript();
        cleanupHook = new Thread(script::killLeftovers, "process-cluster-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupHook);
        List<String> args = new ArrayList<>(List.of("start"));
        args.addAll(startArguments);
        String output = script.ok(args.toArray(new String[0]));
        jdbcUrl = output.lines().filter(l -> l.startsWith("JDBC URL: ")).map(l -> l.substring("JDBC URL: ".length()))
                .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("start printed no JDBC URL:\n" + output));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (script == null) {
            return;
        }
        ClusterScript.Result stop = null;
        Exception stopFailure = null;
        try {
            stop = script.run("stop");
        } catch (Exception e) {
            stopFailure = e;
        } finally {
            int left = script.killLeftovers();
            Runtime.getRuntime().removeShutdownHook(cleanupHook);
            if (stopFailure != null) {
                throw stopFailure;
            }
            if (stop.exit() != 0 || left > 0) {
                throw new AssertionError("stop exited " + stop.exit() + " and left " + left + " processes (killed"
                        + " now):\n" + stop.output());
            }
        }
    }

    ClusterScript script() {
        return script;
    }

    String jdbcUrl() {
        return jdbcUrl;
    }
}
