package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathSwitch;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.transaction.TransactionFactory;
import org.apache.phoenix.util.PhoenixRuntime;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the fast path of a Phoenix table on, the way Phoenix tables must (design.md sec. 4.11, findings F8/F9):
 * fast-path writes maintain no index, so a table with an index of any kind or state (a global index above all) is
 * refused with an error naming the index. {@link FastPathSwitch#enable} is the HBase-level switch; it cannot see
 * Phoenix's metadata.
 *
 * <p>Against a concurrent CREATE INDEX (which writes its catalog row, then turns the switch off, then draws its fence):
 * the metadata is read again after the switch is on. If it still has no index, any CREATE INDEX wrote its catalog
 * row after that read, so it turns the switch off after this enable, before its fence: sound. If an index appeared
 * meanwhile, the switch is turned off again and the error says the index may lack rows written in that window.
 *
 * <p>Each metadata read runs on a connection of its own (same connection service, URL and properties), not the
 * caller's, and is rolled back when read (finding F-C): Phoenix resolves a transactional table's metadata at the start
 * of the transaction running on the connection, so on the caller's connection an open transaction that began before
 * another client's CREATE INDEX would hide that index from both reads (and the re-read would repeat the first one's
 * timestamp), and on an auto-commit connection the read would leave a lazily begun transaction running that nothing
 * ends. A fresh connection, not in auto-commit mode, begins its transaction at the TM as it reads: each read is at a
 * timestamp drawn after it was asked for, and the caller's connection and its transaction are left untouched.
 */
public final class PhoenixFastPath {
    private PhoenixFastPath() {
    }

    /**
     * Enables the fast path of {@code tableName} (as Phoenix names it, e.g. "S.T") through {@code jdbc}'s connection
     * service. Refused unless it is a transactional data table of this provider without any index, as its metadata
     * is now: it is read on a connection of its own, whatever transaction runs on {@code jdbc}, which is neither used
     * nor changed.
     */
    public static void enable(Connection jdbc, String tableName) throws SQLException {
        PhoenixConnection phoenix = jdbc.unwrap(PhoenixConnection.class);
        PTable before = checkedTable(readNow(phoenix, tableName), tableName);
        TableName physical = FastPathRoute.physicalName(before);
        try (Admin admin = phoenix.getQueryServices().getAdmin()) {
            FastPathSwitch.enable(admin, physical);
            List<String> appeared = indexNames(readNow(phoenix, tableName));
            if (!appeared.isEmpty()) {
                FastPathSwitch.disable(admin, physical);
                throw SqlErrors.failed("The fast path of " + tableName + " was not enabled: index " + appeared
                        + " was created while it was being enabled; it may lack rows written on the fast path"
                        + " meanwhile: rebuild it (ALTER INDEX ... REBUILD)", null);
            }
        } catch (IOException e) {
            throw SqlErrors.failed("Could not enable the fast path of " + tableName + ": " + e.getMessage(), e);
        }
    }

    /**
     * The table's metadata as the catalog has it now: read from the server on a new connection of {@code caller}'s
     * service, URL and properties, not in auto-commit mode (its transaction begins at the TM as it reads), which is
     * rolled back and closed.
     */
    private static PTable readNow(PhoenixConnection caller, String tableName) throws SQLException {
        try (PhoenixConnection fresh = caller.getQueryServices().connect(caller.getURL(), caller.getClientInfo())) {
            fresh.setAutoCommit(false);
            try {
                return PhoenixRuntime.getTableNoCache(fresh, tableName);
            } finally {
                fresh.rollback();
            }
        }
    }

    private static PTable checkedTable(PTable table, String tableName) throws SQLException {
        if (table.getType() != PTableType.TABLE || !table.isTransactional()
                || table.getTransactionProvider() != TransactionFactory.Provider.OMID) {
            throw SqlErrors.failed("The fast path of " + tableName + " cannot be enabled: it is not a transactional"
                    + " data table of this provider (type " + table.getType() + ", provider "
                    + table.getTransactionProvider() + ")", null);
        }
        List<String> indexes = indexNames(table);
        if (!indexes.isEmpty()) {
            throw SqlErrors.failed("The fast path of " + tableName + " cannot be enabled: it has index " + indexes
                    + ", and fast-path writes maintain no index; drop the index or keep the fast path off", null);
        }
        return table;
    }

    private static List<String> indexNames(PTable table) {
        List<String> names = new ArrayList<>();
        for (PTable index : table.getIndexes()) {
            names.add(index.getName().getString() + " (" + index.getIndexType() + ", " + index.getIndexState() + ")");
        }
        return names;
    }
}
