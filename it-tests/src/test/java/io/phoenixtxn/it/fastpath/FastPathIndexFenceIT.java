package io.phoenixtxn.it.fastpath;

import io.phoenixtxn.client.fastpath.FastPathAbortedException;
import io.phoenixtxn.client.fastpath.FastPathSwitch;
import io.phoenixtxn.client.fastpath.FastPathTable;
import io.phoenixtxn.index.IndexBuildHooks;
import io.phoenixtxn.it.SharedStack;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.phoenix.query.QueryConstants;
import org.apache.phoenix.schema.types.PLong;
import org.apache.phoenix.schema.types.PVarchar;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CREATE INDEX on a Phoenix table that has the fast path enabled (design.md sec. 4.4): fast-path writes maintain no
 * index, so the index fence turns the fast path off before it is drawn. A fast-path client that opened the table
 * before the DDL (it knows nothing of the index) writes right after the fence (hook) and must be refused (FENCED);
 * afterwards the index equals the table.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FastPathIndexFenceIT {
    private static FastPathFixture fx;

    @BeforeAll
    static void open() throws Exception {
        fx = FastPathFixture.open();
    }

    @AfterAll
    static void close() {
        fx.close();
    }

    @AfterEach
    void restoreHooks() {
        IndexBuildHooks.install(IndexBuildHooks.NONE);
    }

    @Test
    void aFastPathWriteRoutedOnTheOldMetadataAfterTheIndexFenceIsRefusedAndTheIndexEqualsTheTable()
            throws Exception {
        String table = SharedStack.uniqueTable("FP_FENCE");
        String index = table + "_IDX";
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true,"
                    + " COLUMN_ENCODED_BYTES=0");
            for (int k = 0; k < 20; k++) {
                s.executeUpdate("UPSERT INTO " + table + " VALUES (" + k + ", 'v" + k + "')");
            }
            c.commit();
        }
        TableName physical = TableName.valueOf(table);
        try (Admin admin = FastPathFixture.hbase().getAdmin()) {
            FastPathSwitch.enable(admin, physical);
        }
        AtomicReference<Object> afterFence = new AtomicReference<>();
        try (FastPathTable fp = fx.fastPathTable(physical)) {
            fp.bwc(phoenixRow(100, "fast before")); // the table serves the fast path before the DDL
            IndexBuildHooks.install(new IndexBuildHooks() {
                @Override
                public void afterFence(String physicalTable, long fence) {
                    if (physicalTable.equals(table)) {
                        try {
                            afterFence.set("applied at " + fp.bwc(phoenixRow(101, "fast after fence")));
                        } catch (Exception e) {
                            afterFence.set(e);
                        }
                    }
                }
            });
            try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE INDEX " + index + " ON " + table + " (V)");
            }
            IndexBuildHooks.install(IndexBuildHooks.NONE);

            assertNotNull(afterFence.get(), "the hook ran after the fence");
            FastPathAbortedException refused = assertInstanceOf(FastPathAbortedException.class, afterFence.get(),
                    "a fast-path write after the index fence: " + afterFence.get());
            assertSame(FastPathAbortedException.Reason.FENCED, refused.reason());
            FastPathAbortedException later = assertThrows(FastPathAbortedException.class,
                    () -> fp.bwc(phoenixRow(102, "fast with the index")));
            assertSame(FastPathAbortedException.Reason.FENCED, later.reason(), "the table has an index now");
        }
        try (Connection c = SharedStack.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("UPSERT INTO " + table + " VALUES (101, 'regular after fence')");
            c.commit();
            Map<Long, String> fromTable = rows(c, "SELECT /*+ NO_INDEX */ K, V FROM " + table);
            Map<Long, String> fromIndex = rows(c, "SELECT /*+ INDEX(" + table + " " + index + ") */ K, V FROM "
                    + table + " WHERE V IS NOT NULL");
            assertEquals("fast before", fromTable.get(100L), "the fast-path write before the DDL is a row");
            assertEquals(22, fromTable.size(), "20 regular rows, one fast-path row, one regular after the fence");
            assertEquals(fromTable, fromIndex, "the index equals the table");
        }
    }

    /** A Phoenix row (K BIGINT key, V VARCHAR, not column-encoded) as an HBase put: V and the empty column. */
    private static Put phoenixRow(long key, String v) {
        return new Put(PLong.INSTANCE.toBytes(key))
                .addColumn(QueryConstants.DEFAULT_COLUMN_FAMILY_BYTES, PVarchar.INSTANCE.toBytes("V"),
                        PVarchar.INSTANCE.toBytes(v))
                .addColumn(QueryConstants.DEFAULT_COLUMN_FAMILY_BYTES, QueryConstants.EMPTY_COLUMN_BYTES,
                        QueryConstants.EMPTY_COLUMN_VALUE_BYTES);
    }

    private static Map<Long, String> rows(Connection c, String query) throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(query)) {
            while (r.next()) {
                rows.put(r.getLong(1), r.getString(2));
            }
        }
        assertTrue(query.contains("NO_INDEX") || !rows.isEmpty(), query);
        return rows;
    }
}
