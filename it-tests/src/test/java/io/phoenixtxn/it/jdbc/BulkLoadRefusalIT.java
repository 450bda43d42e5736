package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.LogCapture;
import io.phoenixtxn.it.SharedStack;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.phoenix.mapreduce.CsvBulkLoadTool;
import org.apache.phoenix.query.QueryServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Phoenix's own CsvBulkLoadTool on a transactional table (docs/compatibility.md, "Bulk load"): its HFiles carry no
 * commit information and cells at many versions, so the region servers refuse the load (BulkLoadAdmission) instead
 * of taking rows no transaction would ever see. The tool fails naming the cause; table and index keep exactly what
 * they held. The transactional load ({@code TransactionalCsvBulkLoadTool}) is TransactionalBulkLoadIT's.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BulkLoadRefusalIT {
    private static final AtomicInteger TABLES = new AtomicInteger();

    @Test
    void csvBulkLoadIntoATransactionalTableIsRefusedAndLoadsNothing() throws Exception {
        String table = "BULK_" + TABLES.incrementAndGet();
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
            s.execute("CREATE INDEX " + table + "_I ON " + table + " (V)"); // an index: Phoenix's tool loads it too
        }
        Configuration conf = new Configuration(SharedStack.get().configuration());
        conf.set(QueryServices.TRANSACTIONS_ENABLED, "true");
        Path input = new Path("/tmp/" + UUID.randomUUID() + "/input.csv");
        FileSystem fs = input.getFileSystem(conf);
        try (FSDataOutputStream out = fs.create(input)) {
            for (int k = 1; k <= 100; k++) {
                out.write((k + ",v" + k + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }

        // the data table first (Phoenix's tool loads one table at a time and stops at the first refusal), then the
        // index alone (--index-table), which the first run never reached
        assertRefused(runTool(conf, "--input", input.toString(), "--table", table,
                "--output", "/tmp/" + UUID.randomUUID()));
        assertRefused(runTool(conf, "--input", input.toString(), "--table", table, "--index-table", table + "_I",
                "--output", "/tmp/" + UUID.randomUUID()));
        assertEquals(0, rowsThroughPhoenix(table), "no row reached the table");
        assertEquals(0, SharedStack.rawRows(table), "no cell of the load landed in the data table");
        assertEquals(0, SharedStack.rawRows(table + "_I"), "nor in its index");
    }

    private record Run(boolean failed, boolean refused, String seen) {
    }

    private static Run runTool(Configuration conf, String... args) {
        try (LogCapture log = LogCapture.start()) {
            CsvBulkLoadTool tool = new CsvBulkLoadTool();
            tool.setConf(conf);
            Throwable thrown = null;
            int status = -1;
            try {
                status = tool.run(args);
            } catch (Exception e) {
                thrown = e;
            }
            String why = "Bulk load of HFiles into the transactional table";
            boolean refused = log.traceContains(why) || (thrown != null && stackOf(thrown).contains(why));
            return new Run(thrown != null || status != 0, refused, "status " + status + ", thrown "
                    + (thrown == null ? "nothing" : stackOf(thrown)) + ", logged " + log.traces());
        }
    }

    private static void assertRefused(Run run) {
        assertTrue(run.failed(), "the tool must fail: " + run.seen());
        assertTrue(run.refused(), "it failed on the region servers' refusal: " + run.seen());
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    private static long rowsThroughPhoenix(String table) throws SQLException {
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
