package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathInDoubtException;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.index.IndexBuildProgress;
import io.phoenixtxn.index.IndexPopulation;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.WriteMode;
import io.phoenixtxn.client.TxnInDoubtException;
import io.phoenixtxn.snapshot.CheckpointLimitException;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.SnapshotCodec;
import io.phoenixtxn.snapshot.VisibilityLevel;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;
import org.apache.phoenix.execute.MutationState;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.jdbc.PhoenixDatabaseMetaData;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.transaction.PhoenixTransactionClient;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.transaction.TransactionFactory;
import org.apache.phoenix.util.PhoenixRuntime;
import org.apache.phoenix.util.SchemaUtil;
import org.apache.phoenix.util.TransactionUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Phoenix's per-MutationState transaction handle. Holds the {@link Transaction} (or none) and, when it belongs to a
 * connection, resolves the client through Phoenix's connection service on every call: a context never caches a TM.
 * Contexts without a connection (decoded on a region server, or sub-task children) read and write but cannot begin
 * or commit.
 *
 * <p>Lazy begin (design.md sec. 4.11, Phoenix mapping): on an auto-commit connection {@link #begin} only marks the
 * context <em>deferred</em>; the TM round trip happens when a snapshot is really needed (a read, a pointer, a write
 * that is not the fast-path candidate, a commit of a regular write set). Phoenix asks for the transaction id while it
 * resolves table metadata (compile time, and again as it sends): with nothing buffered, or only one row the fast path
 * may take, it gets a provisional id from the local clock ({@link #getTransactionId}); otherwise the transaction
 * begins at the TM first, so every metadata read a regular write depends on follows its start, as with an eager
 * begin. The one buffered row of a fast-path candidate is kept back at send ({@link #stashIfFastPath}) and committed
 * by {@link #commit} as a bwc; a fast-path abort a regular transaction gets past is retried as one, which first
 * re-reads the table's fast-path switch after its start (a CREATE INDEX whose fence lies below the start turned it
 * off before that fence).
 *
 * <p>Only under auto-commit: a transaction begun lazily may still run after the application turned auto-commit off
 * (a metadata lookup starts one, and neither a failed statement nor setAutoCommit ends it). Then nothing is kept
 * back and no provisional id or stamp is handed out for buffered rows: its writes are regular, checked against the
 * metadata as {@link #transactionForWrite} does. A kept-back row that is written regularly after all
 * ({@link #materialize}) is first checked against the switch; if it cannot be written the transaction is aborted
 * and its commit fails.
 */
final class PhoenixTxnContext implements PhoenixTransactionContext {
    private static final Logger LOG = LoggerFactory.getLogger(PhoenixTxnContext.class);

    private final PhoenixConnection connection;
    private volatile Transaction tx;
    /** Set by commitDDLFence: the next begin() starts the index population transaction at the fence. */
    private volatile long pendingFence = -1;
    private volatile String pendingFenceTable;
    /** The data table of the pending fence, as Phoenix passed it to commitDDLFence. */
    private volatile PTable pendingFenceDataTable;
    /** Data tables as Phoenix sent this transaction's mutations (markDMLFence), by physical name. */
    private final Map<TableName, PTable> sentTables = new ConcurrentHashMap<>();
    /** Non-null while this context runs an index population. */
    private volatile IndexBuildProgress population;
    /**
     * Physical names of tables known to hold no row at this context's snapshot (a bulk load's mapper,
     * {@link LoadMapperSnapshot}): their reads are answered without a round trip.
     */
    private volatile Set<String> emptyAtSnapshot = Set.of();
    /**
     * Set while the transaction is a MapReduce task's read-only view (a bulk load's, {@link LoadMapperSnapshot}; an
     * index build's, {@link IndexToolMapperView}): writes through the provider are refused.
     */
    private volatile boolean mapperView;
    /** The fence of the index build whose map task this view belongs to ({@link IndexToolMapperView}), or -1. */
    private volatile long viewedBuildFence = -1;
    /** Begun lazily: Phoenix called begin(), no TM transaction exists yet (tx is null). */
    private volatile boolean deferred;
    /**
     * The id Phoenix is shown while deferred (metadata resolution only): the local clock in the TM's layout. Kept after
     * a deferred transaction ended without the TM (Phoenix logs it), cleared by every begin and reset.
     */
    private volatile long provisionalId;
    /** Set once a mutation was stamped with the provisional id; stamps are replaced on regular writes. */
    private volatile boolean provisionalStampsHandedOut;
    /** The visibility level Phoenix set while deferred, applied when the transaction begins. */
    private volatile VisibilityLevel pendingLevel;
    /** The one row a deferred transaction wrote, kept back for a bwc at commit. */
    private volatile FastPathRoute.StashedWrite stashed;
    /**
     * Why this transaction can never commit: rows whose statements Phoenix reported as done could not be written when
     * the transaction began at the TM (a kept-back row, {@link #materialize}; rows built before an index was
     * created, {@link #transactionForWrite}). Set with the transaction aborted;
     * {@link #commit} throws it. Cleared by every begin, abort (rollback) and reset.
     */
    private volatile SQLException lostWrites;

    /**
     * The connection whose metadata cache this context's reads resolved (sub-task children have no connection of
     * their own but share their parent's), told when a read finds a table gone ({@link DroppedTableReads}).
     */
    private final PhoenixConnection metadataOwner;
    /** Reads what Phoenix buffers unsent (Phoenix's own map; a fake in unit tests). */
    private final BufferedWrites buffered;

    PhoenixTxnContext(PhoenixConnection connection, Transaction tx) {
        this(connection, tx, connection, BufferedWrites.phoenix());
    }

    /** For unit tests: {@code buffered} stands for Phoenix's mutation map. */
    static PhoenixTxnContext withBufferedWrites(PhoenixConnection connection, BufferedWrites buffered) {
        return new PhoenixTxnContext(connection, null, connection, buffered);
    }

    private PhoenixTxnContext(PhoenixConnection connection, Transaction tx, PhoenixConnection metadataOwner,
                              BufferedWrites buffered) {
        this.connection = connection;
        this.tx = tx;
        this.metadataOwner = metadataOwner;
        this.buffered = buffered;
    }

    PhoenixConnection metadataOwner() {
        return metadataOwner;
    }

    private TxnClient client() throws SQLException {
        return phoenixClient().txnClient();
    }

    private PhoenixTxnClient phoenixClient() throws SQLException {
        return phoenixClientOf(connection);
    }

    static PhoenixTxnClient phoenixClientOf(PhoenixConnection connection) throws SQLException {
        if (connection == null) {
            throw new SQLExceptionInfo.Builder(SQLExceptionCode.NULL_TRANSACTION_CONTEXT).build().buildException();
        }
        PhoenixTransactionClient client = connection.getQueryServices()
                .initTransactionClient(TransactionFactory.Provider.OMID);
        if (!(client instanceof PhoenixTxnClient)) {
            ProviderSlot.verify();
            throw SqlErrors.failed("Phoenix returned transaction client " + client + " for the OMID slot", null);
        }
        PhoenixTxnClient ours = (PhoenixTxnClient) client;
        ours.watchMetadata(connection.getQueryServices());
        return ours;
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
        if (metadataOwner == null) {
            return;
        }
        try {
            ConversionFence.ensure(phoenixClientOf(metadataOwner).txnClient(), table);
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** The running transaction, for table wrappers; their calls fail clearly when none is attached. */
    Transaction requireTransaction() throws IOException {
        Transaction current = tx;
        if (current == null && deferred) {
            current = beginNow();
        }
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
            populateOnRegionServers(pendingFenceDataTable);
            return;
        }
        abandonPopulation(); // a population that ended without commit or rollback (e.g. its statement failed)
        viewedBuildFence = -1;
        sentTables.clear();
        clearDeferred();
        lostWrites = null;
        provisionalId = 0; // a context Phoenix reuses must never show the id of a transaction that ended (F2)
        LoadMapperSnapshot load;
        try {
            load = LoadMapperSnapshot.of(connection);
        } catch (IllegalArgumentException e) {
            throw SqlErrors.failed(e.getMessage(), e);
        }
        if (load != null) {
            tx = load.view(); // a bulk load's mapper: reads at the load's snapshot, never commits (no TM call)
            emptyAtSnapshot = load.emptyTables();
            mapperView = true;
            return;
        }
        long buildFence;
        try {
            buildFence = IndexToolMapperView.fenceOf(connection);
        } catch (IllegalArgumentException e) {
            throw SqlErrors.failed(e.getMessage(), e);
        }
        if (buildFence > 0) {
            tx = IndexToolMapperView.viewAt(buildFence); // an index build's mapper: never commits (no TM call)
            emptyAtSnapshot = Set.of();
            mapperView = true;
            viewedBuildFence = buildFence;
            return;
        }
        emptyAtSnapshot = Set.of();
        mapperView = false;
        if (AlterSwitches.switchAsked() && AlterSwitches.calledForDdlTimestamp()) {
            installCatalogObserver(); // inside Phoenix's ALTER ... SET TRANSACTIONAL=true, before its catalog write
            AlterSwitches.observerInstalled();
        }
        Long alteredSince = AlterSwitches.takePending(connection);
        if (alteredSince != null) {
            completeSwitchesSince(alteredSince); // before this transaction's start: it follows their fences
        }
        long inherited = ReplayGuard.takeInheritedConflictStart(connection);
        boolean afterRefusal = RefusedRoutes.takeMustBeginEagerly(connection);
        PhoenixTxnClient client = phoenixClient();
        if (inherited < 0 && !afterRefusal && client.routing() && isAutoCommit(connection)) {
            // A replay (inherited >= 0) re-sends writes computed earlier: it begins at once, as before. So does the
            // transaction after a routed write refused for an index being built: Phoenix re-reads the table's
            // metadata at its id and may re-send the row, which must see the index (RefusedRoutes).
            provisionalId = client.tmClock().provisionalId(ProvisionalClock.current().nowMs());
            deferred = true;
            tx = null;
            return;
        }
        tx = beginAtTm(client, inherited);
    }

    /** {@link CatalogObserverInstaller} on this connection's cluster; a failure refuses the ALTER, which wrote nothing. */
    private void installCatalogObserver() throws SQLException {
        try {
            org.apache.hadoop.hbase.client.Connection hbase = client().connection();
            CatalogObserverInstaller.ensure(CatalogObserverInstaller.of(hbase, catalogTable(hbase)),
                    hbase.getConfiguration().getInt(ConversionFence.PHOENIX_COPROCESSOR_PRIORITY,
                            ConversionFence.DEFAULT_PHOENIX_COPROCESSOR_PRIORITY) - 10);
        } catch (IOException | RuntimeException e) {
            throw new SQLExceptionInfo.Builder(SQLExceptionCode.CANNOT_ALTER_TABLE_FROM_NON_TXN_TO_TXNL)
                    .setMessage("phoenix-txn could not install " + CatalogObserverInstaller.OBSERVER + " on"
                            + " SYSTEM.CATALOG (" + e.getMessage() + "); the region servers and the master need the"
                            + " phoenix-txn jar on their classpath (docs/deployment.md), and this client the right to"
                            + " modify SYSTEM.CATALOG. Nothing was changed")
                    .setRootCause(e).build().buildException();
        }
    }

    private static TableName catalogTable(org.apache.hadoop.hbase.client.Connection hbase) {
        return SchemaUtil.getPhysicalTableName(PhoenixDatabaseMetaData.SYSTEM_CATALOG_NAME_BYTES,
                hbase.getConfiguration());
    }

    /**
     * Completes the switch of every table an ALTER on this connection made transactional (AlterSwitches): the tables
     * and indexes whose catalog header was written {@code TRANSACTIONAL=true} since the ALTER's DDL time
     * ({@link SwitchedTables}: read from SYSTEM.CATALOG, as Phoenix may have dropped them from its cache). Each is
     * waited for and fenced once ({@link ConversionFence}; tables created transactional meanwhile are only looked
     * at). A table that fails is logged and left to its first transactional use, which completes the switch then.
     */
    private void completeSwitchesSince(long ddlTimeMs) {
        List<TableName> candidates;
        TxnClient txnClient;
        try {
            txnClient = client();
            org.apache.hadoop.hbase.client.Connection hbase = txnClient.connection();
            candidates = SwitchedTables.since(hbase, catalogTable(hbase), ddlTimeMs,
                    SchemaUtil.isNamespaceMappingEnabled(PTableType.TABLE, connection.getQueryServices().getProps()));
        } catch (IOException | SQLException | RuntimeException e) {
            LOG.warn("Could not read which tables the ALTER on this connection made transactional ({}); the first"
                    + " transactional use of each completes its switch", e.toString(), e);
            return;
        }
        for (TableName table : candidates) {
            try {
                ConversionFence.ensure(txnClient, table, ConversionFence.EAGER_WAIT_MS);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Could not complete the switch of {} to transactional right after the ALTER ({}); its first"
                        + " transactional use completes it", table, e.toString(), e);
            }
        }
    }

    private Transaction beginAtTm(PhoenixTxnClient provider, long inherited) throws SQLException {
        try {
            TxnClient client = provider.txnClient();
            Transaction begun = inherited >= 0 ? client.beginReplayOf(inherited) : client.begin();
            FastPathRoutingStats.tmBegin();
            sawTmTimestamp(provider, begun.txId());
            // Phoenix closes connections without rolling back: a closed connection's transaction is ended, not
            // renewed, so it does not hold the GC horizon back.
            PhoenixConnection owner = connection;
            client.ownedBy(begun, () -> !isClosed(owner));
            return begun;
        } catch (IOException | RuntimeException e) {
            // RuntimeException: e.g. this JVM serves its TM through HA and is between primaries right now.
            throw SqlErrors.failed("Could not begin a transaction: " + e.getMessage(), e);
        }
    }

    /** Feeds {@code provider}'s estimate of the TM's clock, from which provisional ids are drawn. */
    static void sawTmTimestamp(PhoenixTxnClient provider, long tmTimestamp) {
        provider.tmClock().observed(tmTimestamp, ProvisionalClock.current().nowMs());
    }

    /**
     * Ends the deferral: begins at the TM, applies the level Phoenix set meanwhile, and writes a kept-back row (if
     * any) as the new transaction's tentative write. Returns the running transaction.
     *
     * <p>A kept-back row was built from metadata read before this start, in which its table had no index; an index
     * whose fence lies below the start would not be maintained by it, and the TM's fence check at commit would not
     * catch it (the start is above the fence). CREATE INDEX turns the table's fast-path switch off before it draws
     * its fence, so the switch is read again now, after the start ({@link FastPathSwitchCache#readNow}): off (or
     * unreadable) refuses the row with a retryable 523, as the regular retry of an aborted bwc and
     * {@link #transactionForWrite} do; on means any index's fence lies above the start and aborts this transaction
     * at commit. Whenever the row cannot be written (refused or failed), the transaction is aborted and marked
     * ({@link #lostWrites}): the row's statement was reported as done, so no later commit of this transaction may
     * succeed without it.
     */
    private synchronized Transaction materialize() throws SQLException {
        if (!deferred) {
            return tx;
        }
        Transaction begun = beginAtTm(phoenixClient(), -1);
        VisibilityLevel level = pendingLevel;
        if (level != null) {
            begun.setVisibilityLevel(level);
        }
        FastPathRoute.StashedWrite kept = stashed;
        tx = begun;
        clearDeferred();
        if (kept != null) {
            try {
                refuseIfSwitchedOff(begun, kept.table());
                writeRegular(begun, kept);
            } catch (SQLException | RuntimeException e) {
                abortQuietly(begun);
                SQLException lost = e instanceof SQLException ? (SQLException) e
                        : SqlErrors.failed("Writing row of " + kept.table() + " in transaction " + begun.txId()
                        + " failed: " + e.getMessage(), e);
                lostWrites = lost;
                throw lost;
            }
        }
        return begun;
    }

    /**
     * Refuses (SQL 523, retryable) a kept-back row of {@code table} about to be written regularly in {@code begun}
     * if the table's fast-path switch is not on as read after the start: an index being created may have its fence
     * below the start. Phoenix's commit retry then re-reads the metadata at a TM timestamp ({@link RefusedRoutes})
     * and re-sends the row with the index's maintenance.
     */
    private void refuseIfSwitchedOff(Transaction begun, TableName table) throws SQLException {
        PhoenixTxnClient client = phoenixClient();
        FastPathSwitchCache.State stillFastPath = client.switches().readNow(table);
        if (stillFastPath == FastPathSwitchCache.State.ON) {
            return;
        }
        // Unknown (master unreachable) is taken as off.
        client.switches().refused(table);
        RefusedRoutes.refused(connection);
        String why = stillFastPath == FastPathSwitchCache.State.OFF
                ? "the fast path of " + table + " was turned off (an index is being created)"
                : "the fast-path switch of " + table + " could not be read from the master (an index may be being"
                + " created), nothing was written";
        throw new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION)
                .setMessage("Transaction " + begun.txId() + " aborted: " + why + "; retry the statement").build()
                .buildException();
    }

    /** {@link #materialize} for callers that throw IOException (table wrappers). */
    private Transaction beginNow() throws IOException {
        try {
            return materialize();
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** {@link #materialize} for Phoenix's getters, which declare no exception. */
    private Transaction beginOrFail() {
        try {
            return materialize();
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private void clearDeferred() {
        deferred = false;
        stashed = null;
        pendingLevel = null;
    }

    private void writeRegular(Transaction current, FastPathRoute.StashedWrite write) throws SQLException {
        TxnClient client = client();
        try (TransactionalTable table = client.wrap(client.connection().getTable(write.table()), write.mode())) {
            restamp(write.mutation(), current);
            if (write.mutation() instanceof Put) {
                table.put(current, (Put) write.mutation());
            } else {
                table.delete(current, (Delete) write.mutation());
            }
        } catch (IOException e) {
            throw SqlErrors.failed("Writing row of " + write.table() + " in transaction " + current.txId()
                    + " failed: " + e.getMessage(), e);
        }
    }

    /** Phoenix's stamp of the transaction on a mutation, if any, set to {@code current}'s (see encodeTransaction). */
    void restamp(org.apache.hadoop.hbase.client.Mutation mutation, Transaction current) {
        if (mutation.getAttribute(TX_STATE) != null) {
            mutation.setAttribute(TX_STATE, encode(current.snapshot()));
        }
    }

    /** Phoenix's mutation attribute for the encoded transaction (BaseScannerRegionObserverConstants.TX_STATE). */
    private static final String TX_STATE = org.apache.phoenix.coprocessorclient.BaseScannerRegionObserverConstants
            .TX_STATE;

    private static boolean isAutoCommit(PhoenixConnection connection) {
        try {
            return connection != null && connection.getAutoCommit();
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Called by a table writer as Phoenix sends rows: keeps {@code write} back for a bwc at commit if this deferred
     * transaction has nothing else, the table may take the fast path, and the connection is in auto-commit mode now
     * (then the send is its commit's, and the commit follows at once). A transaction begun lazily under auto-commit
     * may still run after auto-commit was turned off (a metadata lookup starts one, and nothing ends it); its rows
     * are sent by later statements and must not be kept back: they are written as a regular transaction
     * ({@link #transactionForWrite}, false).
     */
    synchronized boolean stashIfFastPath(PTable dataTable, TableName physical, org.apache.hadoop.hbase.client.Mutation
            write, WriteMode mode) throws IOException {
        RoutingHooks.current().beforeSendDecision(physical);
        if (!deferred || stashed != null || write == null || dataTable == null
                || !physical.equals(FastPathRoute.physicalName(dataTable)) || !isAutoCommit(connection)) {
            return false;
        }
        try {
            if (!FastPathRoute.eligible(dataTable, phoenixClient().switches())) {
                return false;
            }
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
        // A kept-back row is a write of the table as much as a regular one: a converted table's switch is completed
        // first (ConversionFence), else its bwc could reach regions that do not run our observer yet.
        beforeUsing(physical);
        stashed = new FastPathRoute.StashedWrite(physical, write, mode);
        return true;
    }

    /**
     * The transaction a regular write runs in. A deferred transaction begins here only when Phoenix's send found the
     * row it expected to route to the fast path no longer eligible (its metadata changed, or its rows were re-sent by
     * Phoenix's commit retry): the metadata the rows were built from was read before this start, so it is read again
     * now, and a table that gained an index meanwhile fails the write with a retryable 523. The statements that
     * buffered those rows were reported as done, so the transaction is then rolled back and marked as
     * {@link #lostWrites}: its commit fails (with the 523; 1077 if the metadata could not be re-read) until a
     * rollback, and the next transaction on the
     * connection begins at the TM ({@link RefusedRoutes}).
     */
    /**
     * Refuses writes of a bulk load's view: its cells would carry the load's version, which a commit of the view
     * cannot commit and the load's own commit would (its commit cells cover every cell at that version), past the
     * load's hold.
     */
    void refuseWritesOfAMapperView() throws IOException {
        if (mapperView) {
            throw new IOException("This connection belongs to a map task of a transactional bulk load or index build"
                    + " (" + LoadMapperSnapshot.VERSION + " or " + IndexToolMapperView.FENCE + " is among its"
                    + " properties): it reads at the job's snapshot and cannot write. Open connections for other work"
                    + " without the job's settings");
        }
    }

    Transaction transactionForWrite() throws IOException {
        refuseWritesOfAMapperView();
        if (!deferred) {
            return requireTransaction();
        }
        Transaction begun = beginNow();
        try {
            for (PTable sent : sentTables.values()) {
                checkIndexesUnchanged(sent);
            }
        } catch (IOException e) {
            abortQuietly(begun);
            RefusedRoutes.refused(connection);
            // A new index is a retryable conflict (523); a failed re-read of the metadata is not (1077).
            lostWrites = e.getMessage().startsWith(FastPathAbortedException.SQL_PREFIX)
                    ? new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION)
                            .setMessage(e.getMessage().substring(FastPathAbortedException.SQL_PREFIX.length()))
                            .setRootCause(e).build().buildException()
                    : SqlErrors.failed(e.getMessage(), e);
            throw e;
        }
        return begun;
    }

    private void checkIndexesUnchanged(PTable sent) throws IOException {
        PTable current;
        try {
            current = PhoenixRuntime.getTableNoCache(connection, sent.getName().getString());
        } catch (SQLException e) {
            throw new IOException("Could not re-read the metadata of " + sent.getName() + ": " + e.getMessage(), e);
        }
        Set<String> known = new HashSet<>();
        for (PTable index : sent.getIndexes()) {
            known.add(index.getName().getString());
        }
        for (PTable index : current.getIndexes()) {
            if (!known.contains(index.getName().getString())) {
                throw new IOException(FastPathAbortedException.SQL_PREFIX + "index " + index.getName().getString()
                        + " was created on " + sent.getName().getString() + " while this statement was sent; its"
                        + " rows do not maintain it: retry the statement");
            }
        }
    }

    @Override
    public void commit() throws SQLException {
        SQLException lost = lostWrites;
        if (lost != null) {
            Transaction current = tx;
            throw new SQLExceptionInfo.Builder(SQLExceptionCode.fromErrorCode(lost.getErrorCode()))
                    .setMessage("Transaction " + (current == null ? "" : current.txId() + " ") + "cannot commit: the"
                            + " rows earlier statements wrote were lost when the transaction began (" + lost.getMessage()
                            + "); it was rolled back").setRootCause(lost).build().buildException();
        }
        if (deferred) {
            commitDeferred();
            return;
        }
        Transaction current = tx;
        if (current == null || connection == null || !current.isRunning() || !current.canCommit()) {
            return;
        }
        commitAtTm(current);
    }

    /**
     * Commit of a transaction that never began at the TM: nothing, or its one kept-back row as a bwc. A fast-path
     * abort that a regular transaction gets past is retried as one here (the application sees one outcome); a FENCED
     * refusal is SQL 523, so that Phoenix's commit retry refreshes the table's metadata (its new index) and re-sends;
     * a write in doubt is reported as such, never retried.
     */
    private void commitDeferred() throws SQLException {
        FastPathRoute.StashedWrite write = stashed;
        if (write == null) {
            clearDeferred();
            FastPathRoutingStats.endWithoutTm();
            return;
        }
        PhoenixTxnClient client = phoenixClient();
        FastPathTable table;
        try {
            table = client.fastPath().table(write.table());
        } catch (IOException | RuntimeException e) {
            clearDeferred();
            throw FastPathOutcomes.ofFailureBeforeSend(e, write.table());
        }
        try {
            RoutingHooks.current().beforeFastPathWrite(write.table());
            long version = write.mutation() instanceof Put ? table.bwc((Put) write.mutation())
                    : table.bwc((Delete) write.mutation());
            clearDeferred();
            FastPathRoutingStats.fastPathWrite();
            FastPathRoutingStats.endWithoutTm();
            LOG.trace("Fast-path write to {} committed at {}", write.table(), version);
            return;
        } catch (FastPathAbortedException e) {
            FastPathRoutingStats.aborted(e.reason());
            SQLException refused = FastPathOutcomes.ofAbort(e, write.table());
            if (refused != null) {
                clearDeferred();
                client.switches().refused(write.table());
                RefusedRoutes.refused(connection);
                throw refused;
            }
            LOG.debug("Fast-path write to {} aborted ({}); retrying it as a regular transaction", write.table(),
                    e.reason());
        } catch (FastPathInDoubtException e) {
            clearDeferred();
            throw FastPathOutcomes.ofInDoubt(e, write.table());
        } catch (IOException | RuntimeException e) {
            clearDeferred();
            throw FastPathOutcomes.ofFailure(e, write.table());
        } finally {
            closeQuietly(table); // after the outcome is known: a failure to close changes nothing of it
        }
        RoutingHooks.current().beforeRegularRetry(write.table());
        // The row, written tentatively at a fresh start, unless the switch was turned off before that start (an
        // index fence may lie below it, and the row was built without that index's maintenance): then 523, and
        // Phoenix's retry refreshes the metadata at a TM timestamp (RefusedRoutes) and re-sends.
        commitAtTm(materialize());
    }

    private static void closeQuietly(FastPathTable table) {
        try {
            table.close();
        } catch (IOException | RuntimeException e) {
            LOG.debug("Closing {} failed", table, e);
        }
    }

    private void abortQuietly(Transaction current) {
        try {
            client().abort(current);
        } catch (IOException | SQLException e) {
            LOG.warn("Rollback of {} left tentative cells behind; readers treat them as aborted", current, e);
        }
    }

    private void commitAtTm(Transaction current) throws SQLException {
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
            PhoenixTxnClient provider = phoenixClient();
            provider.txnClient().commit(current);
            committed = true;
            sawTmTimestamp(provider, current.commitTs());
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
        lostWrites = null; // rolled back: the transaction that lost its rows is over
        long fence = viewedBuildFence;
        if (fence > 0) {
            viewedBuildFence = -1;
            verifyBuildFenceHeld(fence);
            return; // a view: nothing to end at the TM
        }
        if (deferred) {
            clearDeferred(); // nothing was written: a kept-back row was never sent
            FastPathRoutingStats.endWithoutTm();
            return;
        }
        Transaction current = tx;
        if (current == null || connection == null || !current.isRunning() || !current.canCommit()) {
            return;
        }
        finishPopulation(false);
        PhoenixTxnClient provider = phoenixClient();
        try {
            provider.txnClient().abort(current);
        } catch (IOException e) {
            throw SqlErrors.failed("Rollback of transaction " + current.txId() + " failed: " + e.getMessage(), e);
        }
        if (current.writeSet().isEmpty()) {
            // What an application does after a failed read; a failed read may be Phoenix's 1012 for an index that
            // another client dropped while this service's cache had evicted the index's own entry (design 4.10).
            provider.repairMetadataAfterReadOnlyRollback(connection.getQueryServices());
        }
    }

    /**
     * Runs the population on the region servers before Phoenix's own pass (an UPSERT SELECT through the client),
     * which then reads no rows ({@link PhoenixTxnTable#getScanner}). A failure ends the population transaction and
     * fails CREATE INDEX, leaving the index BUILDING as a failure of Phoenix's own pass does.
     */
    private void populateOnRegionServers(PTable dataTable) throws SQLException {
        PhoenixTxnClient provider = phoenixClient();
        if (dataTable == null || connection == null || provider.hbase() == null) {
            return;
        }
        try {
            IndexPopulation.onRegionServers(connection, dataTable, provider.txnClient(), provider.hbase(), tx,
                    population, connection.getQueryServices().getProps()::get);
        } catch (IOException | SQLException | RuntimeException e) {
            Transaction failed = tx;
            tx = null; // the statements that follow must not run inside the population's transaction
            finishPopulation(false);
            try {
                provider.txnClient().abort(failed);
            } catch (IOException | RuntimeException abortFailure) {
                e.addSuppressed(abortFailure);
            }
            throw SqlErrors.failed("Index population of " + dataTable.getName() + " on the region servers failed: "
                    + e.getMessage(), e);
        }
    }

    /** True if {@code table} is known to hold no row at this context's snapshot ({@link LoadMapperSnapshot}). */
    boolean knownEmpty(TableName table) {
        Set<String> empty = emptyAtSnapshot;
        return !empty.isEmpty() && empty.contains(table.getNameAsString());
    }

    /** The index population this context runs, or null. */
    IndexBuildProgress population() {
        return population;
    }

    /** Whether this context's running transaction is {@code progress}'s population (id = snapshot = its fence). */
    boolean runsPopulation(IndexBuildProgress progress) {
        Transaction current = tx;
        return current != null && current.txId() == progress.getFenceTimestamp();
    }

    /** Forgets a population whose transaction ended without passing through commit or abort here. */
    private void abandonPopulation() {
        if (population != null) {
            finishPopulation(false);
        }
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
        materialize();
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
        long fence = IndexBuildFence.draw(connection, dataTable);
        // Phoenix calls begin() right after this; that transaction populates the index at the fence.
        clearDeferred();
        tx = Transaction.readOnlyView(Snapshot.begin(fence));
        pendingFenceTable = physical.getNameAsString();
        pendingFenceDataTable = dataTable;
        pendingFence = fence;
    }

    /**
     * An index build's map task rolls back its view after each batch it read and wrote (Phoenix's IndexTool mapper).
     * Its reads were at the build's fence, safe only while the GC horizon stayed at or below the fence. The region
     * servers refuse such a read once their horizon is above it ({@code TooOldMapReduceScanner}); this second check
     * asks the TM, whose horizon runs ahead of theirs, and fails the task before the reducer can mark the index
     * ACTIVE. It also renews the hold, so the tasks keep the fence while they run.
     */
    private void verifyBuildFenceHeld(long fence) throws SQLException {
        boolean held;
        try {
            held = phoenixClient().txnClient().renewHold(fence);
        } catch (IOException | RuntimeException e) {
            throw SqlErrors.failed("Index build at fence " + fence + ": could not ask the TM whether it still holds the"
                    + " fence: " + e.getMessage() + ". The map task fails; the index stays BUILDING", e);
        }
        if (!held) {
            throw SqlErrors.failed("Index build at fence " + fence + ": the TM no longer holds the fence, or cannot"
                    + " tell (the tool's process stopped renewing it for longer than"
                    + " phoenix.txn.tm.transaction.lease.ms, or a new primary TM is still adopting transactions), so"
                    + " rows read at it may have been garbage-collected. The map task fails and the index stays"
                    + " BUILDING: run TransactionalIndexTool again", null);
        }
    }

    /**
     * Phoenix calls this as it sends a data table's mutations, with the table as re-resolved then; commit checks
     * that row deletes maintained every index it has ({@link IndexMaintenanceCheck}). Fences themselves are checked
     * by the TM at commit against every table in the write set.
     */
    @Override
    public void markDMLFence(PTable dataTable) {
        if (dataTable != null && (tx != null || deferred)) {
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
        Transaction current = child != null && deferred ? beginOrFail() : tx;
        if (child != null && current != null && child != current) {
            current.join(child);
        }
    }

    @Override
    public boolean isTransactionRunning() {
        return tx != null || deferred;
    }

    @Override
    public void reset() {
        tx = null;
        abandonPopulation();
        clearDeferred();
        lostWrites = null;
        provisionalId = 0;
        sentTables.clear();
        emptyAtSnapshot = Set.of();
        mapperView = false;
        viewedBuildFence = -1;
    }

    /**
     * Phoenix reads the id (as milliseconds) to resolve table metadata (MetaDataClient.updateCache, at compile and
     * again as it sends) and as DDL timestamps (TransactionUtil.getTableTimestamp). A deferred transaction shows the
     * provisional id only while Phoenix's mutation map is really empty (read from the map: Phoenix's commit retry
     * re-buffers rows without counting them) or holds only one fast-path candidate row; otherwise it begins first, so
     * the metadata the send reads next follows its start.
     */
    @Override
    public long getTransactionId() {
        long id = transactionId();
        if (AlterSwitches.switchAsked() && AlterSwitches.calledForDdlTimestamp()) {
            tookAlterTimestamp(id);
        }
        return id;
    }

    /**
     * Phoenix's ALTER ... SET TRANSACTIONAL=true took its DDL timestamp from this transaction (AlterSwitches): the
     * catalog observer is in place (begin() installed it, unless the transaction already ran), and the connection's
     * next transaction completes the switches this ALTER makes.
     */
    private void tookAlterTimestamp(long id) {
        if (connection == null) {
            return;
        }
        if (!AlterSwitches.observerInstalledForMark()) {
            // The ALTER ran inside a transaction already begun, so begin() did not install it: Phoenix's
            // getTableTimestamp declares no exception here, so a failure fails the ALTER, before its catalog write.
            try {
                installCatalogObserver();
            } catch (SQLException e) {
                AlterSwitches.takeAsked();
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        AlterSwitches.takeAsked();
        AlterSwitches.pending(connection, TransactionUtil.convertToMilliseconds(id) - PENDING_SWITCH_MARGIN_MS);
    }

    /** Tables converted this long before the ALTER's DDL time are looked at too (clock steps, provisional ids). */
    private static final long PENDING_SWITCH_MARGIN_MS = 1_000;

    private long transactionId() {
        if (deferred && mayStayDeferred()) {
            return provisionalId;
        }
        if (!deferred && tx == null && provisionalId > 0) {
            // A deferred transaction that ended without the TM (Phoenix logs the id after a failed commit).
            return provisionalId;
        }
        return (deferred ? beginOrFail() : running()).txId();
    }

    private boolean mayStayDeferred() {
        return buffered.isEmpty(connection.getMutationState()) || holdsOnlyAFastPathCandidate();
    }

    /**
     * The connection is in auto-commit mode and its buffered rows are exactly one row of a table the fast path may
     * take (only then is a row kept back: {@link #stashIfFastPath}).
     */
    private boolean holdsOnlyAFastPathCandidate() {
        MutationState state = connection.getMutationState();
        if (state.getNumRows() != 1 || !isAutoCommit(connection)) {
            return false;
        }
        try {
            return FastPathRoute.eligible(buffered.singleTable(state), phoenixClient().switches());
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Routing check failed; the transaction begins at the TM", e);
            return false;
        }
    }

    @Override
    public long getReadPointer() {
        return (deferred ? beginOrFail() : running()).readPointer();
    }

    @Override
    public long getWritePointer() {
        return (deferred ? beginOrFail() : running()).writePointer();
    }

    @Override
    public void setVisibilityLevel(PhoenixVisibilityLevel level) {
        if (deferred) {
            synchronized (this) {
                if (deferred) {
                    pendingLevel = levelOf(level); // a deferred transaction is never a replay
                    return;
                }
            }
        }
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
        if (deferred) {
            VisibilityLevel level = pendingLevel;
            return PhoenixVisibilityLevel.valueOf((level == null ? VisibilityLevel.SNAPSHOT : level).name());
        }
        return PhoenixVisibilityLevel.valueOf(running().visibilityLevel().name());
    }

    @Override
    public byte[] encodeTransaction() throws SQLException {
        Snapshot snapshot;
        if (deferred && holdsOnlyAFastPathCandidate()) {
            // Phoenix stamps every transactional mutation with the encoded transaction as it sends it
            // (IndexMetaDataCacheClient.setMetaDataOnMutations); a fast-path candidate's row is kept back, and if it
            // is written regularly after all, the stamp is replaced by the real one (PhoenixTxnTable).
            provisionalStampsHandedOut = true;
            snapshot = Snapshot.begin(provisionalId);
        } else {
            Transaction current = deferred ? materialize() : tx; // a scan: its snapshot must come from the TM
            if (current == null) {
                throw SqlErrors.failed("No transaction to encode", null);
            }
            snapshot = current.snapshot();
        }
        return encode(snapshot);
    }

    /** True once this context stamped a mutation with its provisional id (see {@link #encodeTransaction}). */
    boolean handedOutProvisionalStamps() {
        return provisionalStampsHandedOut;
    }

    private byte[] encode(Snapshot snapshot) {
        byte[] bytes = SnapshotCodec.encode(snapshot);
        byte[] encoded = Arrays.copyOf(bytes, bytes.length + 1);
        encoded[bytes.length] = getProvider().getCode();
        return encoded;
    }

    @Override
    public TransactionFactory.Provider getProvider() {
        return TransactionFactory.Provider.OMID;
    }

    @Override
    public PhoenixTransactionContext newTransactionContext(PhoenixTransactionContext ctx, boolean subTask) {
        PhoenixTxnContext other = (PhoenixTxnContext) ctx;
        Transaction otherTx = other.deferred ? other.beginOrFail() : other.tx;
        if (subTask) {
            PhoenixTxnContext child = new PhoenixTxnContext(null, otherTx == null ? null : otherTx.childView(),
                    other.metadataOwner, other.buffered);
            child.population = other.population; // a client-side population's parallel scans count into it
            child.emptyAtSnapshot = other.emptyAtSnapshot;
            child.mapperView = other.mapperView;
            return child;
        }
        return new PhoenixTxnContext(other.connection, otherTx, other.connection, other.buffered);
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
