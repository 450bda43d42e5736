package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.client.WriteMode;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.execute.MutationState;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.schema.PNameFactory;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.transaction.TransactionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The lazy begin of {@link PhoenixTxnContext} on an auto-commit connection (design.md sec. 4.11): which id Phoenix
 * is shown, and when the transaction must begin at the TM. The client's clock lags the TM's by 9 s, so a provisional
 * id is told apart from a TM timestamp by its millisecond.
 */
class PhoenixTxnContextTest {
    private static final long PER_MS = 1_000_000L;
    private static final long CLIENT_MS = 1_000L;
    private static final long TM_MS = 10_000L;

    private final AtomicLong tmClockMs = new AtomicLong(TM_MS);
    private final AtomicBoolean tmDown = new AtomicBoolean();
    private final AtomicLong tmBegins = new AtomicLong();
    private final Map<Object, Object> phoenixMap = new HashMap<>();
    private final AtomicLong countedRows = new AtomicLong();
    /** The master's fast-path switch of every table. */
    private final AtomicBoolean switchOn = new AtomicBoolean(true);
    private Connection hbase;
    private TxnClient txn;
    private PhoenixConnection connection;
    private PhoenixTxnContext context;

    @BeforeEach
    void setUp() throws Exception {
        TransactionManager tm = mock(TransactionManager.class);
        when(tm.begin()).thenAnswer(call -> {
            if (tmDown.get()) {
                throw new TmException("TM unreachable (test)");
            }
            tmBegins.incrementAndGet();
            return TimestampLayout.firstSlotOfMillis(tmClockMs.incrementAndGet()); // a TM slot start
        });
        hbase = mock(Connection.class);
        txn = new TxnClient(hbase, () -> tm, TxnClientConfig.from(k -> null), mock(CommitTable.class));
        FastPathSwitchCache switches = new FastPathSwitchCache(t -> switchOn.get(), 0, 0, 1_000, () -> 0L);
        PhoenixTxnClient client = new PhoenixTxnClient(txn, null, switches, true);
        connection = mock(PhoenixConnection.class);
        ConnectionQueryServices services = mock(ConnectionQueryServices.class);
        when(connection.getQueryServices()).thenReturn(services);
        when(services.initTransactionClient(TransactionFactory.Provider.OMID)).thenReturn(client);
        when(connection.getAutoCommit()).thenReturn(true);
        MutationState state = mock(MutationState.class);
        when(connection.getMutationState()).thenReturn(state);
        when(state.getNumRows()).thenAnswer(call -> (int) countedRows.get());
        ProvisionalClock.install(() -> CLIENT_MS);
        context = PhoenixTxnContext.withBufferedWrites(connection, new BufferedWrites(s -> phoenixMap));
    }

    @AfterEach
    void tearDown() {
        ProvisionalClock.install(null);
        RefusedRoutes.takeMustBeginEagerly(connection);
        txn.close();
    }

    @Test
    void nothingBufferedShowsTheProvisionalIdWithoutATmBegin() throws SQLException {
        context.begin();
        assertEquals(CLIENT_MS * PER_MS, context.getTransactionId());
        assertEquals(0, tmBegins.get());
    }

    /**
     * F1: Phoenix's commit retry puts the failed transaction's rows back into its mutation map without counting them
     * (numRows stays 0). Their send resolves the table's metadata at the id shown now: it must be a TM timestamp,
     * never the client clock's, which may predate an index created meanwhile.
     */
    @Test
    void rowsPhoenixsRetryPutBackUncountedAreNotResolvedAtTheProvisionalId() throws SQLException {
        context.begin();
        MutationState.MultiRowMutationState rows = mock(MutationState.MultiRowMutationState.class);
        when(rows.isEmpty()).thenReturn(false);
        phoenixMap.put("tableRef", rows);
        long id = context.getTransactionId();
        assertEquals(1, tmBegins.get(), "the transaction began at the TM before showing an id: " + id);
        assertTrue(id >= TM_MS * PER_MS, "a TM timestamp, not the provisional " + CLIENT_MS * PER_MS + ": " + id);
    }

