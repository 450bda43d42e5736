package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.phoenix.exception.SQLExceptionCode;
import org.apache.phoenix.exception.SQLExceptionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * A read of a table that another client dropped after this transaction resolved it. Inside a transaction Phoenix
 * resolves metadata as of the transaction's start, so a transaction that began before a DROP INDEX keeps planning
 * queries on the index, whose HBase table is gone: Phoenix itself forces the failure, and only a new transaction
 * (which resolves the table without the index) can read. The failure is therefore reported as what an application
 * already retries, SQL error 523 (a conflict, here with DDL), naming the table and why, instead of an HBase
 * TableNotFoundException wrapped in a PhoenixIOException. Phoenix turns the message back into the SQL error
 * (ClientUtil.parseServerException reads the root cause's "ERROR 523 (...)" text), so the exception has no cause.
 */
final class DroppedTableReads {
    private static final Logger LOG = LoggerFactory.getLogger(DroppedTableReads.class);

    private DroppedTableReads() {
    }

    /** {@code failure}, or a retryable 523 when it says that {@code read} no longer exists (or is disabled). */
    static IOException translate(TableName read, IOException failure) {
        if (!DroppedIndexWrites.tableGone(failure)) {
            return failure;
        }
        LOG.debug("Read of {} failed: the table is gone", read, failure);
        String message = new SQLExceptionInfo.Builder(SQLExceptionCode.TRANSACTION_CONFLICT_EXCEPTION)
                .setMessage("Table " + read + " was dropped or disabled after this transaction resolved it (DROP INDEX"
                        + " or DROP TABLE by another client); roll back and retry the transaction, which then resolves"
                        + " the current schema")
                .build().buildException().getMessage();
        return new DoNotRetryIOException(message);
    }
}
