package io.phoenixtxn.it.client;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnAbortedException;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.it.ClientFixture;
import io.phoenixtxn.tm.AbortReason;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.ClientFixture.FAMILY;
import static io.phoenixtxn.it.ClientFixture.QUALIFIER;
import static io.phoenixtxn.it.ClientFixture.read;
import static io.phoenixtxn.it.ClientFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hermitage / Adya anomaly histories on the minicluster through the transactional client. Snapshot isolation
 * prevents G0, G1a, G1b, G1c, OTV, PMP, P4 (lost update) and G-single (read skew); it allows G2-item (write
 * skew), which the last test documents. Each test starts from x=10, y=20.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SnapshotAnomaliesIT {
    private static TxnClient client;
    private static TransactionalTable table;
    private String x;
    private String y;
    private static int round;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientFixture.client(TxnClientConfig.PostCommitMode.ASYNC);
        table = client.table(ClientFixture.createTable("ANOMALIES"));
    }

    @AfterAll
    static void tearDown() throws IOException {
        table.close();
        client.close();
    }

    @BeforeEach
    void freshRows() throws IOException {
        round++;
        x = "x" + round;
        y = "y" + round;
        Transaction setup = client.begin();
        write(table, setup, x, "10");
        write(table, setup, y, "20");
        client.commit(setup);
    }

    @Test
    void g0WriteCyclesArePrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        write(table, t1, x, "11");
        write(table, t2, x, "12");
        write(table, t1, y, "21");
        write(table, t2, y, "22");
        client.commit(t1);
        assertAborted(AbortReason.CONFLICT, t2);
        Transaction check = client.begin();
        assertEquals("11", read(table, check, x));
        assertEquals("21", read(table, check, y));
    }

    @Test
    void g1aAbortedReadsArePrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        write(table, t1, x, "101");
        assertEquals("10", read(table, t2, x));
        client.abort(t1);
        assertEquals("10", read(table, t2, x));
        assertEquals("10", read(table, client.begin(), x));
    }

    @Test
    void g1bIntermediateReadsArePrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        write(table, t1, x, "101");
        assertEquals("10", read(table, t2, x));
        write(table, t1, x, "11");
        client.commit(t1);
        assertEquals("10", read(table, t2, x));
        assertEquals("11", read(table, client.begin(), x));
    }

    @Test
    void g1cCircularInformationFlowIsPrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        write(table, t1, x, "11");
        write(table, t2, y, "22");
        assertEquals("20", read(table, t1, y));
        assertEquals("10", read(table, t2, x));
        client.commit(t1);
        client.commit(t2);
    }

    @Test
    void otvObservedTransactionVanishesIsPrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        Transaction t3 = client.begin();
        write(table, t1, x, "11");
        write(table, t1, y, "19");
        write(table, t2, x, "12");
        client.commit(t1);
        assertEquals("10", read(table, t3, x));
        write(table, t2, y, "18");
        assertEquals("20", read(table, t3, y));
        assertAborted(AbortReason.CONFLICT, t2);
        assertEquals("10", read(table, t3, x));
        assertEquals("20", read(table, t3, y));
    }

    @Test
    void pmpPredicateManyPrecedersIsPrevented() throws IOException {
        String z = "z" + round;
        Transaction t1 = client.begin();
        assertEquals(List.of(), rowsWithValue(t1, "30"));
        Transaction t2 = client.begin();
        write(table, t2, z, "30");
        client.commit(t2);
        assertEquals(List.of(), rowsWithValue(t1, "30"), "the predicate read is repeatable");
        assertEquals(List.of(z), rowsWithValue(client.begin(), "30"));
    }

    @Test
    void p4LostUpdateIsPrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        assertEquals("10", read(table, t1, x));
        assertEquals("10", read(table, t2, x));
        write(table, t1, x, "11");
        write(table, t2, x, "11");
        client.commit(t1);
        assertAborted(AbortReason.CONFLICT, t2);
    }

    @Test
    void gSingleReadSkewIsPrevented() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        assertEquals("10", read(table, t1, x));
        write(table, t2, x, "12");
        write(table, t2, y, "18");
        client.commit(t2);
        assertEquals("20", read(table, t1, y), "t1 must not see half of t2");
    }

    /** Write skew is allowed by snapshot isolation: both commit, and the invariant x + y >= 30 can break. */
    @Test
    void g2ItemWriteSkewIsAllowedUnderSnapshotIsolation() throws IOException {
        Transaction t1 = client.begin();
        Transaction t2 = client.begin();
        assertEquals("10", read(table, t1, x));
        assertEquals("20", read(table, t1, y));
        assertEquals("10", read(table, t2, x));
        assertEquals("20", read(table, t2, y));
        write(table, t1, x, "0");
        write(table, t2, y, "0");
        client.commit(t1);
        client.commit(t2);
        Transaction check = client.begin();
        assertEquals("0", read(table, check, x));
        assertEquals("0", read(table, check, y));
    }

    private List<String> rowsWithValue(Transaction tx, String value) throws IOException {
        SingleColumnValueFilter filter = new SingleColumnValueFilter(FAMILY, QUALIFIER, CompareOperator.EQUAL,
                Bytes.toBytes(value));
        filter.setFilterIfMissing(true);
        List<String> rows = new ArrayList<>();
        Scan scan = new Scan().withStartRow(Bytes.toBytes("z" + round)).withStopRow(Bytes.toBytes("z" + round + "~"))
                .setFilter(filter);
        try (ResultScanner scanner = table.getScanner(tx, scan)) {
            for (Result r : scanner) {
                rows.add(Bytes.toString(r.getRow()));
            }
        }
        return rows;
    }

    private static void assertAborted(AbortReason reason, Transaction tx) {
        TxnAbortedException e = assertThrows(TxnAbortedException.class, () -> client.commit(tx));
        assertEquals(reason, e.reason());
        assertTrue(e.getMessage().contains(reason.explanation()));
        assertEquals(Transaction.Status.ABORTED, tx.status());
    }
}