    /** F1: after a routed write was refused for an index being built, Phoenix's retry begins at the TM. */
    @Test
    void theTransactionAfterARefusedRouteBeginsAtTheTmOnce() throws SQLException {
        RefusedRoutes.refused(connection);
        context.begin();
        assertEquals(1, tmBegins.get());
        long tmStart = context.getTransactionId();
        assertTrue(tmStart >= TM_MS * PER_MS);
        context.reset();
        context.begin();
        // Deferred again; its provisional id is above the TM timestamp this client saw, not the lagging clock's.
        assertTrue(context.getTransactionId() > tmStart, "the one after it: " + context.getTransactionId());
        assertEquals(1, tmBegins.get());
    }

    /**
     * F2: a context Phoenix reuses (reset, then begin) after a deferred transaction ended must not show that
     * transaction's provisional id when the new begin fails: there is no transaction.
     */
    @Test
    void aReusedContextWhoseBeginFailedShowsNoStaleProvisionalId() throws SQLException {
        context.begin();
        context.abort();
        assertEquals(CLIENT_MS * PER_MS, context.getTransactionId(), "Phoenix logs the ended one's id");
        context.reset();
        when(connection.getAutoCommit()).thenReturn(false); // an eager begin now
        tmDown.set(true);
        assertThrows(SQLException.class, context::begin);
        assertFalse(context.isTransactionRunning());
        IllegalStateException none = assertThrows(IllegalStateException.class, context::getTransactionId,
                "no transaction runs: no id, least of all the ended transaction's");
        assertTrue(none.getMessage().contains("No transaction"), none.getMessage());
    }

    /** F4: a mutation map that cannot be read keeps every statement on the regular path. */
    @Test
    void anUnreadableMutationMapBeginsAtTheTm() throws SQLException {
        context = PhoenixTxnContext.withBufferedWrites(connection, new BufferedWrites(s -> {
            throw new NoClassDefFoundError("org/apache/phoenix/execute/MutationState$MultiRowMutationState");
        }));
        context.begin();
        countedRows.set(1); // a statement's one row: is it a fast-path candidate? The map cannot say
        long id = context.getTransactionId();
        assertTrue(id >= TM_MS * PER_MS, "began at the TM: " + id);
        assertEquals(1, tmBegins.get());
    }

    /**
     * F-B (a): a transaction begun lazily under auto-commit that still runs after auto-commit was turned off keeps
     * no row back and shows no provisional id for a buffered row: the row is written regularly, after the metadata
     * it was built from was read at a TM timestamp.
     */
    @Test
    void afterAutoCommitIsTurnedOffNoRowIsKeptBackAndABufferedRowBeginsTheTransaction() throws Exception {
        settledTable();
        context.begin(); // e.g. a metadata lookup under auto-commit: deferred
        when(connection.getAutoCommit()).thenReturn(false);
        bufferOneRowOf(eligibleTable());
        assertFalse(context.stashIfFastPath(eligibleTable(), T, row(), WriteMode.CHECKED),
                "kept back: the commit does not follow the send");
        assertEquals(0, tmBegins.get());
        long id = context.getTransactionId();
        assertTrue(id >= TM_MS * PER_MS, "a TM timestamp, not the provisional " + CLIENT_MS * PER_MS + ": " + id);
        assertEquals(1, tmBegins.get());
    }

    /**
     * F-B (b): a kept-back row that is written regularly after all (something needed a snapshot before the commit)
     * is refused with a retryable 523 when the table's switch is off as read after the start (an index fence may
     * lie below it); nothing is written, the transaction is aborted and its commit fails with 523.
     */
    @Test
    void aKeptBackRowWhoseSwitchWasTurnedOffIsRefusedWhenTheTransactionBeginsAndItsCommitFails() throws Exception {
        Transaction begun = beginWithAKeptBackRow();
        switchOn.set(false); // CREATE INDEX, before its fence
        IllegalStateException failed = assertThrows(IllegalStateException.class, context::getReadPointer);
        SQLException refused = (SQLException) failed.getCause();
        assertEquals(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION.getErrorCode(), refused.getErrorCode());
        verify(hbase, never()).getTable(any(TableName.class));
        begun = context.transaction();
        assertFalse(begun.isRunning(), "aborted");

        SQLException commit = assertThrows(SQLException.class, context::commit, "the row's statement succeeded");
        assertEquals(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION.getErrorCode(), commit.getErrorCode());
        assertTrue(RefusedRoutes.takeMustBeginEagerly(connection), "Phoenix's retry begins at the TM");
        context.abort(); // what Phoenix does after a failed commit
        context.commit(); // a commit after the rollback commits nothing and succeeds
    }

