package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.tm.TxnSettings;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The write fence of a table made transactional by {@code ALTER TABLE ... SET TRANSACTIONAL=true}. Phoenix 5.2 gives
 * the provider no hook in that ALTER (it updates SYSTEM.CATALOG, then modifies the HBase descriptors of the table and
 * its indexes, adding our observers and its {@value #PHOENIX_PRE_EXISTING_DATA} marker in one modifyTable). A
 * transaction that began before the switch may still write the table transactionally once its statements resolve
 * the new metadata; its snapshot did not cover the non-transactional writes that landed after it began, so its
 * commit could overwrite them unseen. So before the first transactional write to a converted table, the writer draws
 * a TM fence on it (the CREATE INDEX fence, VLDB'18 sec. 6.1): every transaction that began before the fence, and
 * so every one that began before the switch, aborts if it writes the table. The fence is recorded in the
 * descriptor as {@code phoenix.txn.committed.below=<fence>} so that it is drawn once per table, not once per client;
 * two clients racing may both draw one (both are enforced; the later one costs a few more retries at the switch).
 *
 * <p>The same step completes the switch for readers. Phoenix's ALTER returns without waiting for its modifyTable
 * (a property-only ALTER does not poll), so HBase may still be reopening regions without our observer (a
 * transactional read there would see uncommitted cells, and a plain write there is still accepted). And without a
 * TRANSACTION_PROVIDER in the statement, Phoenix 5.2.1 sets its marker but installs no observer at all. So the first
 * transactional user issues a modifyTable of its own first, a barrier ({@link #complete}): HBase 2.6.1 runs a
 * table's modify procedures one at a time (HBASE-28683) and {@link Admin#modifyTable} returns once its own reopen is
 * done, so when it returns every region runs our observer (installed by Phoenix, or by this barrier) and refuses
 * plain writes. Only then is the fence drawn, and then recorded. Every modifyTable starts from the descriptor as the
 * master has it at that moment. The barrier also moves an HBase family TTL into Phoenix's transactional TTL.
 * Every transactional read and write of a converted table waits, in each JVM once per table incarnation, until the
 * descriptor carries {@code phoenix.txn.committed.below}, completing the switch if nobody has.
 *
 * <p>Checked once per table incarnation and JVM (the table's first region id tells a table dropped and created again
 * under the same name from the one before), under a lock per table: the marker is set with our observer and never
 * removed (Phoenix refuses to make a transactional table non-transactional), so a table seen with our observer and
 * without the marker is a table created transactional. A table without our observer yet (Phoenix's ALTER in
 * progress) is looked at again.
 */
final class ConversionFence {
    private static final Logger LOG = LoggerFactory.getLogger(ConversionFence.class);
    /** Phoenix's PhoenixTransactionContext.READ_NON_TX_DATA: the table was converted. */
    static final String PHOENIX_PRE_EXISTING_DATA = "data.tx.read.pre.existing";
    /** Phoenix's PhoenixTransactionContext.PROPERTY_TTL: a transactional family's TTL in seconds (FamilyTtl). */
    static final String PHOENIX_TRANSACTIONAL_TTL = "dataset.table.ttl";
    /** Descriptor value: the conversion's write fence, drawn after the switch. */
    static final String COMMITTED_BELOW = TxnSettings.COMMITTED_BELOW_TABLE_ATTRIBUTE.key();

    /** Phoenix's QueryServices.COPROCESSOR_PRIORITY_ATTRIB and its default (QueryServicesOptions). */
    static final String PHOENIX_COPROCESSOR_PRIORITY = "phoenix.coprocessor.priority";
    static final int DEFAULT_PHOENIX_COPROCESSOR_PRIORITY =
            Coprocessor.PRIORITY_SYSTEM / 2 + Coprocessor.PRIORITY_USER / 2;
    /** Phoenix's QueryConstants: the indexers of non-transactional tables, and the transactional one. */
    static final List<String> NON_TRANSACTIONAL_INDEXERS = List.of("org.apache.phoenix.hbase.index.IndexRegionObserver",
            "org.apache.phoenix.hbase.index.Indexer");
    static final String PHOENIX_TRANSACTIONAL_INDEXER = "org.apache.phoenix.index.PhoenixTransactionalIndexer";
    /** How long a transactional use waits for Phoenix's modifyTable to put our observer on the table. */
    static final long OBSERVER_WAIT_MS = 60_000;
    /**
     * How long the ALTER's connection's next transaction waits for it ({@link AlterSwitches}): a table whose switch
     * does not show by then is left to its first transactional use, which waits {@link #OBSERVER_WAIT_MS}.
     */
    static final long EAGER_WAIT_MS = 10_000;

    /** What completing a switch needs of HBase and the TM; a seam for tests. */
    interface Cluster {
        /** The table's descriptor as the master has it now. */
        TableDescriptor descriptor(TableName table) throws IOException;

        /** Admin.modifyTable: returns once every region of the table reopened with {@code descriptor}. */
        void modify(TableDescriptor descriptor) throws IOException;

        /** Draws a TM write fence on the table: transactions that began before it abort if they write it. */
        long fence(TableName table) throws IOException;

        /** Which incarnation of the table this is: a table dropped and created again under its name has another. */
        long incarnation(TableName table) throws IOException;

        /** Phoenix's coprocessor priority (QueryServices.COPROCESSOR_PRIORITY_ATTRIB); ours go 10 below it. */
        int phoenixCoprocessorPriority();
    }

    /** A table as it exists now: its name and its incarnation (a table dropped and created again is another). */
    private record Incarnation(TableName table, long id) {
    }

    /** Incarnations whose switch is complete or that were never converted: nothing more to do. */
    private static final Set<Incarnation> SETTLED = ConcurrentHashMap.newKeySet();
    /** One lock per table: a switch waiting for Phoenix (up to a minute) holds up the users of that table only. */
    private static final ConcurrentHashMap<TableName, Object> LOCKS = new ConcurrentHashMap<>();

    private ConversionFence() {
    }

    /**
     * Completes the switch of {@code table} if it is converted and not completed yet (observers, fence); returns at
     * once after that.
     */
    static void ensure(TxnClient client, TableName table) throws IOException {
        ensure(new HBaseCluster(client), table, OBSERVER_WAIT_MS);
    }

    /** {@link #ensure(TxnClient, TableName)} waiting at most {@code waitMs} for Phoenix's descriptor change. */
    static void ensure(TxnClient client, TableName table, long waitMs) throws IOException {
        ensure(new HBaseCluster(client), table, waitMs);
    }

    static void ensure(Cluster cluster, TableName table) throws IOException {
        ensure(cluster, table, OBSERVER_WAIT_MS);
    }

    static void ensure(Cluster cluster, TableName table, long waitMs) throws IOException {
        Incarnation incarnation = new Incarnation(table, cluster.incarnation(table));
        if (SETTLED.contains(incarnation)) {
            return;
        }
        synchronized (LOCKS.computeIfAbsent(table, t -> new Object())) {
            if (SETTLED.contains(incarnation)) {
                return;
            }
            TableDescriptor descriptor = awaitSwitch(cluster, table, waitMs);
            if (descriptor == null) {
                return; // not a table of ours: ObserverCheck refuses its reads with the reason
            }
            if (isConverted(descriptor) && descriptor.getValue(COMMITTED_BELOW) == null) {
                complete(cluster, table);
            }
            SETTLED.add(incarnation);
        }
    }

    /**
     * The switch's last steps, each modifyTable from the descriptor as the master has it right then (another
     * client's change since, such as CREATE INDEX turning the fast path off, is kept):
     * <ol>
     *   <li>a barrier: a modifyTable of our own, which also adds what Phoenix left out (our observers) and moves an
     *       HBase TTL into Phoenix's transactional TTL ({@link #withoutHBaseTtl}). HBase 2.6.1 runs a table's modify
     *       procedures one at a time (HBASE-28683) and {@link Admin#modifyTable} returns once its own reopen is
     *       done: when it returns, Phoenix's modifyTable is finished too and every region runs our observer, so
     *       every region refuses plain writes and filters snapshots;</li>
     *   <li>the TM write fence, drawn only then: every plain write is ordered before it;</li>
     *   <li>the fence recorded as {@code phoenix.txn.committed.below} (unless another client recorded its own meanwhile: both
     *       fences are enforced).</li>
     * </ol>
     */
    private static void complete(Cluster cluster, TableName table) throws IOException {
        cluster.modify(completed(cluster.descriptor(table), cluster.phoenixCoprocessorPriority() - 10));
        long fence = cluster.fence(table);
        TableDescriptor current = cluster.descriptor(table);
        if (current.getValue(COMMITTED_BELOW) == null) {
            cluster.modify(TableDescriptorBuilder.newBuilder(current)
                    .setValue(COMMITTED_BELOW, Long.toString(fence)).build());
        }
        LOG.info("{} was made transactional: write fence at {}; transactions that began before it"
                + " abort if they write the table", table, fence);
    }

    /** The descriptor with our observers (where Phoenix installed none) and without an HBase TTL. */
    private static TableDescriptor completed(TableDescriptor descriptor, int priority) throws IOException {
        TableDescriptorBuilder completed = TableDescriptorBuilder.newBuilder(descriptor);
        if (!hasOurObserver(descriptor)) {
            installObservers(descriptor, completed, priority);
        }
        for (ColumnFamilyDescriptor family : descriptor.getColumnFamilies()) {
            ColumnFamilyDescriptor moved = withoutHBaseTtl(family);
            if (moved != family) {
                completed.modifyColumnFamily(moved);
            }
        }
        return completed.build();
    }

    /**
     * A family's HBase TTL moved to Phoenix's transactional TTL ({@value #PHOENIX_TRANSACTIONAL_TTL}, where Phoenix
     * keeps a transactional table's TTL; readers and GC apply it to commit times, a pre-switch cell's from its
     * millisecond). Left in place, HBase would delete a store file of pre-switch cells once its newest cell is older
     * than the TTL by the wall clock, under a snapshot that still reads them. The family unchanged when it has none.
     */
    static ColumnFamilyDescriptor withoutHBaseTtl(ColumnFamilyDescriptor family) {
        int ttl = family.getTimeToLive();
        if (ttl == HConstants.FOREVER || ttl <= 0) {
            return family;
        }
        ColumnFamilyDescriptorBuilder moved = ColumnFamilyDescriptorBuilder.newBuilder(family)
                .setTimeToLive(HConstants.FOREVER);
        if (family.getValue(PHOENIX_TRANSACTIONAL_TTL) == null) {
            moved.setValue(PHOENIX_TRANSACTIONAL_TTL, Integer.toString(ttl));
        }
        return moved.build();
    }

    /** The cluster through a client's HBase connection (Admin) and TM. */
    private static final class HBaseCluster implements Cluster {
        private final TxnClient client;

        HBaseCluster(TxnClient client) {
            this.client = client;
        }

        @Override
        public TableDescriptor descriptor(TableName table) throws IOException {
            try (Admin admin = client.connection().getAdmin()) {
                return admin.getDescriptor(table);
            }
        }

        @Override
        public void modify(TableDescriptor descriptor) throws IOException {
            try (Admin admin = client.connection().getAdmin()) {
                admin.modifyTable(descriptor);
            }
        }

        @Override
        public long fence(TableName table) throws IOException {
            return client.fence(table);
        }

        /** The id of the table's first region (its creation time, or a split's): from the client's location cache. */
        @Override
        public long incarnation(TableName table) throws IOException {
            try (RegionLocator locator = client.connection().getRegionLocator(table)) {
                return locator.getRegionLocation(HConstants.EMPTY_START_ROW).getRegion().getRegionId();
            }
        }

        @Override
        public int phoenixCoprocessorPriority() {
            return client.connection().getConfiguration().getInt(PHOENIX_COPROCESSOR_PRIORITY,
                    DEFAULT_PHOENIX_COPROCESSOR_PRIORITY);
        }
    }

    /**
     * What Phoenix 5.2.1 leaves out of {@code ALTER TABLE t SET TRANSACTIONAL=true} when the statement names no
     * TRANSACTION_PROVIDER (ConnectionQueryServicesImpl.addCoprocessors looks the provider up in the statement's
     * properties only): our observers, and on a data table the transactional indexer in place of the
     * non-transactional one (index rows of a transactional table are written by the client, in its transaction).
     * Phoenix's own coprocessor priority minus 10, as Phoenix installs them.
     */
    private static void installObservers(TableDescriptor descriptor, TableDescriptorBuilder completed, int priority)
            throws IOException {
        completed.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(ObserverNames.PHOENIX_OBSERVER)
                .setPriority(priority).build());
        if (!descriptor.hasCoprocessor(ObserverNames.PHOENIX_GC_OBSERVER)) {
            completed.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(ObserverNames.PHOENIX_GC_OBSERVER)
                    .setPriority(priority).build());
        }
        boolean indexedDataTable = false;
        for (String nonTransactionalIndexer : NON_TRANSACTIONAL_INDEXERS) {
            if (descriptor.hasCoprocessor(nonTransactionalIndexer)) {
                completed.removeCoprocessor(nonTransactionalIndexer);
                indexedDataTable = true;
            }
        }
        if (indexedDataTable && !descriptor.hasCoprocessor(PHOENIX_TRANSACTIONAL_INDEXER)) {
            completed.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(PHOENIX_TRANSACTIONAL_INDEXER)
                    .setPriority(priority + 10).build());
        }
    }

    /**
     * The descriptor once Phoenix's switch reached it (our observer, or Phoenix's converted marker). Phoenix uses a
     * table transactionally once SYSTEM.CATALOG says so, and its ALTER updates the catalog first and then submits the
     * modifyTable without waiting for it (no polling for a property-only ALTER): for a moment the descriptor lags.
     * Waits up to {@code waitMs} for it, then gives up (null).
     */
    private static TableDescriptor awaitSwitch(Cluster cluster, TableName table, long waitMs) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        long pauseMs = 10;
        while (true) {
            TableDescriptor descriptor = cluster.descriptor(table);
            if (hasOurObserver(descriptor) || isConverted(descriptor)) {
                return descriptor;
            }
            if (System.nanoTime() >= deadline) {
                return null;
            }
            try {
                Thread.sleep(pauseMs); // polling the master: HBase offers no wait for another client's modifyTable
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for " + table + " to become transactional");
            }
            pauseMs = Math.min(pauseMs * 2, 500);
        }
    }

    static boolean isConverted(TableDescriptor descriptor) {
        return Boolean.parseBoolean(descriptor.getValue(PHOENIX_PRE_EXISTING_DATA));
    }

    private static boolean hasOurObserver(TableDescriptor descriptor) {
        for (String observer : ObserverNames.ALL) {
            if (descriptor.hasCoprocessor(observer)) {
                return true;
            }
        }
        return false;
    }
}
