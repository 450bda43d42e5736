package io.phoenixtxn.phoenix;

import io.phoenixtxn.client.ObserverNames;
import io.phoenixtxn.client.TransactionalTable;
import io.phoenixtxn.client.Transaction;
import io.phoenixtxn.snapshot.SnapshotCodec;
import io.phoenixtxn.tm.TxnSettings;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Put;
import org.apache.phoenix.jdbc.ConnectionInfo;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.transaction.PhoenixTransactionClient;
import org.apache.phoenix.transaction.PhoenixTransactionContext;
import org.apache.phoenix.transaction.PhoenixTransactionProvider;
import org.apache.phoenix.transaction.TransactionFactory;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * phoenix-txn as Phoenix's transaction provider. Stateless singleton that sits in the OMID slot
 * ({@link ProviderSlot}); per-connection-service state lives in {@link PhoenixTxnClient}, per-transaction state
 * in {@link PhoenixTxnContext}.
 */
public final class PhoenixTxnProvider implements PhoenixTransactionProvider {
    public static final PhoenixTxnProvider INSTANCE = new PhoenixTxnProvider();

    private PhoenixTxnProvider() {
    }

    @Override
    public PhoenixTransactionContext getTransactionContext(byte[] txnBytes) throws IOException {
        // Region servers and MapReduce decode here without any TM: a read-only view of the snapshot.
        if (txnBytes == null || txnBytes.length <= 1) {
            return new PhoenixTxnContext(null, null);
        }
        byte[] payload = Arrays.copyOf(txnBytes, txnBytes.length - 1);
        try {
            return new PhoenixTxnContext(null, Transaction.readOnlyView(SnapshotCodec.decode(payload)));
        } catch (IllegalArgumentException e) {
            throw new IOException("Cannot decode the transaction state Phoenix passed to the region server: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public PhoenixTransactionContext getTransactionContext(PhoenixConnection connection) {
        return new PhoenixTxnContext(connection, null);
    }

    @Override
    public PhoenixTransactionClient getTransactionClient(Configuration config, ConnectionInfo connectionInfo)
            throws SQLException {
        try {
            return new PhoenixTxnClient(config);
        } catch (IOException | RuntimeException e) {
            throw SqlErrors.failed("phoenix-txn could not start its transaction client: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCoprocessorClassName() {
        return ObserverNames.PHOENIX_OBSERVER;
    }

    /**
     * The compaction-time GC observer ({@link PhoenixTxnGcObserver}): Phoenix adds it to every transactional table
     * and index, next to the read observer.
     */
    @Override
    public String getGCCoprocessorClassName() {
        return ObserverNames.PHOENIX_GC_OBSERVER;
    }

    @Override
    public TransactionFactory.Provider getProvider() {
        return TransactionFactory.Provider.OMID;
    }

    /**
     * SET_TTL is supported: Phoenix moves a transactional table's TTL (CREATE TABLE, ALTER TABLE ... SET TTL, and its
     * indexes) off the HBase family TTL into the family attribute {@code dataset.table.ttl}, which our readers apply at
     * their snapshot's start and compaction-time GC at its horizon, to data, commit cells and markers together (see
     * FamilyTtl). ALTER_NONTX_TO_TX is supported unless the JVM opts out
     * ({@code -Dphoenix.txn.alter.to.transactional=false}, {@link TxnSettings#ALTER_TO_TRANSACTIONAL}: Phoenix asks
     * without a configuration): Phoenix marks the table and its indexes
     * {@code data.tx.read.pre.existing=true}, under which region servers read cells written before the switch as
     * committed ("committed below" rule, PreTransactionalCells) and refuse non-transactional writes; the switch is
     * completed and fenced by the ALTER's connection's next transaction or the first transactional use of the table
     * ({@link ConversionFence}), and the indexes get their provider in the catalog ({@link AlterSwitches}). The other flags answer
     * "unsupported", each for a reason (see docs/compatibility.md): COLUMN_ENCODING
     * (encoded qualifiers start with 0x00 and would sort beside commit cells), MAINTAIN_LOCAL_INDEX_ON_SERVER and
     * ALLOW_LOCAL_INDEX (local indexes are not transactional here).
     */
    @Override
    public boolean isUnsupported(Feature feature) {
        if (feature == Feature.ALTER_NONTX_TO_TX) {
            boolean allowed = TxnSettings.ALTER_TO_TRANSACTIONAL.get(System::getProperty); // per call: JVM-wide
            if (allowed) {
                AlterSwitches.askedToSwitch(); // this thread's next DDL timestamp is the ALTER's
            }
            return !allowed;
        }
        return feature != Feature.SET_TTL;
    }

    @Override
    public Put markPutAsCommitted(Put put, long timestamp, long commitTimestamp) {
        IndexToolRefusal.refuseIfIndexTool(IndexToolRefusal.CALLERS.getCallerClass(), timestamp, commitTimestamp);
        return TransactionalTable.markCommitted(put, timestamp, commitTimestamp);
    }

    /**
     * "OMID", as Phoenix's own provider answers: Phoenix code and tests build SQL such as
     * {@code TRANSACTION_PROVIDER='<provider>'} from this string. {@link #describe()} names us.
     */
    @Override
    public String toString() {
        return getProvider().toString();
    }

    public String describe() {
        return "phoenix-txn (in Phoenix's OMID provider slot)";
    }
}
