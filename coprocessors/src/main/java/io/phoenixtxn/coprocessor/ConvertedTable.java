package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.PreTransactionalCells;
import org.apache.hadoop.hbase.client.TableDescriptor;

/**
 * Whether a table (or index) became transactional after it had been written, read from its descriptor: Phoenix 5.2
 * marks every table it switches with {@code ALTER TABLE ... SET TRANSACTIONAL=true}, and every index of it, with the
 * descriptor value {@value #PHOENIX_PRE_EXISTING_DATA}{@code =true} (PhoenixTransactionContext.READ_NON_TX_DATA,
 * Tephra's name), in the same modifyTable that installs our observers; a table created transactional never carries
 * it. Such a table reads its old cells by the "committed below" rule ({@link PreTransactionalCells}). Tables made
 * through the HBase API may set the same value.
 */
final class ConvertedTable {
    /** Phoenix's PhoenixTransactionContext.READ_NON_TX_DATA. */
    static final String PHOENIX_PRE_EXISTING_DATA = "data.tx.read.pre.existing";

    private ConvertedTable() {
    }

    static PreTransactionalCells rule(TableDescriptor descriptor) {
        return PreTransactionalCells.of(descriptor != null
                && Boolean.parseBoolean(descriptor.getValue(PHOENIX_PRE_EXISTING_DATA)));
    }
}
