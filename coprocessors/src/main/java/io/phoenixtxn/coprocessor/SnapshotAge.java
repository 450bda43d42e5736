package io.phoenixtxn.coprocessor;

import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.TimestampLayout;
import io.phoenixtxn.tm.Horizon;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;

/**
 * Refuses reads whose snapshot starts below the region server's GC horizon: compactions may have collected versions
 * such a snapshot reads, so it could see a value that was overwritten before it began, or none. Every live
 * transaction's start is at or above the horizon; one below it outlived its lease at the TM (it was not kept alive),
 * and the TM will not let it commit either.
 *
 * <p>Checked when a read opens (a clear error before any work) and again once its store scanners are open (a get
 * after it read, a scan after its scanner opened): a compaction that collected with a horizon above the snapshot
 * started after that horizon was known here, so if the second check passes, the read's store scanners were bound to
 * their files before any such compaction began, and compactions never change the files of an open scanner. Flushes
 * do hand their new file to open scanners, which is why a flush drops only versions no snapshot can ever see.
 */
final class SnapshotAge {
    private SnapshotAge() {
    }

    static void check(Snapshot snapshot, Horizon horizon, String operation, TableName table)
            throws DoNotRetryIOException {
        if (horizon.isKnown() && snapshot.txId() < horizon.gc()) {
            throw new DoNotRetryIOException("Snapshot too old: the " + operation + " on " + table + " reads the"
                    + " snapshot of transaction " + snapshot.txId() + " (" + TimestampLayout.describe(snapshot.txId())
                    + "), which began below this region server's GC horizon " + horizon.gc() + " ("
                    + TimestampLayout.describe(horizon.gc()) + "): versions it may read are being garbage-collected."
                    + " The transaction outlived its lease at the TM (it was not kept alive): retry it. For readers"
                    + " that run longer, raise phoenix.txn.tm.transaction.lease.ms.");
        }
    }

    /**
     * For a read at Phoenix's MapReduce timestamp below the horizon, the refusal its scanner throws at its first row
     * ({@link TooOldMapReduceScanner}); null when the read is not below it. No transaction of ours holds such a
     * timestamp unless TransactionalIndexTool drew it as its build's fence and holds it, so the message names that.
     */
    static DoNotRetryIOException mapReduceReadTooOld(Snapshot snapshot, Horizon horizon, TableName table) {
        if (!horizon.isKnown() || snapshot.txId() >= horizon.gc()) {
            return null;
        }
        return new DoNotRetryIOException("Refused Phoenix's MapReduce scan of " + table + " at read timestamp "
                + snapshot.txId() + " (" + TimestampLayout.describe(snapshot.txId()) + ", the job's"
                + " phoenix.mr.txscn.value): it is below this region server's GC horizon " + horizon.gc() + " ("
                + TimestampLayout.describe(horizon.gc()) + "), whose versions are being garbage-collected. A"
                + " TransactionalIndexTool build holds its fence while it runs: its process stopped renewing it (run"
                + " the tool again). Phoenix's own IndexTool reads at the index's creation time, which nothing holds:"
                + " run io.phoenixtxn.indextool.TransactionalIndexTool instead, or ALTER INDEX <index> ON <table>"
                + " REBUILD (docs/compatibility.md, \"ASYNC indexes\").");
    }
}
