package io.phoenixtxn.bench.index;

import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.schema.types.PLong;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What to look at when an index differs from its table: the fences taken, and for each differing key the writers'
 * transactions that touched it (operations, TM calls, outcome) and the raw cells (every version, delete markers and
 * commit cells included) of its data row and of its index rows.
 */
final class Diagnosis {
    private static final int MAX_KEYS = 5;

    private Diagnosis() {
    }

    static void dump(PrintStream out, EmbeddedStack stack, String table, String index, IndexVerifier.Mismatch m,
                     Writers writers, BuildObserver observer) {
        try {
            if (observer != null) {
                for (BuildObserver.Population p : observer.populations()) {
                    out.printf("fence %d on %s (index %s, population committed: %s)%n", p.fence, p.physicalTable,
                            p.indexTable(), p.committed);
                }
            }
            int shown = 0;
            for (long k : m.keys) {
                if (shown++ == MAX_KEYS) {
                    break;
                }
                out.printf("%n== key %d%n", k);
                if (writers != null) {
                    for (String line : writers.history(k)) {
                        out.println("  writer: " + line);
                    }
                }
                byte[] dataRow = PLong.INSTANCE.toBytes(k);
                out.printf("  data row %s:%n", Bytes.toStringBinary(dataRow));
                raw(out, stack, table, dataRow);
                for (String value : m.indexValues.getOrDefault(k, List.of())) {
                    byte[] indexRow = Bytes.add(value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8),
                            new byte[] {0}, dataRow);
                    out.printf("  index row %s:%n", Bytes.toStringBinary(indexRow));
                    raw(out, stack, index, indexRow);
                }
            }
        } catch (Exception e) {
            out.println("(diagnosis failed: " + e + ")");
        }
    }

    private static void raw(PrintStream out, EmbeddedStack stack, String table, byte[] row) throws IOException {
        try (Table t = stack.hbase().getConnection().getTable(TableName.valueOf(table));
             ResultScanner scanner = t.getScanner(new Scan().withStartRow(row).withStopRow(row, true).setRaw(true)
                     .readAllVersions())) {
            for (Result r : scanner) {
                for (Cell cell : r.rawCells()) {
                    byte[] value = CellUtil.cloneValue(cell);
                    out.printf("    %s:%s @%d %s %s%n", Bytes.toStringBinary(CellUtil.cloneFamily(cell)),
                            Bytes.toStringBinary(CellUtil.cloneQualifier(cell)), cell.getTimestamp(),
                            cell.getType(), Bytes.toStringBinary(value, 0, Math.min(value.length, 24)));
                }
            }
        }
    }
}
