package io.phoenixtxn.tm;

import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * The tables a bulk load holds while its files land (table id to the load's transaction id). While a load holds a
 * table, every other commit that writes it aborts as fenced ({@link AbortReason#FENCE}): the load's cells carry its start
 * timestamp as their version, so a writer that began after it and committed before it would leave a newer version
 * that did not see the load's. A hold ends when the load commits or aborts, or when its transaction is no longer
 * open (its client stopped renewing it: a crashed tool never blocks a table past its lease).
 *
 * <p>Loads are rare and every commit checks the holds, so the lookup side is an immutable snapshot published through
 * one volatile field: no lock, boxing or allocation on a commit; changes copy it under the monitor.
 */
final class BulkLoadHolds {
    private static final Holds NONE = new Holds(new long[0], new long[0]);

    private volatile Holds current = NONE;
    /** Table id to the commit timestamp of its newest committed load (holders here are commit timestamps). */
    private volatile Holds committed = NONE;

    /**
     * Holds the tables for the load {@code txId}.
     *
     * @param open which transactions are still open (holds of others are dropped first)
     * @throws TmException naming the table and the load already holding it
     */
    synchronized void hold(long txId, long[] tableIds, LongPredicate open) throws TmException {
        Holds live = current.keeping(open);
        for (long tableId : tableIds) {
            long holder = live.holderOf(tableId);
            if (holder != 0 && holder != txId) {
                current = live;
                throw new TmException("Table id " + tableId + " is held by the bulk load of transaction " + holder
                        + "; one bulk load per table at a time: retry when it ends");
            }
        }
        for (long tableId : tableIds) {
            live = live.with(tableId, txId);
        }
        current = live;
    }

    /** True if a table in {@code tableIds[from, to)} is held by an open load other than {@code txId}. */
    boolean blocks(long txId, long[] tableIds, int from, int to, LongPredicate open) {
        Holds holds = current;
        if (holds.tables.length == 0) {
            return false;
        }
        for (int i = from; i < to; i++) {
            long holder = holds.holderOf(tableIds[i]);
            if (holder != 0 && holder != txId && open.test(holder)) {
                return true;
            }
        }
        return false;
    }

    /** True if {@code txId} is a bulk load holding tables. */
    boolean isLoad(long txId) {
        Holds holds = current;
        for (long holder : holds.holders) {
            if (holder == txId) {
                return true;
            }
        }
        return false;
    }

    /** The tables the load {@code txId} holds. */
    long[] tablesOf(long txId) {
        Holds holds = current;
        return holds.tablesHeldBy(txId);
    }

    /** Records that a load committed at {@code commitTs} wrote these tables (see {@link #committedAfter}). */
    synchronized void committed(long[] tableIds, long commitTs) {
        Holds table = committed;
        for (long tableId : tableIds) {
            table = table.with(tableId, Math.max(commitTs, table.holderOf(tableId)));
        }
        committed = table;
    }

    /**
     * True if a load that committed after {@code since} wrote a table of {@code tableIds[from, to)}: a replay whose
     * writes were computed from a snapshot at {@code since} did not see it (its own start is above the load's fence,
     * and the load recorded no rows in the conflict table).
     */
    boolean committedAfter(long since, long[] tableIds, int from, int to) {
        Holds table = committed;
        if (table.tables.length == 0) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (table.holderOf(tableIds[i]) > since) {
                return true;
            }
        }
        return false;
    }

    synchronized void release(long txId) {
        current = current.keeping(holder -> holder != txId);
    }

    /** Table id to holding load, sorted by table id (operators' status). */
    java.util.SortedMap<Long, Long> snapshot() {
        Holds holds = current;
        java.util.SortedMap<Long, Long> out = new java.util.TreeMap<>();
        for (int i = 0; i < holds.tables.length; i++) {
            out.put(holds.tables[i], holds.holders[i]);
        }
        return out;
    }

    /** Sorted table ids and their holders; immutable. */
    private static final class Holds {
        final long[] tables;
        final long[] holders;

        Holds(long[] tables, long[] holders) {
            this.tables = tables;
            this.holders = holders;
        }

        long holderOf(long tableId) {
            int at = Arrays.binarySearch(tables, tableId);
            return at >= 0 ? holders[at] : 0;
        }

        long[] tablesHeldBy(long txId) {
            return java.util.stream.IntStream.range(0, tables.length).filter(i -> holders[i] == txId)
                    .mapToLong(i -> tables[i]).toArray();
        }

        Holds with(long tableId, long txId) {
            int at = Arrays.binarySearch(tables, tableId);
            if (at >= 0) {
                long[] newHolders = holders.clone();
                newHolders[at] = txId;
                return new Holds(tables, newHolders);
            }
            int insert = -at - 1;
            long[] newTables = new long[tables.length + 1];
            long[] newHolders = new long[holders.length + 1];
            System.arraycopy(tables, 0, newTables, 0, insert);
            System.arraycopy(holders, 0, newHolders, 0, insert);
            newTables[insert] = tableId;
            newHolders[insert] = txId;
            System.arraycopy(tables, insert, newTables, insert + 1, tables.length - insert);
            System.arraycopy(holders, insert, newHolders, insert + 1, holders.length - insert);
            return new Holds(newTables, newHolders);
        }

        Holds keeping(LongPredicate keepHolder) {
            int n = 0;
            for (long holder : holders) {
                if (keepHolder.test(holder)) {
                    n++;
                }
            }
            if (n == holders.length) {
                return this;
            }
            long[] newTables = new long[n];
            long[] newHolders = new long[n];
            int j = 0;
            for (int i = 0; i < tables.length; i++) {
                if (keepHolder.test(holders[i])) {
                    newTables[j] = tables[i];
                    newHolders[j++] = holders[i];
                }
            }
            return new Holds(newTables, newHolders);
        }
    }
}
