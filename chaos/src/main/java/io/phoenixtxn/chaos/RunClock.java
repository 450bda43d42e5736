package io.phoenixtxn.chaos;

/**
 * The clock of a chaos run: nanoseconds since its origin, a {@code System.nanoTime()} value the driver takes at the
 * start and gives every client JVM, whose histories record their events on it. On Linux {@code System.nanoTime()}
 * is {@code CLOCK_MONOTONIC}, one clock for all processes of the machine, so a fault's injection time in the driver
 * and a commit's completion time in a client's history compare directly ({@link ClientFleet} checks each client's
 * first reading against the driver's).
 */
final class RunClock {
    private final long origin;

    RunClock(long origin) {
        this.origin = origin;
    }

    static RunClock startingNow() {
        return new RunClock(System.nanoTime());
    }

    long origin() {
        return origin;
    }

    long now() {
        return System.nanoTime() - origin;
    }

    static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
