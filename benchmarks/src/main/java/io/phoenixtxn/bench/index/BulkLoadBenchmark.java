package io.phoenixtxn.bench.index;

import io.phoenixtxn.bulkload.TransactionalCsvBulkLoadTool;
import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.Tool;
import org.apache.phoenix.mapreduce.CsvBulkLoadTool;
import org.apache.phoenix.query.QueryServices;

import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

/**
 * CSV bulk load of the same rows into a transactional table with an index (our TransactionalCsvBulkLoadTool: one
 * transaction) and into a non-transactional copy with the same index (Phoenix's CsvBulkLoadTool), on one embedded
 * stack, MapReduce on the local runner; times both and their ratio, and checks every row and index row arrived.
 * Usage: {@code bin/bench-bulkload [--rows N]} (default 200,000). Prints markdown on stdout.
 */
public final class BulkLoadBenchmark {
    private final PrintStream out = System.out;
    private long rows = 200_000;

    private BulkLoadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        BulkLoadBenchmark bench = new BulkLoadBenchmark();
        for (int i = 0; i < args.length; i++) {
            if ("--rows".equals(args[i]) && i + 1 < args.length) {
                bench.rows = Long.parseLong(args[++i]);
            } else {
                throw new IllegalArgumentException("Unknown argument " + args[i] + "; usage: [--rows N]");
            }
        }
        bench.run();
        System.exit(0);
    }

    private void run() throws Exception {
        out.printf("## Bulk load, %,d rows (K BIGINT PK, V VARCHAR, W BIGINT; index on V INCLUDE W)%n%n", rows);
        out.printf("Machine: %d cores, load average at start %s%n%n", Runtime.getRuntime().availableProcessors(),
                loadAverage());
        try (EmbeddedStack stack = EmbeddedStack.start(Map.of())) {
            Configuration conf = new Configuration(stack.configuration());
            conf.set(QueryServices.TRANSACTIONS_ENABLED, "true");
            Path input = writeCsv(conf);
            try (Connection c = stack.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE BULK_PLAIN (K BIGINT PRIMARY KEY, V VARCHAR, W BIGINT)");
                s.execute("CREATE INDEX BULK_PLAIN_I ON BULK_PLAIN (V) INCLUDE (W)");
                s.execute("CREATE TABLE BULK_TX (K BIGINT PRIMARY KEY, V VARCHAR, W BIGINT) TRANSACTIONAL=true");
                s.execute("CREATE INDEX BULK_TX_I ON BULK_TX (V) INCLUDE (W)");
                c.commit();
            }
            double plain = load(new CsvBulkLoadTool(), conf, input, "BULK_PLAIN");
            double tx = load(new TransactionalCsvBulkLoadTool(), conf, input, "BULK_TX");
            out.println("| table | tool | seconds | rows/s |");
            out.println("|---|---|---:|---:|");
            out.printf("| non-transactional | Phoenix's CsvBulkLoadTool | %.1f | %,.0f |%n", plain, rows / plain);
            out.printf("| transactional | TransactionalCsvBulkLoadTool (one transaction, commit cells included) |"
                    + " %.1f | %,.0f |%n", tx, rows / tx);
            out.printf("%nRatio transactional / non-transactional: **%.2fx**. Load average at end: %s%n", tx / plain,
                    loadAverage());
            try (Connection c = stack.connect(); Statement s = c.createStatement()) {
                for (String table : new String[] {"BULK_PLAIN", "BULK_TX"}) {
                    check(s, "SELECT /*+ NO_INDEX */ COUNT(*) FROM " + table, table);
                    check(s, "SELECT COUNT(*) FROM " + table + "_I", table + "_I");
                }
            }
            out.println("Every table and index holds every row.");
        }
    }

    private double load(Tool tool, Configuration conf, Path input, String table) throws Exception {
        tool.setConf(new Configuration(conf));
        long started = System.nanoTime();
        int status = tool.run(new String[] {"--input", input.toString(), "--table", table,
            "--output", "/tmp/" + UUID.randomUUID()});
        double seconds = (System.nanoTime() - started) / 1e9;
        if (status != 0) {
            throw new IllegalStateException(tool.getClass().getSimpleName() + " failed on " + table + ": " + status);
        }
        System.err.printf("%s loaded %s in %.1f s%n", tool.getClass().getSimpleName(), table, seconds);
        return seconds;
    }

    private void check(Statement s, String sql, String what) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            if (rs.getLong(1) != rows) {
                throw new IllegalStateException(what + " holds " + rs.getLong(1) + " rows, expected " + rows);
            }
        }
    }

    private Path writeCsv(Configuration conf) throws Exception {
        Path input = new Path("/tmp/" + UUID.randomUUID() + "/input.csv");
        FileSystem fs = input.getFileSystem(conf);
        try (FSDataOutputStream raw = fs.create(input); BufferedOutputStream buffered = new BufferedOutputStream(raw)) {
            for (long k = 1; k <= rows; k++) {
                buffered.write((k + ",v" + k + "," + (2 * k) + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return input;
    }

    private static String loadAverage() {
        return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
