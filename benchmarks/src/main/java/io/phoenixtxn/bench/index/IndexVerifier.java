package io.phoenixtxn.bench.index;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Cheap correctness check of a built index against its table, run once writers have stopped: row count, SUM(N)
 * and SUM(K) of the index table equal those of a full scan of the data table (NO_INDEX), and a sample of random
 * keys: the row read by primary key is found by a query on the indexed column that the planner answers from the
 * index, and every row that query returns matches the table. Any difference throws.
 */
final class IndexVerifier {
    private IndexVerifier() {
    }

    /** An index that differs from its table; {@link #keys} are the data-table keys of the differing rows. */
    static final class Mismatch extends IllegalStateException {
        final List<Long> keys;
        /** For each key, the indexed value(s) the index holds for it (to find the index rows). */
        final Map<Long, List<String>> indexValues;

        Mismatch(String message, List<Long> keys, Map<Long, List<String>> indexValues) {
            super(message);
            this.keys = keys;
            this.indexValues = indexValues;
        }
    }

    static String verify(BenchCluster stack, String table, String index, String column, long keys, int samples,
                         long seed) throws SQLException {
        List<String> problems = new ArrayList<>();
        long tableRows;
        try (Connection c = stack.connect()) {
            long[] fromTable = aggregates(c, "SELECT /*+ NO_INDEX */ COUNT(*), SUM(N), SUM(K) FROM " + table);
            long[] fromIndex = aggregates(c, "SELECT COUNT(*), SUM(\"0:N\"), SUM(\":K\") FROM " + index);
            tableRows = fromTable[0];
            if (fromTable[0] != fromIndex[0] || fromTable[1] != fromIndex[1] || fromTable[2] != fromIndex[2]) {
                problems.add(String.format("count/SUM(N)/SUM(K): table %d/%d/%d, index %d/%d/%d", fromTable[0],
                        fromTable[1], fromTable[2], fromIndex[0], fromIndex[1], fromIndex[2]));
            }
            String lookup = "SELECT /*+ INDEX(" + table + " " + index + ") */ K, N FROM " + table + " WHERE "
                    + column + " = ?";
            String plan = explain(c, lookup.replace("?", "'x'"));
            if (!plan.contains(index)) {
                throw new IllegalStateException("The lookup on " + column + " does not read " + index + ":\n" + plan);
            }
            SplittableRandom random = new SplittableRandom(seed);
            int absent = 0;
            int checked = 0;
            try (PreparedStatement byKey = c.prepareStatement("SELECT V, S, N FROM " + table + " WHERE K = ?");
                 PreparedStatement byColumn = c.prepareStatement(lookup)) {
                for (int i = 0; i < samples; i++) {
                    long k = random.nextLong(keys);
                    Object[] row = row(byKey, k);
                    if (row == null) {
                        absent++;
                        continue;
                    }
                    String value = (String) (column.equals("V") ? row[0] : row[1]);
                    if (value == null) {
                        absent++;
                        continue;
                    }
                    checked++;
                    byColumn.setString(1, value);
                    Map<Long, Long> hits = new HashMap<>();
                    try (ResultSet rs = byColumn.executeQuery()) {
                        while (rs.next()) {
                            hits.put(rs.getLong(1), rs.getObject(2) == null ? null : rs.getLong(2));
                        }
                    }
                    if (!hits.containsKey(k) || !Objects.equals(hits.get(k), row[2])) {
                        problems.add("key " + k + " (" + column + "=" + value + ", N=" + row[2] + ") via index: "
                                + hits);
                    }
                    for (Map.Entry<Long, Long> hit : hits.entrySet()) {
                        if (hit.getKey() == k) {
                            continue;
                        }
                        Object[] other = row(byKey, hit.getKey());
                        Object otherValue = other == null ? null : column.equals("V") ? other[0] : other[1];
                        if (other == null || !value.equals(otherValue) || !Objects.equals(other[2], hit.getValue())) {
                            problems.add("index row " + column + "=" + value + " -> key " + hit.getKey() + ", N="
                                    + hit.getValue() + " is stale; table has " + (other == null ? "no row"
                                    : column + "=" + otherValue + ", N=" + other[2]));
                        }
                    }
                    if (problems.size() > 20) {
                        break;
                    }
                }
            }
            c.commit();
            if (!problems.isEmpty()) {
                List<Long> keysOff = new ArrayList<>();
                Map<Long, List<String>> indexValues = new HashMap<>();
                problems.addAll(diff(c, table, index, column, keysOff, indexValues));
                throw new Mismatch("Index " + index + " differs from " + table + ":\n  "
                        + String.join("\n  ", problems), keysOff, indexValues);
            }
            return String.format("%,d rows = %,d index rows, SUM(N) and SUM(K) equal; %d sampled keys looked up"
                    + " through the index (%d sampled keys deleted or without %s), all equal", tableRows,
                    fromIndex[0], checked, absent, column);
        }
    }

    /** Full comparison (only after a cheap check failed): the rows that differ, at most 20. */
    private static List<String> diff(Connection c, String table, String index, String column, List<Long> keysOff,
                                     Map<Long, List<String>> indexValues) throws SQLException {
        Map<Long, String> fromTable = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT /*+ NO_INDEX */ K, " + column + ", N FROM " + table)) {
            while (rs.next()) {
                fromTable.put(rs.getLong(1), rs.getString(2) + "|" + rs.getObject(3));
            }
        }
        List<String> found = new ArrayList<>();
        Map<Long, String> fromIndex = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT \":K\", \"0:" + column + "\", \"0:N\" FROM " + index)) {
            while (rs.next()) {
                long k = rs.getLong(1);
                String row = rs.getString(2) + "|" + rs.getObject(3);
                indexValues.computeIfAbsent(k, x -> new ArrayList<>()).add(rs.getString(2));
                String previous = fromIndex.put(k, row);
                if (previous != null && found.size() < 20) {
                    found.add("key " + k + " has two index rows: " + previous + " and " + row + "; table: "
                            + fromTable.get(k));
                    keysOff.add(k);
                }
            }
        }
        for (Map.Entry<Long, String> e : fromIndex.entrySet()) {
            String expected = fromTable.get(e.getKey());
            if (!e.getValue().equals(expected) && found.size() < 20 && !keysOff.contains(e.getKey())) {
                found.add("key " + e.getKey() + ": index has " + column + "|N = " + e.getValue() + ", table has "
                        + (expected == null ? "no row" : expected));
                keysOff.add(e.getKey());
            }
        }
        for (Map.Entry<Long, String> e : fromTable.entrySet()) {
            if (!fromIndex.containsKey(e.getKey()) && found.size() < 20) {
                found.add("key " + e.getKey() + ": table has " + e.getValue() + ", index has no row");
                keysOff.add(e.getKey());
            }
        }
        c.commit();
        return found;
    }

    private static long[] aggregates(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
        }
    }

    private static Object[] row(PreparedStatement byKey, long k) throws SQLException {
        byKey.setLong(1, k);
        try (ResultSet rs = byKey.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            return new Object[] {rs.getString(1), rs.getString(2), rs.getObject(3) == null ? null : rs.getLong(3)};
        }
    }

    private static String explain(Connection c, String sql) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                text.append(rs.getString(1)).append('\n');
            }
        }
        return text.toString();
    }
}
