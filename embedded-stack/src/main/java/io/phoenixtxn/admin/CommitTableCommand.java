package io.phoenixtxn.admin;

import io.phoenixtxn.client.CommitTable;
import io.phoenixtxn.client.CommitTableCleaner;
import io.phoenixtxn.client.HBaseCommitTable;
import io.phoenixtxn.client.PostCommitter;
import io.phoenixtxn.client.TxnClientConfig;
import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.stream.Stream;

/**
 * {@code commit-table} and {@code clean}: the committed entries of the commit table (entries whose post-commit has
 * not completed: the client is still writing commit cells, or stopped after its commit point), the oldest one and
 * its age; and one pass of the commit-table cleaner now, over entries older than the cleaner's grace period.
 * Everything goes through {@link CommitTable}, the one class that knows the table's layout.
 */
final class CommitTableCommand {
    private CommitTableCommand() {
    }

    static int show(AdminTarget target, PrintStream out) throws AdminException {
        Connection hbase = target.hbase();
        HBaseCommitTable table = commitTable(target, hbase);
        long entries = 0;
        long withoutRecord = 0;
        long oldest = Long.MAX_VALUE;
        try (Stream<CommitTable.CommittedEntry> all = table.committedBefore(Long.MAX_VALUE)) {
            Iterator<CommitTable.CommittedEntry> it = all.iterator();
            while (it.hasNext()) {
                CommitTable.CommittedEntry entry = it.next();
                entries++;
                withoutRecord += entry.recoveryRecord() == null ? 1 : 0;
                oldest = Math.min(oldest, entry.txId());
            }
        } catch (IOException | UncheckedIOException e) {
            throw unreadable(table, e);
        }
        out.println("commit table       " + table.name() + " (" + TxnClientConfig.COMMIT_TABLE + ")");
        out.println("committed entries  " + entries + (withoutRecord == 0 ? ""
                : " (" + withoutRecord + " without a recovery record: Omid's, or too large; readers resolve them)"));
        if (entries > 0) {
            out.println("oldest entry       transaction " + oldest + ", began "
                    + StatusCommand.age(System.currentTimeMillis(), oldest) + " ago ("
                    + java.time.Instant.ofEpochMilli(TimestampLayout.millisOf(oldest)) + ")");
        }
        return 0;
    }

    /** One cleaner pass over entries of transactions that began more than {@code graceMs} ago. */
    static int clean(AdminTarget target, long graceMs, PrintStream out) throws AdminException {
        Connection hbase = target.hbase();
        HBaseCommitTable table = commitTable(target, hbase);
        CommitTableCleaner cleaner = new CommitTableCleaner(table, new PostCommitter(hbase, table,
                TxnClientConfig.PostCommitMode.SYNC));
        long below = TimestampLayout.firstSlotOfMillis(System.currentTimeMillis() - graceMs);
        int completed;
        try {
            completed = cleaner.cleanOnce(below);
        } catch (IOException | UncheckedIOException e) {
            throw unreadable(table, e);
        }
        out.println("completed " + completed + " post-commit(s) left by stopped clients in " + table.name()
                + " (entries older than " + graceMs + " ms)"
                + (cleaner.failures() == 0 ? "" : "; " + cleaner.failures() + " could not be completed now and stay"
                + " for readers and the next pass (see the log)"));
        return cleaner.failures() == 0 ? 0 : 1;
    }

    private static HBaseCommitTable commitTable(AdminTarget target, Connection hbase) throws AdminException {
        TableName name = TableName.valueOf(TxnClientConfig.from(target.conf()::get).commitTable());
        try (Admin admin = hbase.getAdmin()) {
            if (!admin.tableExists(name)) {
                throw new AdminException("the commit table " + name + " does not exist: no transaction has run on"
                        + " this cluster yet, or " + TxnClientConfig.COMMIT_TABLE + " names another table");
            }
        } catch (IOException e) {
            throw new AdminException("HBase behind ZooKeeper " + target.quorum() + " is unreachable ("
                    + AdminTarget.oneLine(e) + "); check that its master and region servers run", e);
        }
        return new HBaseCommitTable(hbase, name);
    }

    private static AdminException unreadable(HBaseCommitTable table, Exception e) {
        return new AdminException("cannot read the commit table " + table.name() + " ("
                + AdminTarget.oneLine(e) + "); check that its regions are online (hbase hbck)", e);
    }
}
