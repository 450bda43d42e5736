package io.phoenixtxn.it.client;

import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.client.ClientTables.commitValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Reversed scans through the snapshot filter: filters whose answer depends on the scan direction (PrefixFilter
 * stops after its prefix going forward, before it going backward) must be told the direction.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ReversedScanIT {
    private static TxnClient client;
    private static TableName name;

    @BeforeAll
    static void setUp() throws IOException {
        client = ClientTables.client();
        name = ClientTables.createTable("REVERSED", f -> f.setMaxVersions(Integer.MAX_VALUE));
        try (TransactionalTable table = client.table(name)) {
            for (String row : List.of("a1", "a2", "b1")) {
                commitValue(client, table, row, "x-" + row);
            }
        }
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @Test
    void reversedScanWithAPrefixFilterReturnsThePrefixRowsBackwards() throws IOException {
        assertEquals(List.of("a2", "a1"), rows(new Scan().setReversed(true).setFilter(new PrefixFilter(
                Bytes.toBytes("a")))));
    }

    @Test
    void forwardScanWithTheSameFilterIsUnchanged() throws IOException {
        assertEquals(List.of("a1", "a2"), rows(new Scan().setFilter(new PrefixFilter(Bytes.toBytes("a")))));
    }

    @Test
    void reversedScanWithoutAFilterReturnsEveryRowBackwards() throws IOException {
        assertEquals(List.of("b1", "a2", "a1"), rows(new Scan().setReversed(true)));
    }

    private static List<String> rows(Scan scan) throws IOException {
        List<String> rows = new ArrayList<>();
        try (TransactionalTable table = client.table(name);
             ResultScanner scanner = table.getScanner(client.begin(), scan)) {
            for (Result r : scanner) {
                rows.add(Bytes.toString(r.getRow()));
            }
        }
        return rows;
    }
}
