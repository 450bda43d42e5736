package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.index.IndexBuildProgress;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.WriteMode;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.TxnInDoubtException;
import io.phoenixtxn.snapshot.CheckpointLimitException;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.SnapshotCodec;
import io.phoenixtxn.snapshot.VisibilityLevel;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Table;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.transaction.PhoenixTransactionClient;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.transaction.TransactionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Phoenix's per-MutationState transaction handle. Holds the {@link Transaction} (or none) and, when it belongs to a
 * connection, resolves the client through Phoenix's connection service on every call: a context never caches a TM.
 * Contexts without a connection (decoded on a region server, or sub-task children) read and write but cannot begin
 * or commit.
 */
final class PhoenixTxnContext implements PhoenixTransactionContext {
    private static final Logger LOG = LoggerFactory.getLogger(PhoenixTxnContext.class);

    private final PhoenixConnection connection;
    /** The connection whose service checks converted tables before reads and writes (sub-tasks: the parent's). */
    private final PhoenixConnection conversionChecks;
    private volatile Transaction tx;
    /** Set by commitDDLFence: the next begin() starts the index population transaction at the fence. */
    private volatile long pendingFence = -1;
    private volatile String pendingFenceTable;
    /** Data tables as Phoenix sent this transaction's mutations (markDMLFence), by physical name. */
    private final Map<TableName, PTable> sentTables = new ConcurrentHashMap<>();
    /** Non-null while this context runs an index population. */
    private volatile IndexBuildProgress population;

    PhoenixTxnContext(PhoenixConnection connection, Transaction tx) {
        this(connection, tx, connection);
    }

    private PhoenixTxnContext(PhoenixConnection connection, Transaction tx, PhoenixConnection conversionChecks) {
        this.connection = connection;
        this.tx = tx;
        this.conversionChecks = conversionChecks;
    }

    private TxnClient client() throws SQLException {
        return clientOf(connection);
    }

    private static TxnClient clientOf(PhoenixConnection connection) throws SQLException {
        if (connection == null) {
            throw new SQLExceptionInfo.Builder(SQLExceptionCode.NULL_TRANSACTION_CONTEXT).build().buildException();
        }
        PhoenixTransactionClient client = connection.getQueryServices()
                .initTransactionClient(TransactionFactory.Provider.OMID);
        if (!(client instanceof PhoenixTxnClient)) {
            ProviderSlot.verify();
            throw SqlErrors.failed("Phoenix returned transaction client " + client + " for the OMID slot", null);
        }
        return ((PhoenixTxnClient) client).txnClient();
    }

    Transaction transaction() {
        return tx;
    }

