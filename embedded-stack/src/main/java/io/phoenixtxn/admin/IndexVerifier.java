package io.phoenixtxn.admin;

import org.apache.phoenix.schema.PColumn;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.TableNotFoundException;
import org.apache.phoenix.util.IndexUtil;
import org.apache.phoenix.util.PhoenixRuntime;
import org.apache.phoenix.util.SchemaUtil;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The index-equals-table check, one implementation for operators ({@code phoenix-txn-admin verify-index}) and for
 * the online-index tests: every column the index holds (the table's key, indexed and covered columns) is read
 * through a full scan of the table ({@code NO_INDEX}) and through the index (hinted; the plan must really read the
 * index), the two are compared row by row, and the index's own row count must equal the table's (no stale index
 * rows). Run it on a connection with auto-commit off so both reads are one transaction, one snapshot. Holds the
 * table's rows (key and indexed values) in memory: for tables of up to some millions of rows.
 */
public final class IndexVerifier {
    static final int PROGRESS_ROWS = 50_000;
    private static final char SEP = '\u0001';
    private static final int SHOWN_DIFFERENCES = 5;

    /** What a verification found; {@link #equal()} when nothing differs. */
    public record Report(String table, String index, int columns, long tableRows, long indexRows,
                         long differences, List<String> firstDifferences) {
        public boolean equal() {
            return differences == 0;
        }

        /** One line when equal; otherwise a headline and the first differences, one per line. */
        public String describe() {
            if (equal()) {
                return index + " equals " + table + ": " + tableRows + " rows, " + columns
                        + " columns compared at one snapshot";
            }
            StringBuilder out = new StringBuilder(index + " DIFFERS from " + table + ": " + differences
                    + " difference(s) over " + tableRows + " table rows and " + indexRows + " index rows; first ones:");
            firstDifferences.forEach(d -> out.append("\n  ").append(d));
            return out.toString();
        }
    }

    private IndexVerifier() {
    }

    /**
     * Compares {@code index} with {@code table}; progress lines (every {@value #PROGRESS_ROWS} rows) go to
     * {@code progress}. Throws {@link AdminException} when the names are not a table and one of its indexes, or when
     * Phoenix does not plan the hinted query on the index (a disabled or building index cannot be verified).
     */
    public static Report verify(Connection c, String table, String index, PrintStream progress)
            throws SQLException, AdminException {
        PTable data = lookup(c, table, "table");
        PTable idx = lookup(c, index, "index");
        if (data.getIndexes().stream().noneMatch(i -> i.getName().equals(idx.getName()))) {
            throw new AdminException(index + " is not an index of " + table + "; its indexes are "
                    + data.getIndexes().stream().map(i -> i.getName().getString()).toList());
        }
        List<String> keyColumns = new ArrayList<>();
        for (PColumn pk : data.getPKColumns()) {
            if (!SchemaUtil.isPKColumn(pk) || pk.getName().getString().startsWith("_")) {
                continue; // salt byte
            }
            keyColumns.add(quoted("", pk.getName().getString()));
        }
        Set<String> columns = new LinkedHashSet<>(keyColumns);
        for (PColumn column : idx.getColumns()) {
            String name = column.getName().getString();
            if (!name.contains(IndexUtil.INDEX_COLUMN_NAME_SEP)) {
                continue; // salt byte, view index id
            }
            String dataColumn = IndexUtil.getDataColumnName(name);
            String family = IndexUtil.getDataColumnFamilyName(name);
            columns.add(dataColumn.contains("(") ? dataColumn : quoted(family, dataColumn));
        }
        String select = String.join(", ", columns);
        String fullTable = data.getName().getString();
        String hinted = "SELECT /*+ INDEX(" + fullTable + " " + idx.getTableName().getString() + ") */ " + select
                + " FROM " + fullTable;
        String plan = explain(c, hinted);
        if (!plan.contains(idx.getPhysicalName().getString())) {
            throw new AdminException("Phoenix does not plan the hinted query on " + index + " (its state is "
                    + idx.getIndexState() + "); a disabled or building index cannot be verified. Plan: "
                    + plan.replace('\n', ' '));
        }
        progress.println("verify-index: reading " + fullTable + " (" + columns.size() + " columns)...");
        Map<String, String> fromTable = new HashMap<>();
        long tableRows = read(c, "SELECT /*+ NO_INDEX */ " + select + " FROM " + fullTable, keyColumns.size(),
                fromTable, null, fullTable, progress);
        progress.println("verify-index: reading " + idx.getName().getString() + "...");
        Differences differences = new Differences();
        long indexRows = read(c, hinted, keyColumns.size(), fromTable, differences, idx.getName().getString(),
                progress);
        for (Map.Entry<String, String> missing : fromTable.entrySet()) {
            differences.add("missing from the index: " + printable(missing.getValue()));
        }
        long physicalRows = count(c, idx.getName().getString());
        if (physicalRows != tableRows) {
            differences.add("the index holds " + physicalRows + " rows, the table " + tableRows);
        }
        return new Report(table, index, columns.size(), tableRows, indexRows, differences.count,
                List.copyOf(differences.shown));
    }

    /** Reads rows; with {@code differences} null it fills {@code rows}, else it checks and removes them. */
    private static long read(Connection c, String sql, int keyColumns, Map<String, String> rows,
                             Differences differences, String what, PrintStream progress) throws SQLException {
        long n = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder key = new StringBuilder();
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    String value = rs.getString(i);
                    if (i <= keyColumns) {
                        key.append(value).append(SEP);
                    }
                    row.append(value).append(SEP);
                }
                if (differences == null) {
                    rows.put(key.toString(), row.toString());
                } else {
                    String expected = rows.remove(key.toString());
                    if (expected == null) {
                        differences.add("in the index only: " + printable(row.toString()));
                    } else if (!expected.equals(row.toString())) {
                        differences.add("table " + printable(expected) + " vs index " + printable(row.toString()));
                    }
                }
                if (++n % PROGRESS_ROWS == 0) {
                    progress.println("verify-index: " + n + " rows of " + what + " read");
                }
            }
        }
        return n;
    }

    private static PTable lookup(Connection c, String name, String what) throws SQLException, AdminException {
        try {
            // From the server, not this connection service's cache: the index may have been created through another one.
            return PhoenixRuntime.getTableNoCache(c, SchemaUtil.normalizeFullTableName(name));
        } catch (TableNotFoundException e) {
            throw new AdminException("no " + what + " named " + name + " in Phoenix's catalog (names are upper case"
                    + " unless quoted)", e);
        }
    }

    private static String quoted(String family, String column) {
        return (family.isEmpty() ? "" : "\"" + family + "\".") + "\"" + column + "\"";
    }

    /** The text of {@code EXPLAIN query}, one plan step per line. */
    public static String explain(Connection c, String query) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet plan = s.executeQuery("EXPLAIN " + query)) {
            while (plan.next()) {
                text.append(plan.getString(1)).append('\n');
            }
        }
        return text.toString();
    }

    /** {@code SELECT COUNT(*)} of a table or index. */
    public static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String printable(String row) {
        return "(" + row.substring(0, Math.max(0, row.length() - 1)).replace(SEP, '|') + ")";
    }

    /** Counts every difference, keeps the first few to show. */
    private static final class Differences {
        long count;
        final List<String> shown = new ArrayList<>();

        void add(String difference) {
            count++;
            if (shown.size() < SHOWN_DIFFERENCES) {
                shown.add(difference);
            }
        }
    }
}
