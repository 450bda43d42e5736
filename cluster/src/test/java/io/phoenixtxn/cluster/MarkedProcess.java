package io.phoenixtxn.cluster;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for a cluster process: a shell that sleeps, whose command line carries the cluster's and a role's
 * marker arguments (as its {@code $0} and {@code $1}), so {@link ProcessTable} sees it exactly as it sees a real
 * role. ({@code ; true} keeps the shell from exec'ing sleep, which would drop the markers.)
 */
final class MarkedProcess implements AutoCloseable {
    final Process process;

    private MarkedProcess(Process process) {
        this.process = process;
    }

    static MarkedProcess start(ClusterPaths paths, String role) throws IOException {
        Process p = new ProcessBuilder("sh", "-c", "sleep 120; true", paths.marker(), ProcessTable.ROLE_MARKER + role)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return new MarkedProcess(p);
    }

    long pid() {
        return process.pid();
    }

    /** Waits until /proc shows the markers (the shell has exec'd). */
    MarkedProcess awaitVisible(ClusterPaths paths, String role) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ProcessTable.isMember(paths, new Role(role, Role.Kind.TM), pid())) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the marked process never showed its markers");
            }
            Thread.sleep(10);
        }
        return this;
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
