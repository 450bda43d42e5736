package io.phoenixtxn.coprocessor;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;

/**
 * Refuses HFile bulk loads into transactional tables and their indexes (Phoenix's CsvBulkLoadTool and
 * JsonBulkLoadTool, HBase's BulkLoadHFiles). A loaded HFile carries neither commit cells nor a commit-table entry:
 * its rows would read as an aborted transaction's (invisible for good; on a table converted with ALTER ...
 * TRANSACTIONAL=true the data cells read as committed, region by region as each file lands, while Phoenix's tool
 * stamps the index cells with a transaction that it rolled back). Refused before HBase moves the file into the
 * store, so nothing of the load becomes visible and the client gets this error instead of rows that vanish.
 */
final class BulkLoadRefusal {
    private BulkLoadRefusal() {
    }

    static DoNotRetryIOException refusal(TableName table) {
        return new DoNotRetryIOException("Bulk load of HFiles into the transactional table " + table + " is not"
                + " supported by phoenix-txn: the files carry no commit information, so their rows would never be"
                + " visible to transactions (or, on a table converted to transactional, visible region by region with"
                + " its index rows missing). Load the rows with transactional UPSERTs (JDBC batches), or bulk load the"
                + " table before making it transactional (docs/compatibility.md, \"Bulk load\").");
    }
}
