package org.apache.phoenix.transaction;

import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.phoenix.ProviderSlot;
import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import org.apache.hadoop.conf.Configuration;
import org.apache.phoenix.jdbc.ConnectionInfo;

/**
 * Test-scope replacement for Phoenix's harness class of the same name (phoenix-core tests jar), which casts the
 * OMID slot's provider to Apache Omid's and starts Omid's TSO. Ours makes sure phoenix-txn holds the slot and its
 * embedded TM runs; Phoenix's ConnectionQueryServicesTestImpl calls it once per provider and closes the returned
 * service with the connection service. Same class name so Phoenix's own ITs run unchanged against phoenix-txn;
 * it-tests' test classes precede the tests jar on the classpath.
 */
public class TransactionServiceManager {

    public static PhoenixTransactionService startTransactionService(TransactionFactory.Provider provider,
            Configuration config, ConnectionInfo connInfo, int port) {
        if (provider == TransactionFactory.Provider.NOTAVAILABLE) {
            return NotAvailableTransactionService.getInstance();
        }
        if (provider == TransactionFactory.Provider.OMID) {
            ProviderSlot.install();
            ProviderSlot.verify();
            // Like Apache Omid's harness (its client's default post-commit is synchronous): Phoenix's index ITs
            // count commit cells in raw scans right after commit() returns. Applications keep our async default.
            if (config.get(TxnClientConfig.POST_COMMIT_MODE) == null) {
                config.set(TxnClientConfig.POST_COMMIT_MODE, "sync");
            }
            EmbeddedTm.shared(TmConfig.from(config::get));
            // The embedded TM outlives connection services (like a TM server would): closing one of several
            // Phoenix connection services must not stop transactions of the others.
            return () -> { };
        }
        throw new IllegalArgumentException("Unknown transaction provider " + provider);
    }
}
