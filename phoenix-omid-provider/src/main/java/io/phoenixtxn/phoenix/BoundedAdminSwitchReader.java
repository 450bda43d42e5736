package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.fastpath.FastPathSwitch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

import java.io.Closeable;
import java.io.IOException;

/**
 * Reads fast-path switches through an Admin of its own HBase connection whose retries and timeouts are short
 * ({@code phoenix.txn.fastpath.switch.read.timeout.ms}): the client's main connection keeps HBase's full retry budget
 * for data, but a switch read serves routing only, and a master outage must not hold statements for that budget
 * (design.md sec. 4.11). The connection is opened on the first read, so a client that never routes opens none.
 */
final class BoundedAdminSwitchReader implements FastPathSwitchReader, Closeable {
    private final Configuration conf;
    private Connection connection;
    private boolean closed;

    BoundedAdminSwitchReader(Configuration base, long timeoutMs) {
        Configuration c = new Configuration(base);
        c.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 1);
        c.setLong(HConstants.HBASE_CLIENT_PAUSE, Math.max(1, Math.min(100, timeoutMs / 10)));
        c.setLong(HConstants.HBASE_RPC_TIMEOUT_KEY, timeoutMs);
        c.setLong(HConstants.HBASE_RPC_READ_TIMEOUT_KEY, timeoutMs);
        c.setLong(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, timeoutMs);
        c.setLong(HConstants.HBASE_CLIENT_META_OPERATION_TIMEOUT, timeoutMs);
        c.setInt("zookeeper.recovery.retry", 0);
        this.conf = c;
    }

    @Override
    public boolean read(TableName table) throws IOException {
        try (Admin admin = connection().getAdmin()) {
            return FastPathSwitch.isEnabled(admin.getDescriptor(table));
        }
    }

    private synchronized Connection connection() throws IOException {
        if (closed) {
            throw new IOException("The fast-path switch reader is closed");
        }
        if (connection == null) {
            connection = ConnectionFactory.createConnection(conf);
        }
        return connection;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
