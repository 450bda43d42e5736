package io.phoenixtxn.bench.index;

import io.phoenixtxn.client.ProtocolHooks;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.index.IndexBuildProgress;
import io.phoenixtxn.tm.AbortReason;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Watches the JVM (minicluster, TM and Phoenix share it) through the provider's hooks: every TM abort by reason,
 * attributed to the current {@link Phase}, and every index population (fence, rows scanned and written, duration)
 * through {@link IndexBuildHooks} and {@link IndexBuildProgress}. Installed JVM-wide for the run and restored by
 * {@link #close()}; calls are passed on to whatever hooks were installed before.
 */
final class BuildObserver implements ProtocolHooks, IndexBuildHooks, AutoCloseable {
    /** One population (one CREATE INDEX on a transactional table). */
    static final class Population {
        final String physicalTable;
        final long fence;
        final long fenceNanos = System.nanoTime();
        final AtomicLong rowsScannedByHook = new AtomicLong();
        final AtomicReference<IndexBuildProgress> progress = new AtomicReference<>();
        volatile long endNanos = -1;
        volatile Boolean committed;

        Population(String physicalTable, long fence) {
            this.physicalTable = physicalTable;
            this.fence = fence;
        }

        long rowsScanned() {
            IndexBuildProgress p = progress.get();
            return p == null ? rowsScannedByHook.get() : p.getRowsScanned();
        }

        long rowsWritten() {
            IndexBuildProgress p = progress.get();
            return p == null ? 0 : p.getRowsWritten();
        }

        /** The population's own duration (IndexBuildProgress: from begin at the fence to the end of its commit). */
        long populationMillis() {
            IndexBuildProgress p = progress.get();
            return p == null ? -1 : p.getElapsedMillis();
        }

        String indexTable() {
            IndexBuildProgress p = progress.get();
            return p == null ? "?" : p.getIndexTable();
        }
    }

    private final ProtocolHooks previousProtocol;
    private final IndexBuildHooks previousIndex;
    private volatile Phase phase = Phase.WARMUP;
    private final Map<Phase, Map<AbortReason, AtomicLong>> aborts = new EnumMap<>(Phase.class);
    private final Map<Long, Population> populations = new ConcurrentHashMap<>();
    private final AtomicLong abortsOutsideLiveRun = new AtomicLong();
    private volatile boolean liveRun;
    /** What the TM was asked and answered during the current thread's commit calls (writers' diagnostics). */
    private final ThreadLocal<StringBuilder> threadAttempts = ThreadLocal.withInitial(StringBuilder::new);

    private BuildObserver() {
        for (Phase p : Phase.values()) {
            Map<AbortReason, AtomicLong> byReason = new EnumMap<>(AbortReason.class);
            for (AbortReason r : AbortReason.values()) {
                byReason.put(r, new AtomicLong());
            }
            aborts.put(p, byReason);
        }
        previousProtocol = ProtocolHooks.install(this);
        previousIndex = IndexBuildHooks.install(this);
    }

    static BuildObserver install() {
        return new BuildObserver();
    }

    void startLiveRun() {
        phase = Phase.WARMUP;
        liveRun = true;
    }

    void phase(Phase next) {
        phase = next;
    }

    void endLiveRun() {
        liveRun = false;
    }

    long aborts(Phase p, AbortReason reason) {
        return aborts.get(p).get(reason).get();
    }

    long aborts(Phase p) {
        return aborts.get(p).values().stream().mapToLong(AtomicLong::get).sum();
    }

    long abortsOutsideLiveRun() {
        return abortsOutsideLiveRun.get();
    }

    /** Every population seen, in fence order. */
    List<Population> populations() {
        List<Population> all = new ArrayList<>(populations.values());
        all.sort((a, b) -> Long.compare(a.fence, b.fence));
        return all;
    }

    /** The population at {@code fence}, or null. */
    Population population(long fence) {
        return populations.get(fence);
    }

    /** The most recent population on {@code physicalTable} that began after {@code sinceNanos}, or null. */
    Population latestPopulation(String physicalTable, long sinceNanos) {
        return populations.values().stream()
                .filter(p -> p.physicalTable.equals(physicalTable) && p.fenceNanos >= sinceNanos)
                .max((a, b) -> Long.compare(a.fenceNanos, b.fenceNanos)).orElse(null);
    }

    private volatile CountDownLatch holdArrived;
    private volatile CountDownLatch holdRelease;
    private final AtomicLong holdSlots = new AtomicLong();

    /**
     * Worst-case interleaving on demand: the next {@code writers} writer commits stop just before asking the TM
     * (their statements were sent with the table's metadata as it was then) until the next fence is taken.
     */
    void holdWritersUntilFence(int writers) {
        holdRelease = new CountDownLatch(1);
        holdArrived = new CountDownLatch(writers);
        holdSlots.set(writers);
    }

    /** Waits until every held writer stopped before its TM commit. */
    boolean awaitHeldWriters(long seconds) throws InterruptedException {
        CountDownLatch arrived = holdArrived;
        return arrived == null || arrived.await(seconds, TimeUnit.SECONDS);
    }

    /** The TM calls of this thread since the last call, e.g. {@code "tx 17..0 FENCE; tx 17..5 -> 17..9"}. */
    String takeThreadAttempts() {
        StringBuilder b = threadAttempts.get();
        String text = b.toString();
        b.setLength(0);
        return text;
    }

    // ---- ProtocolHooks

    @Override
    public void beforeTmCommit(long txId) throws IOException {
        StringBuilder b = threadAttempts.get();
        b.append(b.length() == 0 ? "" : "; ").append("tx ").append(txId);
        CountDownLatch release = holdRelease;
        if (release != null && Thread.currentThread().getName().startsWith("bench-writer")
                && holdSlots.getAndDecrement() > 0) {
            b.append(" (held until the fence)");
            holdArrived.countDown();
            try {
                if (!release.await(5, TimeUnit.MINUTES)) {
                    throw new IOException("held writer was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        previousProtocol.beforeTmCommit(txId);
    }

    @Override
    public void afterTmAbort(long txId, AbortReason reason) {
        threadAttempts.get().append(' ').append(reason);
        if (liveRun) {
            aborts.get(phase).get(reason).incrementAndGet();
        } else {
            abortsOutsideLiveRun.incrementAndGet();
        }
        previousProtocol.afterTmAbort(txId, reason);
    }

    @Override
    public void afterTmDecision(long txId, long commitTs) throws IOException {
        threadAttempts.get().append(" -> commit ").append(commitTs);
        previousProtocol.afterTmDecision(txId, commitTs);
    }

    @Override
    public void afterCommitPoint(long txId, long commitTs) throws IOException {
        previousProtocol.afterCommitPoint(txId, commitTs);
    }

    @Override
    public void beforeInvalidate(long writerTxId) {
        previousProtocol.beforeInvalidate(writerTxId);
    }

    @Override
    public void onPendingVersion(long writerTxId) {
        previousProtocol.onPendingVersion(writerTxId);
    }

    // ---- IndexBuildHooks

    @Override
    public void afterFence(String physicalTable, long fence) {
        populations.put(fence, new Population(physicalTable, fence));
        CountDownLatch release = holdRelease;
        if (release != null) {
            holdRelease = null;
            release.countDown();
        }
        previousIndex.afterFence(physicalTable, fence);
    }

    @Override
    public void afterRowsScanned(long fence, long rowsSoFar) {
        Population p = populations.get(fence);
        if (p != null) {
            p.rowsScannedByHook.accumulateAndGet(rowsSoFar, Math::max);
            if (p.progress.get() == null) {
                IndexBuildProgress progress = IndexBuildProgress.running().get(fence);
                if (progress != null) {
                    p.progress.compareAndSet(null, progress);
                }
            }
        }
        previousIndex.afterRowsScanned(fence, rowsSoFar);
    }

    @Override
    public void beforePopulationCommit(long fence) {
        Population p = populations.get(fence);
        if (p != null && p.progress.get() == null) {
            IndexBuildProgress progress = IndexBuildProgress.running().get(fence);
            if (progress != null) {
                p.progress.compareAndSet(null, progress);
            }
        }
        previousIndex.beforePopulationCommit(fence);
    }

    @Override
    public void afterPopulationCommit(long fence, boolean committed) {
        Population p = populations.get(fence);
        if (p != null) {
            p.endNanos = System.nanoTime();
            p.committed = committed;
        }
        previousIndex.afterPopulationCommit(fence, committed);
    }

    @Override
    public void close() {
        ProtocolHooks.install(previousProtocol);
        IndexBuildHooks.install(previousIndex);
    }
}
