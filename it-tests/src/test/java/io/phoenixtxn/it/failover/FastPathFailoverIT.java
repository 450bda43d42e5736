package io.phoenixtxn.it.failover;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.fastpath.BrwcResult;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathClient;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathFunction;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The fast path across a crash-failover of the TM (issue 12: "TM failover under FP load"). Fast-path increments
 * (brwc, with the client's regular fallback) run on four threads while the primary TM crashes; the backup takes over
 * after the lease. Fast-path operations need the TM only for fresh slots, so they go on during the takeover; those
 * that fall back to a regular transaction then may fail (no TM), with an outcome the test counts as unknown.
 *
 * <p>Checked: the fast path went on after the takeover; every acknowledged increment is in the final value and nothing
 * else is (acknowledged &lt;= final &lt;= acknowledged + unknown); the new primary's timestamps are above every
 * fast-path version acknowledged before (under either primary), so a reader begun then sees every one of them: its
 * snapshot, read through the regular path, holds the same value as the fast path's read.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FastPathFailoverIT {
    private static final String OWN_JVM_PROPERTY = "phoenixtxn.it.tm-failover-jvm";
    private static final byte[] FAMILY = Bytes.toBytes("f");
    private static final byte[] QUALIFIER = Bytes.toBytes("v");
    private static final byte[] ROW = Bytes.toBytes("counter");
    private static final int THREADS = 4;
    private static final long ACKS_BEFORE_CRASH = 200;
    private static final long ACKS_AFTER_TAKEOVER = 200;

    private static HaPairStack pair;
    private static TmHandle tm;
    private static TxnClient client;

    @BeforeAll
    static void startPair() throws Exception {
        assumeTrue(Boolean.getBoolean(OWN_JVM_PROPERTY), "FastPathFailoverIT adopts the JVM's TM and runs only in its"
                + " own JVM (failsafe execution tm-failover-its, which sets -D" + OWN_JVM_PROPERTY + "=true)");
        pair = HaPairStack.start();
        tm = TmLocator.locate(pair.stack().configuration()::get);
        client = new TxnClient(connection(), tm, TxnClientConfig.from(pair.stack().configuration()::get)
                .withPostCommitMode(TxnClientConfig.PostCommitMode.SYNC));
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void stopPair() {
        if (client != null) {
            client.close();
        }
        if (tm != null) {
            tm.close();
        }
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void fastPathIncrementsGoOnThroughATmCrashAndLoseNothingAcknowledged() throws Exception {
        TableName name = TableName.valueOf("fp_failover");
        try (Admin admin = connection().getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                            .setMaxVersions(Integer.MAX_VALUE).build())
                    .setCoprocessor(ObserverNames.SNAPSHOT_READ_OBSERVER)
                    .setValue(FastPathSwitch.ATTRIBUTE, "true").build());
        }
        FastPathClient fastPath = new FastPathClient(client);
        AtomicLong acked = new AtomicLong();
        AtomicLong unknown = new AtomicLong();
        AtomicBoolean takenOver = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        LongAccumulator newest = new LongAccumulator(Math::max, 0);
        AtomicLong ackedAfter = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> load = new ArrayList<>();
        try {
            for (int i = 0; i < THREADS; i++) {
                load.add(pool.submit(() -> {
                    while (!stop.get()) {
                        boolean after = takenOver.get(); // read before the call: a version drawn after the takeover
                        BrwcResult r;
                        try {
                            r = fastPath.brwcOrRegular(name, ROW, FastPathFunction.increment(FAMILY, QUALIFIER, 1));
                        } catch (FastPathAbortedException e) {
                            throw e; // a refusal other than the documented fallbacks: not expected here
                        } catch (IOException e) {
                            unknown.incrementAndGet(); // e.g. the regular fallback found no TM during the takeover
                            continue;
                        }
                        acked.incrementAndGet();
                        newest.accumulate(r.version());
                        if (after) {
                            ackedAfter.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            awaitCount(acked, ACKS_BEFORE_CRASH, load);
            HaPairStack.Failover failover = pair.crashPrimary();
            takenOver.set(true);
            System.out.printf("FastPathFailoverIT: %s crashed, %s primary after %d ms; %d increments acknowledged so"
                    + " far%n", failover.crashed(), failover.newPrimary(), failover.tookMs(), acked.get());
            awaitCount(ackedAfter, ACKS_AFTER_TAKEOVER, load);
        } finally {
            stop.set(true);
            pool.shutdown();
        }
        for (Future<?> f : load) {
            f.get(60, TimeUnit.SECONDS);
        }
        System.out.printf("FastPathFailoverIT: %d acknowledged, %d unknown; %s%n", acked.get(), unknown.get(),
                fastPath.stats());
        Transaction reader = client.begin();
        try (TransactionalTable t = client.table(name); FastPathTable fp = fastPath.table(name)) {
            assertTrue(reader.txId() > newest.get(), "the new primary's timestamp " + reader.txId()
                    + " is not above every acknowledged fast-path version (" + newest.get() + ")");
            long regular = Bytes.toLong(t.get(reader, new Get(ROW)).getValue(FAMILY, QUALIFIER));
            long fast = Bytes.toLong(fp.brc(new Get(ROW)).getValue(FAMILY, QUALIFIER));
            assertEquals(fast, regular, "a reader begun after the load sees every fast-path commit");
            assertTrue(regular >= acked.get() && regular <= acked.get() + unknown.get(), "final value " + regular
                    + " outside [acknowledged " + acked.get() + ", acknowledged + unknown " + (acked.get()
                    + unknown.get()) + "]");
        } finally {
            client.commit(reader);
        }
    }

    /** Waits until {@code count} reaches {@code target}, or a load thread failed (its failure is thrown). */
    private static void awaitCount(AtomicLong count, long target, List<Future<?>> load) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (count.get() < target) {
            for (Future<?> f : load) {
                if (f.isDone()) {
                    f.get(); // throws the thread's failure
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the load reached only " + count.get() + " of " + target);
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition, not waiting for an interleaving
        }
    }

    private static Connection connection() throws IOException {
        return pair.stack().hbase().getConnection();
    }
}