    /**
     * F-B (c): a kept-back row whose regular write fails while a getter begins the transaction (Phoenix's getters
     * throw no SQLException): the transaction is aborted, and a later commit fails clearly instead of committing
     * without the row whose statement was reported as done.
     */
    @Test
    void aKeptBackRowWhoseRegularWriteFailsMakesTheCommitFail() throws Exception {
        beginWithAKeptBackRow();
        when(hbase.getTable(T)).thenThrow(new IOException("region server unreachable (test)"));
        IllegalStateException failed = assertThrows(IllegalStateException.class, context::getReadPointer);
        assertTrue(failed.getMessage().contains("unreachable"), failed.getMessage());
        assertTrue(context.isTransactionRunning(), "Phoenix still sees a transaction, and will commit it");
        assertFalse(context.transaction().isRunning(), "aborted");

        SQLException commit = assertThrows(SQLException.class, context::commit);
        assertEquals(SQLExceptionCode.TRANSACTION_FAILED.getErrorCode(), commit.getErrorCode(), commit.toString());
        assertTrue(commit.getMessage().contains("cannot commit"), commit.getMessage());
        assertThrows(SQLException.class, context::commit, "again: the application caught the first failure");
        context.abort();
        context.commit();
    }

    private static final TableName T = TableName.valueOf("T");

    /** Begins deferred under auto-commit and keeps one row of T back, as Phoenix's send of an UPSERT does. */
    private Transaction beginWithAKeptBackRow() throws Exception {
        settledTable();
        context.begin();
        PTable table = eligibleTable();
        bufferOneRowOf(table);
        assertTrue(context.stashIfFastPath(table, T, row(), WriteMode.CHECKED), "kept back");
        assertEquals(0, tmBegins.get());
        return context.transaction();
    }

    private static Put row() {
        Put put = new Put(new byte[] {1});
        put.addColumn(new byte[] {0}, new byte[] {'V'}, new byte[] {'x'});
        return put;
    }

    private void bufferOneRowOf(PTable table) {
        countedRows.set(1);
        MutationState.MultiRowMutationState rows = mock(MutationState.MultiRowMutationState.class);
        when(rows.isEmpty()).thenReturn(false);
        org.apache.phoenix.schema.TableRef ref = mock(org.apache.phoenix.schema.TableRef.class);
        when(ref.getTable()).thenReturn(table);
        phoenixMap.put(ref, rows);
    }

    private static PTable eligibleTable() {
        PTable table = mock(PTable.class);
        when(table.isTransactional()).thenReturn(true);
        when(table.getTransactionProvider()).thenReturn(TransactionFactory.Provider.OMID);
        when(table.getType()).thenReturn(PTableType.TABLE);
        when(table.getIndexes()).thenReturn(List.of());
        when(table.getPhysicalName()).thenReturn(PNameFactory.newName(T.getNameAsString()));
        return table;
    }

    /** T as ConversionFence finds it: created transactional, nothing to complete. */
    private void settledTable() throws IOException {
        RegionLocator locator = mock(RegionLocator.class);
        when(locator.getRegionLocation(HConstants.EMPTY_START_ROW)).thenReturn(new HRegionLocation(
                RegionInfoBuilder.newBuilder(T).setRegionId(42).build(), ServerName.valueOf("rs", 1, 1)));
        when(hbase.getRegionLocator(T)).thenReturn(locator);
        Admin admin = mock(Admin.class);
        when(hbase.getAdmin()).thenReturn(admin);
        when(admin.getDescriptor(T)).thenReturn(TableDescriptorBuilder.newBuilder(T)
                .setValue(ConversionFence.PHOENIX_PRE_EXISTING_DATA, "true")
                .setValue(ConversionFence.COMMITTED_BELOW, "1").build());
    }
}
