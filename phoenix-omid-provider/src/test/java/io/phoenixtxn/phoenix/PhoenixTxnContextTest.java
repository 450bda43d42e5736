package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.phoenix.execute.MutationState;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.transaction.TransactionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
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
        txn = new TxnClient(mock(Connection.class), () -> tm, TxnClientConfig.from(k -> null),
                mock(CommitTable.class));
        FastPathSwitchCache switches = new FastPathSwitchCache(t -> true, 5_000, 2_000, 1_000, () -> 0L);
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
}
