package io.phoenixtxn.it.client;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.client.ClientTables.FAMILY;
import static io.phoenixtxn.it.client.ClientTables.QUALIFIER;
import static io.phoenixtxn.it.client.ClientTables.commitValue;
import static io.phoenixtxn.it.client.ClientTables.valueOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Time ranges on transactional reads: versions are write pointers (transaction start timestamps), so a range that
 * would narrow the snapshot cannot be honoured and is refused, never silently replaced; a range that contains the
 * snapshot's whole range changes nothing and is accepted.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class UserTimeRangeIT {
    private static final byte[] ROW = Bytes.toBytes("r");
    private static TxnClient client;
    private static TableName name;
    private static Transaction first;
    private TransactionalTable table;
    private Transaction reader;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientTables.client();
        name = ClientTables.createTable("TIMERANGE", f -> f.setMaxVersions(Integer.MAX_VALUE));
        try (TransactionalTable t = client.table(name)) {
            first = commitValue(client, t, "r", "v0");
            commitValue(client, t, "r", "v1");
        }
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @BeforeEach
    void open() throws IOException {
        table = client.table(name);
        reader = client.begin();
    }

    @AfterEach
    void close() throws IOException {
        table.close();
    }

    @Test
    void aGetWhoseRangeWouldNarrowTheSnapshotIsRefused() throws IOException {
        Get below = new Get(ROW).addColumn(FAMILY, QUALIFIER).setTimeRange(0, first.commitTs() + 1);
        assertRefused(() -> table.get(reader, below));
        assertRefused(() -> table.get(reader, List.of(below)));
        assertRefused(() -> table.batch(reader, List.<Row>of(below), new Object[1]));
        assertRefused(() -> table.get(reader, new Get(ROW).setTimestamp(first.txId())));
        assertRefused(() -> table.get(reader, new Get(ROW).setColumnFamilyTimeRange(FAMILY, 0,
                first.commitTs() + 1)));
    }

    @Test
    void aScanWhoseRangeWouldNarrowTheSnapshotIsRefused() {
        assertRefused(() -> table.getScanner(reader, new Scan().setTimeRange(first.txId(), Long.MAX_VALUE)));
        assertRefused(() -> table.getScanner(reader, new Scan().setTimeRange(0, first.commitTs() + 1)));
        assertRefused(() -> table.getScanner(reader, new Scan().setColumnFamilyTimeRange(FAMILY, 0,
                first.commitTs() + 1)));
    }

    @Test
    void aRangeHoldingTheWholeSnapshotReadsTheSnapshot() throws IOException {
        assertEquals("v1", valueOf(table.get(reader, new Get(ROW).addColumn(FAMILY, QUALIFIER))));
        assertEquals("v1", valueOf(table.get(reader, new Get(ROW).addColumn(FAMILY, QUALIFIER)
                .setTimeRange(0, Long.MAX_VALUE))));
        assertEquals("v1", valueOf(table.get(reader, new Get(ROW).addColumn(FAMILY, QUALIFIER)
                .setTimeRange(0, reader.snapshot().maxVersionExclusive()))));
        try (ResultScanner scanner = table.getScanner(reader, new Scan().setTimeRange(0, Long.MAX_VALUE)
                .setColumnFamilyTimeRange(FAMILY, 0, Long.MAX_VALUE))) {
            Result r = scanner.next();
            assertEquals("v1", valueOf(r));
        }
    }

    private static void assertRefused(Executable read) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, read);
        String message = refused.getMessage();
        assertTrue(message.contains("write pointer"), "says why: " + message);
        assertTrue(message.contains("remove the time range"), "says what to do: " + message);
    }
}
