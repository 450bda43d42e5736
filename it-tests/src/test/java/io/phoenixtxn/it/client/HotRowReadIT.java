package io.phoenixtxn.it.client;

import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.it.SharedStack;
import io.phoenixtxn.snapshot.SnapshotCodec;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.client.ClientTables.FAMILY;
import static io.phoenixtxn.it.client.ClientTables.QUALIFIER;
import static io.phoenixtxn.it.client.ClientTables.commitValue;
import static io.phoenixtxn.it.client.ClientTables.read;
import static io.phoenixtxn.it.client.ClientTables.valueOf;
import static io.phoenixtxn.it.client.ClientTables.write;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Snapshot reads of rows with a long history on a real region (the filter's seeks as HBase's store scanner honours
 * them, in the memstore and after flush + major compaction): a row updated 300 times with every tenth update rolled
 * back after its tentative cells were written (delete markers in the history), rows deleted and re-inserted, and a
 * reader whose snapshot is in the middle of the history, read forward, reversed, and without the snapshot's time
 * range (a plain HBase scan carrying the snapshot attribute, so the commit cells and data above the snapshot reach
 * the filter, which seeks past them).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class HotRowReadIT {
    private static final int UPDATES = 300;
    private static TxnClient client;
    private static TableName name;
    /** A reader that began after update 150 and has not finished. */
    private static Transaction midReader;
    private static String lastValue;
    private static String midValue;

    @BeforeAll
    static void writeHistory() throws IOException {
        client = ClientTables.client();
        name = ClientTables.createTable("HOTROW", f -> f.setMaxVersions(Integer.MAX_VALUE));
        try (TransactionalTable table = client.table(name)) {
            commitValue(client, table, "a-cold", "cold-a");
            commitValue(client, table, "z-cold", "cold-z");
            for (int i = 0; i < UPDATES; i++) {
                Transaction tx = client.begin();
                write(table, tx, "hot", "hot-" + i);
                if (i % 10 == 9) {
                    client.abort(tx); // its tentative cell was written: the rollback leaves a delete marker
                } else {
                    client.commit(tx);
                    lastValue = "hot-" + i;
                }
                if (i == 150) {
                    midValue = lastValue;
                    midReader = client.begin();
                }
                // "gone" is inserted and deleted; "back" is deleted and inserted again, every 30 updates.
                if (i % 30 == 0) {
                    commitValue(client, table, "gone", "gone-" + i);
                    deleteRow(table, "gone");
                    deleteRow(table, "back");
                    commitValue(client, table, "back", "back-" + i);
                }
            }
        }
    }

    @AfterAll
    static void tearDown() {
        client.close();
    }

    @Test
    void readsInTheMemstoreAndAfterFlushAndMajorCompaction() throws Exception {
        checkEveryRead("memstore");
        SharedStack.get().hbase().flush(name);
        SharedStack.get().hbase().compact(name, true);
        checkEveryRead("after flush + major compaction");
    }

    private static void checkEveryRead(String where) throws IOException {
        Transaction now = client.begin();
        try (TransactionalTable table = client.table(name)) {
            assertEquals(lastValue, read(table, now, "hot"), where);
            assertEquals(midValue, read(table, midReader, "hot"), where + ": the reader in the middle");
            assertEquals(null, read(table, now, "gone"), where);
            assertEquals("back-" + 270, read(table, now, "back"), where);
            List<String> all = List.of("a-cold=cold-a", "back=back-270", "hot=" + lastValue, "z-cold=cold-z");
            assertEquals(all, rows(table, now, new Scan()), where + ": forward scan");
            assertEquals(reverse(all), rows(table, now, new Scan().setReversed(true)), where + ": reversed scan");
        }
        // The middle reader's snapshot without its time range: every newer version reaches the filter.
        // ("back" was deleted and inserted again right after the middle reader began: it sees the previous insert.)
        List<String> middle = List.of("a-cold=cold-a", "back=back-120", "hot=" + midValue, "z-cold=cold-z");
        assertEquals(middle, rawSnapshotScan(midReader, new Scan()), where + ": snapshot scan without time range");
        assertEquals(reverse(middle), rawSnapshotScan(midReader, new Scan().setReversed(true)),
                where + ": reversed snapshot scan without time range");
    }

    private static void deleteRow(TransactionalTable table, String row) throws IOException {
        Transaction tx = client.begin();
        table.delete(tx, new Delete(Bytes.toBytes(row)));
        client.commit(tx);
    }

    private static List<String> rows(TransactionalTable table, Transaction tx, Scan scan) throws IOException {
        List<String> rows = new ArrayList<>();
        try (ResultScanner scanner = table.getScanner(tx, scan)) {
            for (Result r : scanner) {
                rows.add(Bytes.toString(r.getRow()) + "=" + valueOf(r));
            }
        }
        return rows;
    }

    /** A plain HBase scan that carries the snapshot but not its time range (the observer accepts it). */
    private static List<String> rawSnapshotScan(Transaction tx, Scan scan) throws IOException {
        scan.setAttribute(SnapshotAttributes.SNAPSHOT, SnapshotCodec.encode(tx.snapshot()));
        scan.addColumn(FAMILY, QUALIFIER);
        List<String> rows = new ArrayList<>();
        try (Table table = ClientTables.hbase().getTable(name); ResultScanner scanner = table.getScanner(scan)) {
            for (Result r : scanner) {
                rows.add(Bytes.toString(r.getRow()) + "=" + valueOf(r));
            }
        }
        return rows;
    }

    private static List<String> reverse(List<String> rows) {
        List<String> reversed = new ArrayList<>(rows);
        java.util.Collections.reverse(reversed);
        return reversed;
    }
}
