package io.phoenixtxn.coprocessor.fastpath;

import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fast-path writes of one region between drawing their version and becoming readable. HBase reads take no row
 * lock: a transactional read that bumps the clock to its start and then opens its scanner could miss a fast-path write
 * that drew a version below that start just before the bump but becomes readable (its MVCC write completes) only after
 * the scanner took its read point, although that version is in the reader's snapshot. VLDB'18 sec. 4.3 makes the
 * bump and the read one atomic block under the row lock; here a reader, after its bump, waits for the writes that are
 * in flight and may hold a version below its start ({@link #awaitBelow}).
 *
 * <p>Why it is enough (a Dekker pair on sequentially consistent atomics): a writer registers before it draws, a
 * reader bumps before it looks. A writer the reader does not see registered after the reader looked, so it draws
 * after the bump and gets a version above the reader's start. A writer it sees is waited for unless its version is
 * drawn and not below the start. Writes that start later are not waited for: no reader starves.
 */
final class InFlightWrites {
    /** The version of an entry whose writer has not drawn yet. */
    private static final long UNDRAWN = -1;

    /** One write in flight. */
    static final class Entry {
        private final byte[] row;
        private volatile long version = UNDRAWN;
        private final CountDownLatch done = new CountDownLatch(1);

        private Entry(byte[] row) {
            this.row = row;
        }

        void drawn(long v) {
            version = v;
        }

        long version() {
            return version;
        }

        @Override
        public String toString() {
            return "fast-path write to " + Bytes.toStringBinary(row)
                    + (version == UNDRAWN ? " (drawing its version)" : " at " + version);
        }
    }

    private final AtomicInteger count = new AtomicInteger();
    private final Set<Entry> entries = ConcurrentHashMap.newKeySet();
    private final long waitMs;

    InFlightWrites(long waitMs) {
        this.waitMs = waitMs;
    }

    /** Called before the writer draws its version. */
    Entry register(byte[] row) {
        Entry e = new Entry(row);
        count.incrementAndGet();
        entries.add(e);
        return e;
    }

    /** Called once the write is readable, or failed. Idempotent. */
    void finish(Entry e) {
        if (entries.remove(e)) {
            count.decrementAndGet();
        }
        e.done.countDown();
    }

    /**
     * Waits until every write in flight now that may hold a version below {@code readerStart} is readable or failed;
     * {@code row}: only writes of that row (a get), null: any row (a scan). Call after bumping the clock.
     *
     * @throws IOException when a write stays in flight longer than the bound (the read must not go on without it)
     */
    void awaitBelow(long readerStart, byte[] row) throws IOException {
        if (count.get() == 0) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        for (Entry e : entries) {
            if (row != null && !Arrays.equals(row, e.row)) {
                continue;
            }
            long v = e.version;
            if (v != UNDRAWN && v >= readerStart) {
                continue; // drawn above the reader: invisible to it whenever it lands
            }
            if (e.done.getCount() > 0) {
                FastPathHooks.current().readerWaits(readerStart);
            }
            try {
                if (!e.done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw new IOException("A transactional read started at " + readerStart + " waited " + waitMs
                            + " ms for a " + e + " that may belong to its snapshot; it is not answered without it."
                            + " The region server's writes are stalled (WAL?); retry");
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for a " + e);
            }
        }
    }

    /** Writes in flight now (monitoring, tests). */
    int size() {
        return count.get();
    }
}
