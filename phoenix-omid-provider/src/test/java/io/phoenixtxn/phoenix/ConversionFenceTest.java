package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The completion of a table's switch to transactional ({@link ConversionFence}) against a model of HBase 2.6.1's
 * master: a table's modify procedures run one at a time (HBASE-28683), the master's descriptor changes when a procedure
 * starts and the regions run it once the procedure's reopen is done, and Admin.modifyTable returns after that.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConversionFenceTest {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final byte[] FAMILY = Bytes.toBytes("0");

    /** One table on a modelled master. */
    private static class FakeCluster implements ConversionFence.Cluster {
        /** The master's descriptor (what getDescriptor returns). */
        volatile TableDescriptor stored;
        /** What every region runs. */
        volatile TableDescriptor running;
        /** Modify procedures submitted (stored changed) whose regions have not reopened yet, oldest first. */
        final Deque<TableDescriptor> inProgress = new ArrayDeque<>();
        volatile TableDescriptor runningAtFence;
        final AtomicInteger fences = new AtomicInteger();
        volatile long incarnation = 1;
        volatile Runnable duringFence = () -> { };

        FakeCluster(TableDescriptor descriptor) {
            this.stored = descriptor;
            this.running = descriptor;
        }

        /** Another client's modifyTable was submitted and runs (e.g. Phoenix's ALTER, which does not wait for it). */
        synchronized void submittedByOthers(TableDescriptor descriptor) {
            stored = descriptor;
            inProgress.add(descriptor);
        }

        @Override
        public synchronized TableDescriptor descriptor(TableName table) {
            return stored;
        }

        @Override
        public synchronized void modify(TableDescriptor descriptor) {
            while (!inProgress.isEmpty()) { // one at a time: ours starts once the earlier ones are done
                running = inProgress.poll();
            }
            stored = descriptor;
            running = descriptor; // modifyTable returns once its own reopen is done
        }

        @Override
        public long fence(TableName table) {
            runningAtFence = running;
            duringFence.run();
            return 1_000 + fences.incrementAndGet();
        }

        @Override
        public long incarnation(TableName table) {
            return incarnation;
        }

        @Override
        public int phoenixCoprocessorPriority() {
            return 805_306_366;
        }
    }

    private static TableName newTable() {
        return TableName.valueOf("CONVERSION_FENCE_TEST_" + TABLES.incrementAndGet());
    }

    private static TableDescriptorBuilder plain(TableName table) {
        return TableDescriptorBuilder.newBuilder(table).setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY));
    }

    /** What Phoenix's ALTER ... SET TRANSACTIONAL=true, TRANSACTION_PROVIDER='OMID' writes: marker and observers. */
    private static TableDescriptor convertedByPhoenix(TableDescriptorBuilder builder) throws IOException {
        return builder.setValue(ConversionFence.PHOENIX_PRE_EXISTING_DATA, "true")
                .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(ObserverNames.PHOENIX_OBSERVER).build())
                .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(ObserverNames.PHOENIX_GC_OBSERVER).build())
                .build();
    }

    private static boolean runsOurObserver(TableDescriptor descriptor) {
        return descriptor.hasCoprocessor(ObserverNames.PHOENIX_OBSERVER);
    }

    @Test
    void theFenceIsDrawnOnlyOnceEveryRegionRunsOurObserver() throws IOException {
        // Review item 2: Phoenix's modifyTable put the marker and our observer on the descriptor, but its regions
        // still reopen: a plain write there is still accepted, so a fence drawn now would not order it.
        TableName table = newTable();
        FakeCluster cluster = new FakeCluster(plain(table).build());
        cluster.submittedByOthers(convertedByPhoenix(plain(table)));

        ConversionFence.ensure(cluster, table);

        assertEquals(1, cluster.fences.get());
        assertTrue(runsOurObserver(cluster.runningAtFence),
                "every region ran our observer when the fence was drawn: " + cluster.runningAtFence);
        assertNotNull(cluster.stored.getValue(ConversionFence.COMMITTED_BELOW));
    }

    @Test
    void theFenceIsRecordedOnTheDescriptorAsItIsThenNotOnAStaleCopy() throws IOException {
        // Review item 3: a CREATE INDEX turns the fast path off (a modifyTable) while the fence is drawn.
        TableName table = newTable();
        FakeCluster cluster = new FakeCluster(convertedByPhoenix(plain(table)
                .setValue(FastPathSwitch.ATTRIBUTE, "true")));
        cluster.duringFence = () -> cluster.modify(TableDescriptorBuilder.newBuilder(cluster.stored)
                .removeValue(Bytes.toBytes(FastPathSwitch.ATTRIBUTE)).build());

        ConversionFence.ensure(cluster, table);

        assertNotEquals("true", cluster.stored.getValue(FastPathSwitch.ATTRIBUTE),
                "the fast path stays off: " + cluster.stored);
        assertNotNull(cluster.stored.getValue(ConversionFence.COMMITTED_BELOW));
    }

    @Test
    void anHBaseTtlMovesToPhoenixsTransactionalTtlAtTheSwitch() throws IOException {
        // Review item 11: HBase deletes a store file whose newest cell is older than the family TTL, in milliseconds:
        // pure pre-switch files under a TTL would go while a snapshot still reads them.
        TableName table = newTable();
        FakeCluster cluster = new FakeCluster(convertedByPhoenix(TableDescriptorBuilder.newBuilder(table)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setTimeToLive(3_600).build())));

        ConversionFence.ensure(cluster, table);

        ColumnFamilyDescriptor family = cluster.stored.getColumnFamily(FAMILY);
        assertEquals(HConstants.FOREVER, family.getTimeToLive(), "no HBase TTL: " + family);
        assertEquals("3600", family.getValue("dataset.table.ttl"), "readers and GC apply it to commit times");
        assertTrue(cluster.fences.get() == 1 && runsOurObserver(cluster.running));
    }

    @Test
    void aTableDroppedCreatedAndConvertedAgainGetsItsOwnFence() throws IOException {
        // Review item 4: the first incarnation settled; the second one, same name, is a new conversion.
        TableName table = newTable();
        FakeCluster cluster = new FakeCluster(convertedByPhoenix(plain(table)));
        ConversionFence.ensure(cluster, table);
        assertEquals(1, cluster.fences.get());

        cluster.stored = convertedByPhoenix(plain(table));
        cluster.running = cluster.stored;
        cluster.incarnation = 2;
        ConversionFence.ensure(cluster, table);

        assertEquals(2, cluster.fences.get(), "the new table's switch drew its own fence");
        assertNotNull(cluster.stored.getValue(ConversionFence.COMMITTED_BELOW));
    }

    @Test
    void aSwitchInProgressHoldsUpOnlyItsOwnTable() throws Exception {
        // Review item 5: one table's switch (up to 60 s waiting for Phoenix) must not stall other tables' users.
        TableName slow = newTable();
        TableName other = newTable();
        CountDownLatch inFence = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FakeCluster slowCluster = new FakeCluster(convertedByPhoenix(plain(slow)));
        slowCluster.duringFence = () -> {
            inFence.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> {
            try {
                ConversionFence.ensure(slowCluster, slow);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertTrue(inFence.await(30, TimeUnit.SECONDS));
            FakeCluster otherCluster = new FakeCluster(convertedByPhoenix(plain(other)));
            CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
                try {
                    ConversionFence.ensure(otherCluster, other);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            second.get(20, TimeUnit.SECONDS); // fails with a TimeoutException while one lock serves every table
            assertEquals(1, otherCluster.fences.get());
        } finally {
            release.countDown();
        }
        first.get(30, TimeUnit.SECONDS);
    }
}