    /**
     * Before a transactional read or write of {@code table}: a table made transactional after it was written is
     * used only once its conversion is complete and fenced ({@link ConversionFence}). Sub-task contexts check through
     * their parent's connection; contexts decoded on a region server have none (they read on behalf of a client
     * context that checked).
     */
    void beforeUsing(TableName table) throws IOException {
        if (conversionChecks == null) {
            return;
        }
        try {
            ConversionFence.ensure(clientOf(conversionChecks), table);
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** The running transaction, for table wrappers; their calls fail clearly when none is attached. */
    Transaction requireTransaction() throws IOException {
        Transaction current = tx;
        if (current == null) {
            throw new IOException("No transaction is attached to this Phoenix context; begin one first");
        }
        return current;
    }

    @Override
    public void begin() throws SQLException {
        long fence = pendingFence;
        if (fence >= 0) {
            // Index population (VLDB'18 sec. 6.1): read the snapshot at the fence and write index rows at the fence,
            // so every later writer's index maintenance (start > fence) is newer, and every earlier writer of the
            // table aborts. The fence timestamp came from the TM and is used by no other transaction.
            pendingFence = -1;
            tx = client().populationAt(fence); // the fence holds the GC horizon while the population reads at it
            population = IndexBuildProgress.forFence(fence, pendingFenceTable);
            return;
        }
        sentTables.clear();
        try {
            long inherited = ReplayGuard.takeInheritedConflictStart(connection);
            TxnClient client = client();
            Transaction begun = inherited >= 0 ? client.beginReplayOf(inherited) : client.begin();
            // Phoenix closes connections without rolling back: a closed connection's transaction is ended, not
            // renewed, so it does not hold the GC horizon back.
            PhoenixConnection owner = connection;
            client.ownedBy(begun, () -> !isClosed(owner));
            tx = begun;
        } catch (IOException | RuntimeException e) {
            // RuntimeException: e.g. this JVM serves its TM through HA and is between primaries right now.
            throw SqlErrors.failed("Could not begin a transaction: " + e.getMessage(), e);
        }
    }

    @Override
    public void commit() throws SQLException {
        Transaction current = tx;
        if (current == null || connection == null || !current.isRunning() || !current.canCommit()) {
            return;
        }
        Optional<String> skipped = IndexMaintenanceCheck.skippedIndex(sentTables, current.writeSet());
        if (skipped.isPresent()) {
            ReplayGuard.commitFailed(connection, current.conflictsSince());
            throw abortForStaleMetadata(current, skipped.get());
        }
        boolean committed = false;
        IndexBuildProgress populating = population;
        if (populating != null) {
            IndexBuildHooks.current().beforePopulationCommit(populating.getFenceTimestamp());
        }
        try {
            client().commit(current);
            committed = true;
        } catch (TxnAbortedException e) {
            // Phoenix may replay this transaction's writes in the next one it begins here: see ReplayGuard.
            ReplayGuard.commitFailed(connection, current.conflictsSince());
            throw SqlErrors.aborted(e);
        } catch (TxnInDoubtException e) {
            throw SqlErrors.failed(e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            throw SqlErrors.failed("Commit of transaction " + current.txId() + " failed: " + e.getMessage(), e);
        } finally {
            finishPopulation(committed);
        }
    }

    @Override
    public void abort() throws SQLException {
        Transaction current = tx;
        if (current == null || connection == null || !current.isRunning() || !current.canCommit()) {
            return;
        }
        try {
            finishPopulation(false);
            client().abort(current);
        } catch (IOException e) {
            throw SqlErrors.failed("Rollback of transaction " + current.txId() + " failed: " + e.getMessage(), e);
        }
    }

    /** The index population this context runs, or null. */
    IndexBuildProgress population() {
        return population;
    }

    private void finishPopulation(boolean committed) {
        IndexBuildProgress p = population;
        if (p != null) {
            population = null;
            p.finish(committed);
            IndexBuildHooks.current().afterPopulationCommit(p.getFenceTimestamp(), committed);
        }
    }

    @Override
    public void checkpoint(boolean hasUncommittedData) throws SQLException {
        try {
            requireTransaction().checkpoint();
        } catch (CheckpointLimitException e) {
            throw SqlErrors.failed(e.getMessage(), e);
        } catch (IOException e) {
            throw SqlErrors.failed("Checkpoint failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void commitDDLFence(PTable dataTable) throws SQLException {
        TableName physical = TableName.valueOf(dataTable.getPhysicalName().getBytes());
        TxnClient client = client();
        long fence;
        try (Admin admin = connection.getQueryServices().getAdmin()) {
            IndexTtlSync.sync(connection, admin, dataTable); // before the fence: the index is never active without the TTL
            // Before the fence: fast-path writes maintain no index. Once disable returns every region was reopened
            // and refuses them, and each one served before drew its version below the fence drawn next.
            FastPathSwitch.disable(admin, physical);
            fence = client.fence(physical);
        } catch (IOException | RuntimeException e) {
            throw new SQLExceptionInfo.Builder(SQLExceptionCode.TX_UNABLE_TO_GET_WRITE_FENCE)
                    .setSchemaName(dataTable.getSchemaName().getString())
                    .setTableName(dataTable.getTableName().getString()).setRootCause(e)
                    .setMessage(e.getMessage()).build().buildException();
        }
        // Phoenix calls begin() right after this; that transaction populates the index at the fence.
        tx = Transaction.readOnlyView(Snapshot.begin(fence));
        pendingFenceTable = physical.getNameAsString();
        pendingFence = fence;
        LOG.info("Write fence on {} at {}", physical, fence);
        IndexBuildHooks.current().afterFence(physical.getNameAsString(), fence);
    }

    /**
     * Phoenix calls this as it sends a data table's mutations, with the table as re-resolved then; commit checks
     * that row deletes maintained every index it has ({@link IndexMaintenanceCheck}). Fences themselves are checked
     * by the TM at commit against every table in the write set.
     */
    @Override
    public void markDMLFence(PTable dataTable) {
        if (dataTable != null && tx != null) {
            sentTables.put(TableName.valueOf(dataTable.getPhysicalName().getBytes()), dataTable);
        }
    }

    private static boolean isClosed(PhoenixConnection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private SQLException abortForStaleMetadata(Transaction current, String index) throws SQLException {
        try {
            client().abort(current);
        } catch (IOException e) {
            LOG.warn("Rollback of {} left tentative cells behind; readers treat them as aborted", current, e);
        }
        return new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION)
                .setMessage("Transaction " + current.txId() + " aborted: it deleted rows without maintaining index "
                        + index + ", which its statement did not know (the client's table metadata predates the"
                        + " index, created meanwhile); re-run the statements, which now see the index")
                .build().buildException();
    }

    @Override
    public void join(PhoenixTransactionContext ctx) {
        if (ctx == PhoenixTransactionContext.NULL_CONTEXT || !(ctx instanceof PhoenixTxnContext)) {
            return;
        }
        Transaction child = ((PhoenixTxnContext) ctx).tx;
        Transaction current = tx;
        if (child != null && current != null && child != current) {
            current.join(child);
        }
    }

    @Override
    public boolean isTransactionRunning() {
        return tx != null;
    }

    @Override
    public void reset() {
        tx = null;
        sentTables.clear();
    }

    @Override
    public long getTransactionId() {
        return running().txId();
    }

    @Override
    public long getReadPointer() {
        return running().readPointer();
    }

    @Override
    public long getWritePointer() {
        return running().writePointer();
    }

    @Override
    public void setVisibilityLevel(PhoenixVisibilityLevel level) {
        Transaction current = running();
        if (connection != null) {
            // Only an application statement sets the level on the connection's own context (sendUncommitted);
            // Phoenix's commit retry never does: this transaction is new work, not a replay (see ReplayGuard).
            current.notAReplay();
        }
        current.setVisibilityLevel(levelOf(level));
    }

    /** Phoenix's level as ours (same three levels); Phoenix sets it on every statement. */
    private static VisibilityLevel levelOf(PhoenixVisibilityLevel level) {
        switch (level) {
            case SNAPSHOT:
                return VisibilityLevel.SNAPSHOT;
            case SNAPSHOT_EXCLUDE_CURRENT:
                return VisibilityLevel.SNAPSHOT_EXCLUDE_CURRENT;
            case SNAPSHOT_ALL:
                return VisibilityLevel.SNAPSHOT_ALL;
            default:
                throw new IllegalArgumentException("Unknown Phoenix visibility level " + level);
        }
    }

    @Override
    public PhoenixVisibilityLevel getVisibilityLevel() {
        return PhoenixVisibilityLevel.valueOf(running().visibilityLevel().name());
    }

    @Override
    public byte[] encodeTransaction() throws SQLException {
        Transaction current = tx;
        if (current == null) {
            throw SqlErrors.failed("No transaction to encode", null);
        }
        byte[] snapshot = SnapshotCodec.encode(current.snapshot());
        byte[] encoded = Arrays.copyOf(snapshot, snapshot.length + 1);
        encoded[snapshot.length] = getProvider().getCode();
        return encoded;
    }

    @Override
    public TransactionFactory.Provider getProvider() {
        return TransactionFactory.Provider.OMID;
    }

    @Override
    public PhoenixTransactionContext newTransactionContext(PhoenixTransactionContext ctx, boolean subTask) {
        PhoenixTxnContext other = (PhoenixTxnContext) ctx;
        Transaction otherTx = other.tx;
        if (subTask) {
            PhoenixTxnContext child = new PhoenixTxnContext(null, otherTx == null ? null : otherTx.childView(),
                    other.conversionChecks);
            child.population = other.population; // a client-side population's parallel scans count into it
            return child;
        }
        return new PhoenixTxnContext(other.connection, otherTx);
    }

    @Override
    public Table getTransactionalTable(Table htable, boolean isConflictFree) {
        return new PhoenixTxnTable(this, htable, isConflictFree ? WriteMode.CONFLICT_FREE : WriteMode.CHECKED);
    }

    @Override
    public Table getTransactionalTableWriter(PhoenixConnection conn, PTable table, Table htable, boolean isIndex) {
        // isIndex: the initial population of a new index, whose rows are committed as they land (the index only
        // becomes ACTIVE once population succeeded).
        WriteMode mode = isIndex ? WriteMode.COMMITTED_ON_WRITE
                : table.isImmutableRows() ? WriteMode.CONFLICT_FREE : WriteMode.CHECKED;
        return new PhoenixTxnTable(this, htable, mode, conn, table);
    }

    private Transaction running() {
        Transaction current = tx;
        if (current == null) {
            throw new IllegalStateException("No transaction is running in this Phoenix context");
        }
        return current;
    }

    @Override
    public String toString() {
        return "PhoenixTxnContext{" + tx + "}";
    }
}
