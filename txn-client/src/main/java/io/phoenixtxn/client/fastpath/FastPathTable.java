package io.phoenixtxn.client.fastpath;

import io.phoenixtxn.client.ObserverCheck;
import io.phoenixtxn.client.OnDiskLayout;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Fast-path transactions on one table (VLDB'18 sec. 4; Lorra draft sec. 4-5): single-row transactions that never
 * talk to the TM, each one round trip to the row's region server.
 *
 * <ul>
 *   <li>{@link #brc}: the row's latest committed values.</li>
 *   <li>{@link #br} + {@link #wc}: read the row and its version; write only if nothing committed to the row since.</li>
 *   <li>{@link #bwc}: a blind write (puts, or deletes) above every committed version of the row.</li>
 *   <li>{@link #brwc}: a built-in {@link FastPathFunction} (increment, compare-and-set) of the row's latest committed
 *       values, read and written in one atomic step on the region server.</li>
 * </ul>
 *
 * <p>Semantics (design.md sec. 4.7): fast-path transactions are atomic and isolated. Relative to regular transactions
 * they relax only real-time order (VLDB'18 sec. 2): a fast-path write may be serialized before a regular transaction
 * that began earlier in real time and had not read the row; regular transactions keep snapshot isolation among
 * themselves. Reads ignore writes of transactions not committed yet. A write aborts with
 * {@link FastPathAbortedException} (nothing written, outcome known) when the row has a version whose writer may still
 * commit, a version committed above the bound, when the region server cannot number it, or when the table has the
 * fast path disabled ({@link FastPathSwitch}); {@link FastPathClient} has helpers that retry as regular transactions.
 *
 * <p>A write whose answer is lost may have been applied, and HBase's nonces, which stop a resent increment from applying
 * twice, do not survive a region move, split or merge. So writes travel on a table whose HBase client does not retry
 * ({@link FastPathClient} opens it with retries off), and are sent again here only after an attempt that certainly did
 * not write ({@link CarrierOutcome}: the region was not served there, the server refused the call before running it);
 * after any other failure the write is in doubt ({@link FastPathInDoubtException}): never reported applied or aborted,
 * never sent again, never rerun on the regular path. A resent carrier that HBase still recognises by its nonce is
 * answered in doubt by the region server too. Versions and timestamps of the operations' cells are the
 * region server's: user timestamps on puts and deletes are ignored, as in transactions.
 */
public final class FastPathTable implements Closeable {
    /** Attempts of one write that each certainly did not write (region moving, server busy) before giving up. */
    static final int MAX_WRITE_ATTEMPTS = 20;
    private static final long MAX_PAUSE_MS = 1_000;

    private final Table table;
    private final Table carriers;
    private final byte[] commitTable;
    private volatile List<byte[]> families;

    /**
     * A table whose writes travel on {@code table} too: only for a {@code table} whose HBase client does not retry
     * (hbase.client.retries.number=0), or when an in-doubt write may be applied twice (tests of reads).
     *
     * @param commitTable UTF-8 name of the commit table the caller's client commits to (region servers refuse a
     *                    mismatch); null: not announced
     */
    public FastPathTable(Table table, byte[] commitTable) {
        this(table, table, commitTable);
    }

    /**
     * @param table    reads and metadata
     * @param carriers the same table on a connection whose HBase client does not retry: the writes' carriers
     */
    public FastPathTable(Table table, Table carriers, byte[] commitTable) {
        this.table = table;
        this.carriers = carriers;
        this.commitTable = commitTable;
    }

    public TableName getName() {
        return table.getName();
    }

    /** brc: the row's latest committed values (of the columns {@code get} names; all when it names none). */
    public Result brc(Get get) throws IOException {
        return br(get).result();
    }

    /** br: the row's latest committed values and its version, for a later {@link #wc}. */
    public VersionedResult br(Get get) throws IOException {
        refuseReadOptions(get);
        ObserverCheck.verify(table);
        Result answer = call(() -> table.get(FastPathWire.read(get, commitTable)));
        FastPathWire.Outcome outcome = FastPathWire.outcomeOf(answer);
        return new VersionedResult(FastPathWire.withoutOutcome(answer), outcome.version());
    }

    /** bwc: writes the put's columns above every committed version of the row; returns the write's version. */
    public long bwc(Put put) throws IOException {
        return write(put.getRow(), FastPathRequest.write(FastPathRequest.NO_BOUND, columnsOf(put)));
    }

    /** bwc of a delete: tombstones for the named columns, family-delete markers for families or the whole row. */
    public long bwc(Delete delete) throws IOException {
        return write(delete.getRow(), FastPathRequest.write(FastPathRequest.NO_BOUND, columnsOf(delete)));
    }

    /**
     * wc: writes the put's columns if nothing committed to the row above {@code version} (from {@link #br});
     * otherwise aborts with {@link FastPathAbortedException.Reason#NEWER_COMMIT}.
     */
    public long wc(long version, Put put) throws IOException {
        return write(put.getRow(), FastPathRequest.write(version, columnsOf(put)));
    }

    /** wc of a delete (see {@link #bwc(Delete)}). */
    public long wc(long version, Delete delete) throws IOException {
        return write(delete.getRow(), FastPathRequest.write(version, columnsOf(delete)));
    }

    /** brwc: reads the row and writes what {@code function} computes from it, in one atomic step. */
    public BrwcResult brwc(byte[] row, FastPathFunction function) throws IOException {
        ObserverCheck.verify(table);
        Result answer = send(row, FastPathRequest.function(function));
        FastPathWire.Outcome outcome = FastPathWire.outcomeOf(answer);
        return new BrwcResult(outcome.applied(), FastPathWire.withoutOutcome(answer), outcome.version());
    }

    private long write(byte[] row, FastPathRequest request) throws IOException {
        ObserverCheck.verify(table);
        return FastPathWire.outcomeOf(send(row, request)).version();
    }

    /**
     * Sends a write's carrier, again only after attempts that certainly did not write; a new carrier each time (a new
     * nonce: the region server must run it).
     */
    private Result send(byte[] row, FastPathRequest request) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return call(() -> carriers.increment(FastPathWire.carrier(row, request, commitTable)));
            } catch (FastPathAbortedException | FastPathInDoubtException e) {
                throw e;
            } catch (IOException e) {
                if (!CarrierOutcome.certainlyNotApplied(e)) {
                    FastPathInDoubtException inDoubt = FastPathInDoubtException.of("the fast-path write to row "
                            + Bytes.toStringBinary(row) + " of " + table.getName() + " failed after it may have"
                            + " reached the region server (" + e + ")");
                    inDoubt.initCause(e);
                    throw inDoubt;
                }
                if (attempt >= MAX_WRITE_ATTEMPTS) {
                    throw e; // never written: the outcome is known
                }
                pause(attempt);
            }
        }
    }

    private static void pause(int attempt) throws IOException {
        try {
            Thread.sleep(Math.min(MAX_PAUSE_MS, 20L << Math.min(attempt, 10))); // the region is moving: back off
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted between attempts of a fast-path write that did"
                    + " not write");
        }
    }

    /** Runs one HBase call; a fast-path refusal comes out as itself, wherever the HBase client put it. */
    private Result call(HBaseCall call) throws IOException {
        try {
            return call.run();
        } catch (IOException e) {
            FastPathInDoubtException inDoubt = FastPathFailures.find(e, FastPathInDoubtException.class);
            if (inDoubt != null) {
                FastPathInDoubtException thrown = new FastPathInDoubtException(inDoubt.getMessage());
                thrown.initCause(e);
                throw thrown;
            }
            FastPathAbortedException refusal = FastPathFailures.find(e, FastPathAbortedException.class);
            if (refusal != null && refusal != e) {
                FastPathAbortedException thrown = new FastPathAbortedException(refusal.getMessage());
                thrown.initCause(e);
                throw thrown;
            }
            throw e;
        }
    }

    @FunctionalInterface
    private interface HBaseCall {
        Result run() throws IOException;
    }

    private static void refuseReadOptions(Get get) {
        if (get.getFilter() != null || !get.getTimeRange().isAllTime() || !get.getColumnFamilyTimeRange().isEmpty()) {
            throw new IllegalArgumentException("A fast-path read returns the row's latest committed values: it takes"
                    + " no filter and no time range (read in a transaction for those)");
        }
    }

    private static List<ColumnValue> columnsOf(Put put) {
        List<ColumnValue> columns = new ArrayList<>();
        for (Map.Entry<byte[], List<Cell>> family : put.getFamilyCellMap().entrySet()) {
            for (Cell cell : family.getValue()) {
                byte[] qualifier = CellUtil.cloneQualifier(cell);
                OnDiskLayout.checkUserQualifier(qualifier);
                columns.add(new ColumnValue(family.getKey(), qualifier, CellUtil.cloneValue(cell)));
            }
        }
        return columns;
    }

    /** A delete as transactional writes spell it (see {@code TentativeWrites}): tombstones and family markers. */
    private List<ColumnValue> columnsOf(Delete delete) throws IOException {
        List<ColumnValue> columns = new ArrayList<>();
        if (delete.getFamilyCellMap().isEmpty()) {
            for (byte[] family : families()) {
                columns.add(new ColumnValue(family, OnDiskLayout.FAMILY_DELETE_QUALIFIER, OnDiskLayout.TOMBSTONE));
            }
            return columns;
        }
        for (Map.Entry<byte[], List<Cell>> family : delete.getFamilyCellMap().entrySet()) {
            for (Cell cell : family.getValue()) {
                switch (cell.getType()) {
                    case DeleteFamily:
                    case DeleteFamilyVersion:
                        columns.add(new ColumnValue(family.getKey(), OnDiskLayout.FAMILY_DELETE_QUALIFIER,
                                OnDiskLayout.TOMBSTONE));
                        break;
                    case Delete:
                    case DeleteColumn:
                        byte[] qualifier = CellUtil.cloneQualifier(cell);
                        OnDiskLayout.checkUserQualifier(qualifier);
                        columns.add(new ColumnValue(family.getKey(), qualifier, OnDiskLayout.TOMBSTONE));
                        break;
                    default:
                        throw new IllegalArgumentException("Unsupported cell type in a fast-path delete: "
                                + cell.getType());
                }
            }
        }
        return columns;
    }

    private List<byte[]> families() throws IOException {
        List<byte[]> f = families;
        if (f == null) {
            f = new ArrayList<>();
            for (ColumnFamilyDescriptor cf : table.getDescriptor().getColumnFamilies()) {
                f.add(cf.getName());
            }
            families = f;
        }
        return f;
    }

    @Override
    public void close() throws IOException {
        table.close();
        if (carriers != table) {
            carriers.close();
        }
    }

    @Override
    public String toString() {
        return "FastPathTable{" + table.getName() + "}";
    }
}
