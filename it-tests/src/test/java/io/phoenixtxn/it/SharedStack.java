package io.phoenixtxn.it;

import io.phoenixtxn.stack.EmbeddedStack;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One embedded stack per test JVM, shared by every IT class (a minicluster plus Phoenix takes ~35 s to start).
 * Started on first use, stopped by a shutdown hook; the failsafe fork timeout is the watchdog if that hangs.
 */
public final class SharedStack {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static volatile EmbeddedStack stack;

    private SharedStack() {
    }

    public static EmbeddedStack get() {
        EmbeddedStack s = stack;
        if (s != null) {
            return s;
        }
        synchronized (SharedStack.class) {
            if (stack == null) {
                try {
                    stack = EmbeddedStack.start();
                } catch (Exception e) {
                    throw new IllegalStateException("Could not start the embedded stack", e);
                }
                EmbeddedStack started = stack;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        started.close();
                    } catch (Exception ignored) {
                        // the JVM is exiting; the minicluster's files are in target/
                    }
                }, "shared-stack-shutdown"));
            }
            return stack;
        }
    }

    public static Connection connect() throws SQLException {
        return get().connect();
    }

    /** A table name no other test uses (tests share one cluster). */
    public static String uniqueTable(String prefix) {
        return prefix.toUpperCase() + "_" + TABLES.incrementAndGet() + "_" + Long.toString(System.nanoTime() % 100000);
    }
}
