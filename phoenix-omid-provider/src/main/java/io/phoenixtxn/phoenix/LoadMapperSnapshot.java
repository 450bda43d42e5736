package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.snapshot.Snapshot;
import org.apache.phoenix.jdbc.PhoenixConnection;

import java.util.Arrays;
import java.util.Set;

/**
 * The transactions of a transactional bulk load's map tasks ({@code io.phoenixtxn.bulkload.TransactionalCsvBulkLoadTool}).
 * Phoenix's bulk-load mapper runs, for every CSV line, an UPSERT on a connection built from the job's configuration
 * (every job setting becomes a connection property), reads the row's prior state when the table has a mutable
 * index, takes the cells Phoenix would write, and rolls back: it never commits. Its transactions are read-only views
 * of the load's own transaction: they read at the load's snapshot (the state the load replaces; the load's hold keeps
 * every other writer of the table out, so no later state exists), cost no TM round trip per line, and their rollback
 * ends nothing at the TM (a view cannot commit or abort the load it belongs to). The index cells Phoenix computes
 * carry the load's version, which the load writes anyway. A table the tool found without a row at that snapshot is
 * not read at all: the answer is known (Phoenix's own tool refuses a non-empty table with a global index unless told
 * to corrupt the index, so this is the common case of an indexed load).
 */
public final class LoadMapperSnapshot {
    /** Job setting (and so mapper connection property): the load's start timestamp, the version of every cell. */
    public static final String VERSION = "phoenix.txn.bulkload.version";
    /** Job setting: comma-separated physical names of loaded tables that held no row at the load's snapshot. */
    public static final String EMPTY_TABLES = "phoenix.txn.bulkload.empty.tables";

    private final long version;
    private final Set<String> emptyTables;

    private LoadMapperSnapshot(long version, Set<String> emptyTables) {
        this.version = version;
        this.emptyTables = emptyTables;
    }

    /** The load {@code connection} belongs to (a mapper's connection carries the job's settings), or null. */
    static LoadMapperSnapshot of(PhoenixConnection connection) {
        if (connection == null) {
            return null;
        }
        String version = connection.getClientInfo(VERSION);
        if (version == null || version.isEmpty()) {
            return null;
        }
        long v;
        try {
            v = Long.parseLong(version.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(VERSION + " must be a bulk load's start timestamp, got '" + version
                    + "'; it is set by TransactionalCsvBulkLoadTool on its job and nowhere else", e);
        }
        if (v <= 0) {
            return null; // unset by the tool for a non-transactional load
        }
        String empty = connection.getClientInfo(EMPTY_TABLES);
        return new LoadMapperSnapshot(v, empty == null || empty.isBlank() ? Set.of()
                : Set.copyOf(Arrays.asList(empty.trim().split("\\s*,\\s*"))));
    }

    /** A read-only view at the load's snapshot: cannot commit, and its rollback ends nothing at the TM. */
    Transaction view() {
        return Transaction.readOnlyView(Snapshot.begin(version));
    }

    /** Physical names of the tables without a row at the load's snapshot. */
    Set<String> emptyTables() {
        return emptyTables;
    }
}
