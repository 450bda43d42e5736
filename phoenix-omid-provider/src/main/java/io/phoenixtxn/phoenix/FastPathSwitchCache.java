package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathSwitch;
import org.apache.hadoop.hbase.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * What this client believes of each table's fast-path switch ({@link FastPathSwitch}, a table descriptor attribute),
 * so that routing a statement costs no master round trip. A belief is only a routing hint, never a safety argument:
 * a stale "enabled" makes the region server refuse the write (FENCED, then {@link #refused}); a stale "disabled"
 * only sends a statement down the regular path. Beliefs are re-read after {@code phoenix.txn.fastpath.switch.cache.ms}.
 *
 * <p>Invariant: no caller waits longer than the read timeout for the master, and a switch that could not be read is
 * "off" (the regular path, always correct) for {@code phoenix.txn.fastpath.switch.failure.cache.ms} before it is asked again, so a master
 * outage costs routed statements at most one bounded wait per table and period, never HBase's full retry budget
 * each. One read per table is in flight at a time; a read that answers after its callers gave up still refreshes
 * the belief. {@link #readNow} (a soundness check, design.md sec. 4.11) never shares an earlier read.
 */
final class FastPathSwitchCache implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(FastPathSwitchCache.class);

    static final String TTL_KEY = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_CACHE_MS.key();
    static final long DEFAULT_TTL_MS = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_CACHE_MS.defaultValue();
    static final String FAILURE_TTL_KEY = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_FAILURE_CACHE_MS.key();
    static final String READ_TIMEOUT_KEY = io.phoenixtxn.tm.TxnSettings.FASTPATH_SWITCH_READ_TIMEOUT_MS.key();

    /** The switch as last read: ON, OFF, or UNKNOWN (the read failed or timed out). */
    enum State {
        ON, OFF, UNKNOWN
    }

    private record Belief(State state, long readAtMs) {
    }

    private final FastPathSwitchReader reader;
    private final long ttlMs;
    private final long failureTtlMs;
    private final long readTimeoutMs;
    private final LongSupplier clockMs;
    private final ExecutorService readers;
    private final Map<TableName, Belief> beliefs = new ConcurrentHashMap<>();
    private final Map<TableName, CompletableFuture<State>> inFlight = new ConcurrentHashMap<>();

    FastPathSwitchCache(FastPathSwitchReader reader, long ttlMs, long failureTtlMs, long readTimeoutMs,
                        LongSupplier clockMs) {
        this.reader = reader;
        this.ttlMs = ttlMs;
        this.failureTtlMs = failureTtlMs;
        this.readTimeoutMs = readTimeoutMs;
        this.clockMs = clockMs;
        this.readers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "phoenix-txn-fastpath-switch-reader");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * True if the table is believed to serve the fast path. Never throws; waits at most the read timeout when the
     * belief is too old; unknown is false.
     */
    boolean isEnabled(TableName table) {
        Belief b = beliefs.get(table);
        long now = clockMs.getAsLong();
        if (b != null && now - b.readAtMs() < (b.state() == State.UNKNOWN ? failureTtlMs : ttlMs)) {
            return b.state() == State.ON;
        }
        return awaitBounded(table, sharedRead(table)) == State.ON;
    }

    /** One read of {@code table} at a time; its outcome becomes the belief whenever it arrives. */
    private CompletableFuture<State> sharedRead(TableName table) {
        CompletableFuture<State> started = new CompletableFuture<>();
        CompletableFuture<State> running = inFlight.putIfAbsent(table, started);
        if (running != null) {
            return running;
        }
        long startedAtMs = clockMs.getAsLong();
        readers.execute(() -> {
            State s = readOnce(table);
            believe(table, s, startedAtMs);
            inFlight.remove(table, started);
            started.complete(s);
        });
        return started;
    }

    /**
     * The switch as the master has it now, read after this call began (no cache, no shared earlier read): used where
     * soundness depends on it. UNKNOWN if the master did not answer within the read timeout.
     */
    State readNow(TableName table) {
        CompletableFuture<State> read = CompletableFuture.supplyAsync(() -> readOnce(table), readers);
        return awaitBounded(table, read);
    }

    private State readOnce(TableName table) {
        try {
            return reader.read(table) ? State.ON : State.OFF;
        } catch (Exception | LinkageError e) {
            LOG.debug("Reading the fast-path switch of {} failed", table, e);
            return State.UNKNOWN;
        }
    }

    private State awaitBounded(TableName table, CompletableFuture<State> read) {
        try {
            return read.get(readTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            believe(table, State.UNKNOWN, clockMs.getAsLong());
            return State.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return State.UNKNOWN;
        } catch (ExecutionException e) {
            return State.UNKNOWN;
        }
    }

    /** Takes {@code state}, read as of {@code asOfMs}, unless a refusal was learnt since that read began. */
    private void believe(TableName table, State state, long asOfMs) {
        Belief[] previous = new Belief[1];
        beliefs.compute(table, (t, old) -> {
            previous[0] = old;
            boolean refusedSince = old != null && old.state() == State.OFF && old.readAtMs() >= asOfMs;
            return refusedSince ? old : new Belief(state, asOfMs);
        });
        Belief old = previous[0];
        if (state == State.UNKNOWN && (old == null || old.state() != State.UNKNOWN)) {
            LOG.warn("Could not read the fast-path switch of {} from the master within {} ms: its statements take the"
                    + " regular path; asked again in {} ms ({}, {})", table, readTimeoutMs, failureTtlMs,
                    READ_TIMEOUT_KEY, FAILURE_TTL_KEY);
        }
    }

    /** True while a shared read of {@code table} has not finished (tests wait for a late answer with it). */
    boolean readInFlight(TableName table) {
        return inFlight.containsKey(table);
    }

    /** A region server refused a fast-path write to the table (FENCED), or this JVM disabled it: believe it. */
    void refused(TableName table) {
        beliefs.put(table, new Belief(State.OFF, clockMs.getAsLong()));
    }

    @Override
    public void close() {
        readers.shutdownNow();
    }
}
