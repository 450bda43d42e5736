package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.HBaseCommitTable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

import java.io.IOException;

/**
 * The commit table as compaction-time GC reaches it: one connection per region server with short retries and
 * time-outs, so an unreachable commit table costs a flush or compaction seconds (after which it keeps what it cannot
 * resolve), not the minutes of the region server's default client retries.
 */
final class GcCommitTable {
    static final int RETRIES = 2;
    static final int PAUSE_MS = 100;
    static final int RPC_TIMEOUT_MS = 5_000;
    static final int OPERATION_TIMEOUT_MS = 10_000;

    private static Connection connection;

    private GcCommitTable() {
    }

    static synchronized CommitTable of(RegionCoprocessorEnvironment env, String table) throws IOException {
        if (connection == null || connection.isClosed()) {
            Configuration conf = new Configuration(env.getConfiguration());
            conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, RETRIES);
            conf.setLong(HConstants.HBASE_CLIENT_PAUSE, PAUSE_MS);
            conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, RPC_TIMEOUT_MS);
            conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, OPERATION_TIMEOUT_MS);
            conf.setInt(HConstants.HBASE_CLIENT_META_OPERATION_TIMEOUT, OPERATION_TIMEOUT_MS);
            connection = env.createConnection(conf);
        }
        return new HBaseCommitTable(connection, TableName.valueOf(table));
    }
}
