package io.phoenixtxn.index;

import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.phoenixtxn.tm.TxnSettings;

/**
 * Keeps the index populations of a region-server process from taking the CPU, the handlers and the WAL away from the
 * transactions its transactional tables serve (issue 16: writers kept only 0.63x of their commit rate during a live
 * build on two cores). The idea of HBase's pressure-aware compaction throughput: background work yields while
 * foreground work runs, and runs at full speed when nothing else does.
 *
 * <p>Foreground work is any read or write of a transactional table or index on this process that is not a
 * population's own ({@link #foregroundSeen}, called by the region observer). While some was seen within the last
 * {@code phoenix.txn.index.population.load.window.ms}, the population scans running in this process together work at
 * most {@code phoenix.txn.index.population.load.share.percent} of one handler's time: with {@code n} of them running
 * and a share {@code s}, each one pauses after each batch of index rows for {@code n / s - 1} times as long as the
 * batch took (its duty cycle is then {@code s / n}), at most {@link #MAX_PAUSE_NANOS} at a time so a page still ends
 * well inside the client's scanner timeout. A quiet build is never paced. Pauses sleep in the population's handler,
 * never under a row lock (a page holds its region's read lock and a handler, as any scan call does), and change no result: only when index rows are written.
 *
 * <p>One pacer per process ({@link #shared}): region servers of one process share its CPUs.
 */
public final class PopulationPacer {
    /** Longest single pause: a page (default 1 s of work) then ends within a few seconds, far below 60 s. */
    static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Foreground marks closer together than this are not written again (one volatile write per millisecond). */
    private static final long MARK_RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Sleeps; a seam for tests. */
    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    private static final PopulationPacer SHARED = new PopulationPacer(System::nanoTime,
            nanos -> TimeUnit.NANOSECONDS.sleep(nanos));

    private final LongSupplier clock;
    private final Sleeper sleeper;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicLong pausedNanos = new AtomicLong();
    private final AtomicLong pauses = new AtomicLong();
    private volatile long lastForegroundNanos;
    private volatile boolean foregroundEverSeen;
    private volatile int sharePercent = Math.toIntExact(TxnSettings.INDEX_POPULATION_LOAD_SHARE_PERCENT.defaultValue());
    private volatile long windowNanos = TimeUnit.MILLISECONDS.toNanos(
            TxnSettings.INDEX_POPULATION_LOAD_WINDOW_MS.defaultValue());

    PopulationPacer(LongSupplier clock, Sleeper sleeper) {
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** This process's pacer. */
    public static PopulationPacer shared() {
        return SHARED;
    }

    /** Takes the share and the window from the region server's configuration ({@code hbase-site.xml}). */
    void configure(Function<String, String> settings) {
        sharePercent = Math.toIntExact(TxnSettings.INDEX_POPULATION_LOAD_SHARE_PERCENT.get(settings));
        windowNanos = TimeUnit.MILLISECONDS.toNanos(TxnSettings.INDEX_POPULATION_LOAD_WINDOW_MS.get(settings));
    }

    /**
     * A read or write of a transactional table that is not a population's own ran here. Costs a volatile read
     * while no population runs in this process.
     */
    public void foregroundSeen() {
        if (!populationsRunning()) {
            return;
        }
        long now = clock.getAsLong();
        if (!foregroundEverSeen || now - lastForegroundNanos > MARK_RESOLUTION_NANOS) {
            lastForegroundNanos = now;
            foregroundEverSeen = true;
        }
    }

    /** Whether a population scan of this process is inside a call: only then is other work worth noting. */
    public boolean populationsRunning() {
        return running.get() > 0;
    }

    /** A population scan starts one call (a page); {@link #leave} when it returns. */
    void enter() {
        running.incrementAndGet();
    }

    void leave() {
        running.decrementAndGet();
    }

    /** The clock the pacer measures work with. */
    long now() {
        return clock.getAsLong();
    }

    /**
     * After a batch of population work that took {@code workNanos} (scanning, building and writing): pauses as
     * long as the share requires while foreground work runs here. Returns the pause, 0 for none.
     */
    long afterWork(long workNanos) throws InterruptedIOException {
        long pause = pauseFor(workNanos);
        if (pause <= 0) {
            return 0;
        }
        try {
            sleeper.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while an index population yielded to other work");
        }
        pausedNanos.addAndGet(pause);
        pauses.incrementAndGet();
        return pause;
    }

    /** The pause after {@code workNanos} of work, 0 when the share is off or no foreground work was seen lately. */
    long pauseFor(long workNanos) {
        int share = sharePercent;
        if (share <= 0 || workNanos <= 0 || !foregroundEverSeen
                || clock.getAsLong() - lastForegroundNanos > windowNanos) {
            return 0;
        }
        int n = Math.max(1, running.get());
        // duty cycle share / n: pause = work * (n / share - 1)
        double factor = n * 100.0 / share - 1;
        if (factor <= 0) {
            return 0;
        }
        return (long) Math.min(workNanos * factor, MAX_PAUSE_NANOS);
    }

    /** Total time population scans of this process paused for foreground work (tests, monitoring). */
    public long pausedNanos() {
        return pausedNanos.get();
    }

    /** Number of pauses taken (tests, monitoring). */
    public long pauses() {
        return pauses.get();
    }
}
