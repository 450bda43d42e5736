package io.phoenixtxn.chaos.client;

/**
 * Ends a client JVM whose driver is gone (killed, or ended without stopping its clients): a chaos run never leaves
 * client JVMs writing to a cluster nobody watches. Checks the parent process every second on a daemon thread.
 */
final class ParentWatch {
    private ParentWatch() {
    }

    static void start() {
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        if (parent == null) {
            return;
        }
        Thread watch = new Thread(() -> {
            while (true) {
                if (!parent.isAlive()) {
                    System.err.println("chaos client: the driver (pid " + parent.pid() + ") is gone; halting");
                    Runtime.getRuntime().halt(4);
                }
                try {
                    Thread.sleep(1000); // polling another process's liveness: there is no event to wait on
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "chaos-parent-watch");
        watch.setDaemon(true);
        watch.start();
    }
}
