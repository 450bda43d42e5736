package io.phoenixtxn.it.client;

import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.TxnInDoubtException;
import io.phoenixtxn.it.ClientFixture;
import io.phoenixtxn.tm.TmException;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static io.phoenixtxn.it.ClientFixture.readLong;
import static io.phoenixtxn.it.ClientFixture.writeLong;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A history check under commit-table RPCs that fail, before or after being applied (the region server dies after
 * the WAL sync, a timeout), on every commit-table call of the writers: the commit point, the writer's own
 * invalidation that settles an unanswered commit, and the entry's removal. Writers increment counters
 * (read-modify-write) and record each outcome as acknowledged, aborted or unknown; readers check that every
 * snapshot's counters never go backwards. At the end every acknowledged increment is present, no aborted one is,
 * and unknown ones are either: acked <= counter <= acked + unknown.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CommitTableFaultHistoryIT {
    private static final int COUNTERS = 4;
    private static final int WRITERS = 4;
    private static final int INCREMENTS_PER_WRITER = 60;
    private static final double FAULT_RATE = 0.15;

    @Test
    void acknowledgedIncrementsSurviveAndUnknownOnesAreSettledConsistently() throws Exception {
        TableName name = ClientFixture.createTable("CTFAULT");
        TxnClientConfig config = TxnClientConfig.defaults().withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC)
                .withCleanerIntervalMs(0);
        try (TxnClient reference = ClientFixture.client(TxnClientConfig.PostCommitMode.SYNC)) {
            FaultyCommitTable faults = new FaultyCommitTable(new HBaseCommitTable(ClientFixture.hbase(),
                    TableName.valueOf(config.commitTable())));
            faults.randomFaultRate = FAULT_RATE;
            AtomicIntegerArray acked = new AtomicIntegerArray(COUNTERS);
            AtomicIntegerArray unknown = new AtomicIntegerArray(COUNTERS);
            AtomicInteger aborted = new AtomicInteger();
            AtomicInteger snapshots = new AtomicInteger();
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
            try (TxnClient client = new TxnClient(ClientFixture.hbase(), ClientFixture.tm(), config, faults)) {
                List<Future<?>> writers = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++) {
                    writers.add(pool.submit(() -> {
                        try (TransactionalTable table = client.table(name)) {
                            for (int i = 0; i < INCREMENTS_PER_WRITER; i++) {
                                int counter = ThreadLocalRandom.current().nextInt(COUNTERS);
                                switch (increment(client, table, counter)) {
                                    case ACKNOWLEDGED -> acked.incrementAndGet(counter);
                                    case UNKNOWN -> unknown.incrementAndGet(counter);
                                    default -> aborted.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                Future<?> reader = pool.submit(() -> {
                    long[] last = new long[COUNTERS];
                    try (TransactionalTable table = reference.table(name)) {
                        while (!done.get()) {
                            Transaction snapshot = reference.begin();
                            for (int c = 0; c < COUNTERS; c++) {
                                long value = readLong(table, snapshot, "c" + c);
                                assertTrue(value >= last[c], "counter " + c + " went back from " + last[c] + " to "
                                        + value);
                                last[c] = value;
                            }
                            reference.commit(snapshot);
                            snapshots.incrementAndGet();
                        }
                    }
                    return null;
                });
                for (Future<?> f : writers) {
                    f.get(180, TimeUnit.SECONDS);
                }
                done.set(true);
                reader.get(30, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            reference.cleaner().cleanOnce(Long.MAX_VALUE);
            try (TransactionalTable table = reference.table(name)) {
                Transaction check = reference.begin();
                int totalUnknown = 0;
                for (int c = 0; c < COUNTERS; c++) {
                    long value = readLong(table, check, "c" + c);
                    assertTrue(value >= acked.get(c) && value <= acked.get(c) + unknown.get(c), "counter " + c
                            + " = " + value + ", acknowledged " + acked.get(c) + ", unknown " + unknown.get(c));
                    totalUnknown += unknown.get(c);
                }
                System.out.printf("commit-table faults: %d acknowledged, %d unknown, %d aborted, %d snapshots%n",
                        sum(acked), totalUnknown, aborted.get(), snapshots.get());
            }
            assertEquals(WRITERS * INCREMENTS_PER_WRITER, sum(acked) + sum(unknown) + aborted.get());
            assertTrue(sum(acked) > 0 && snapshots.get() > 0);
        }
    }

    private enum Outcome { ACKNOWLEDGED, ABORTED, UNKNOWN }

    private static Outcome increment(TxnClient client, TransactionalTable table, int counter) throws IOException {
        Transaction tx = client.begin();
        String row = "c" + counter;
        writeLong(table, tx, row, readLong(table, tx, row) + 1);
        try {
            client.commit(tx);
            return Outcome.ACKNOWLEDGED;
        } catch (TxnInDoubtException e) {
            client.abort(tx); // what Phoenix does after any failed commit: must not undo a possible commit
            return Outcome.UNKNOWN;
        } catch (TxnAbortedException | TmException e) {
            return Outcome.ABORTED;
        }
    }

    private static int sum(AtomicIntegerArray values) {
        int total = 0;
        for (int i = 0; i < values.length(); i++) {
            total += values.get(i);
        }
        return total;
    }
}
