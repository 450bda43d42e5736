package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.TxnClient;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.tm.discovery.TmHandle;
import io.phoenixtxn.tm.discovery.TmLocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.phoenix.transaction.PhoenixTransactionClient;

import java.io.IOException;

/**
 * What Phoenix caches per connection service for our provider: an HBase connection for the commit table and
 * post-commit, and a {@link TxnClient} that asks the TM supplier on every call. Which TM that is, is
 * {@link TmLocator}'s decision ({@code phoenix.txn.tm.mode}); a locator failure fails the connection service with
 * its message.
 */
final class PhoenixTxnClient implements PhoenixTransactionClient {
    private final TmHandle tm;
    private final Connection hbase;
    private final TxnClient client;

    PhoenixTxnClient(Configuration conf) throws IOException {
        this.tm = TmLocator.locate(conf::get);
        try {
            this.hbase = ConnectionFactory.createConnection(conf);
        } catch (IOException | RuntimeException e) {
            tm.close();
            throw e;
        }
        try {
            this.client = new TxnClient(hbase, tm, TxnClientConfig.from(conf::get));
        } catch (IOException | RuntimeException e) {
            hbase.close();
            tm.close();
            throw e;
        }
    }

    TxnClient txnClient() {
        return client;
    }

    @Override
    public void close() throws IOException {
        try {
            client.close();
        } finally {
            try {
                hbase.close();
            } finally {
                tm.close();
            }
        }
    }
}
