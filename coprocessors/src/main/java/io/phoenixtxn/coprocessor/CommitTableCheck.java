package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.SnapshotAttributes;
import io.phoenixtxn.client.TxnClientConfig;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.OperationWithAttributes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Refuses operations of a client that commits to another commit table than the one this region server resolves
 * pending versions against ({@link SnapshotAttributes#COMMIT_TABLE}). Served anyway, such a client's commits would
 * read as not committed until their commit cells land (a snapshot-isolation violation for readers that began after
 * the commit), and readers' force-aborts of its writers would land in a table it never looks at. Invariant: every
 * snapshot read and tentative write this region serves names this region server's commit table, or names none
 * (older clients, Apache Omid's, region-server-side writers), which is not checked.
 */
final class CommitTableCheck {
    private final TableName serverTable;
    private final byte[] serverTableBytes;

    CommitTableCheck(String serverTable) {
        this.serverTable = TableName.valueOf(serverTable);
        this.serverTableBytes = serverTable.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param what the operation, for the message ("get", "scan", "put")
     * @throws DoNotRetryIOException when the client names another commit table
     */
    void verify(OperationWithAttributes op, String what, TableName table) throws DoNotRetryIOException {
        byte[] client = op.getAttribute(SnapshotAttributes.COMMIT_TABLE);
        if (client == null || Arrays.equals(client, serverTableBytes)) {
            return;
        }
        String clientTable = new String(client, StandardCharsets.UTF_8);
        try {
            if (TableName.valueOf(clientTable).equals(serverTable)) {
                return; // the same table spelt differently ("default:T" and "T")
            }
        } catch (IllegalArgumentException notATableName) {
            // not a table name at all: refused below, naming it
        }
        throw new DoNotRetryIOException("Refused a " + what + " on " + table + ": the client commits to commit table '"
                + clientTable + "' but this region server resolves pending writes against '" + serverTable
                .getNameAsString() + "', so the client's commits would read as not committed here and readers would"
                + " force-abort its writers in the wrong table. Set " + TxnClientConfig.COMMIT_TABLE + " (or Omid's "
                + TxnClientConfig.OMID_COMMIT_TABLE + ") to one table in the hbase-site.xml of every client and"
                + " region server.");
    }
}
