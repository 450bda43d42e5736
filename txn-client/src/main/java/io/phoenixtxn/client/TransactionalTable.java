package io.phoenixtxn.client;

import io.phoenixtxn.client.fastpath.FastPathFailures;
import io.phoenixtxn.snapshot.Snapshot;
import io.phoenixtxn.snapshot.SnapshotCodec;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.OperationWithAttributes;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One HBase table seen through a transaction. Writes become tentative cells at the write pointer and enter the
 * write set before they are sent (so even a failed send is rolled back). Reads carry the snapshot as an attribute;
 * the region observer filters them, so a read needs no extra versions or commit cells on the client.
 *
 * <p>Reads and tentative writes also name the commit table this client commits to
 * ({@link SnapshotAttributes#COMMIT_TABLE}, from the table's configuration, as the client's own commit table is):
 * a region server resolving against another table refuses them instead of misreading this client's commits.
 *
 * <p>Time ranges: a transactional read always sees its whole snapshot. Cell versions are write pointers, not
 * commit times, so a time range (global or per family, or {@code Get.setTimestamp}) that would narrow the snapshot's
 * {@code [0, maxVersionExclusive)} is refused with {@link IllegalArgumentException}; one that contains it (the
 * default) is replaced by it. See {@link SnapshotTimeRange}.
 */
public final class TransactionalTable implements Closeable {
    private final Table table;
    private final WriteMode mode;
    private final TableName name;
    private final byte[] nameBytes;
    /** {@link WriteSetHashing#tableId} of the name, computed at the first write (most wrappers only read). */
    private volatile long tableId;
    private volatile boolean tableIdKnown;
    private volatile List<byte[]> families;
    /** UTF-8 name of the commit table this client commits to; null when the table has no configuration. */
    private final byte[] commitTable;

    TransactionalTable(Table table, WriteMode mode) {
        this(table, mode, commitTableOf(table));
    }

    /** @param commitTable UTF-8 name of the commit table the owning client commits to (null: not announced) */
    TransactionalTable(Table table, WriteMode mode, byte[] commitTable) {
        this.table = table;
        this.mode = mode;
        this.name = table.getName();
        this.nameBytes = name.getNameAsString().getBytes(StandardCharsets.UTF_8);
        this.commitTable = commitTable;
    }

    /**
     * The commit table a client of this table's connection commits to: {@link TxnClient} and Phoenix's client read
     * it from the same configuration their connections are made of. Phoenix wraps a table for every statement, so
     * only that key is read here.
     */
    private static byte[] commitTableOf(Table table) {
        org.apache.hadoop.conf.Configuration conf = table.getConfiguration();
        return conf == null ? null : TxnClientConfig.commitTableOf(conf::get).getBytes(StandardCharsets.UTF_8);
    }

    public TableName getName() {
        return name;
    }

    public Table raw() {
        return table;
    }

    public WriteMode mode() {
        return mode;
    }

    public void put(Transaction tx, Put put) throws IOException {
        Put tentative = TentativeWrites.fromPut(put, tx.versionForPut(name, put.getRow()));
        record(tx, tentative);
        send(tentative);
    }

    public void put(Transaction tx, List<Put> puts) throws IOException {
        List<Put> tentative = new ArrayList<>(puts.size());
        for (Put put : puts) {
            Put t = TentativeWrites.fromPut(put, tx.versionForPut(name, put.getRow()));
            record(tx, t);
            tentative.add(t);
        }
        send(tentative);
    }

    public void delete(Transaction tx, Delete delete) throws IOException {
        Put tentative = TentativeWrites.fromDelete(delete, tx.writePointer(), families());
        record(tx, tentative);
        send(tentative);
    }

    public void delete(Transaction tx, List<Delete> deletes) throws IOException {
        List<Put> tentative = new ArrayList<>(deletes.size());
        for (Delete delete : deletes) {
            Put t = TentativeWrites.fromDelete(delete, tx.writePointer(), families());
            record(tx, t);
            tentative.add(t);
        }
        send(tentative);
    }

    /**
     * Puts and deletes in one round trip; {@code results} (if given) gets an empty Result per action, as Phoenix
     * expects. Gets in a batch are read through the snapshot. Increments and appends are refused.
     */
    public void batch(Transaction tx, List<? extends Row> actions, Object[] results) throws IOException {
        List<Row> converted = new ArrayList<>(actions.size());
        for (Row action : actions) {
            if (action instanceof Put) {
                Put t = TentativeWrites.fromPut((Put) action, tx.versionForPut(name, ((Put) action).getRow()));
                record(tx, t);
                converted.add(t);
            } else if (action instanceof Delete) {
                Put t = TentativeWrites.fromDelete((Delete) action, tx.writePointer(), families());
                record(tx, t);
                converted.add(t);
            } else if (action instanceof Get) {
                converted.add(prepare(tx, (Get) action));
            } else {
                throw new UnsupportedOperationException(action.getClass().getSimpleName() + " is not supported in a"
                        + " transaction (only Put, Delete and Get); read, compute and Put the new value instead");
            }
        }
        Object[] raw = new Object[converted.size()];
        try {
            table.batch(converted, raw);
        } catch (IOException e) {
            throw FastPathFailures.conflictOr(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted during a transactional batch");
        }
        if (results != null) {
            for (int i = 0; i < raw.length && i < results.length; i++) {
                results[i] = raw[i] instanceof Result && actions.get(i) instanceof Get ? raw[i] : Result.EMPTY_RESULT;
            }
        }
    }

    /**
     * For a table dropped while {@code tx} wrote to it (the caller has established that it is gone for good): the
     * transaction forgets its tentative cells here, so that committing or rolling back does not touch the table.
     */
    public void forgetWrites(Transaction tx) {
        tx.writeSet().forgetCells(name);
    }

    public Result get(Transaction tx, Get get) throws IOException {
        return table.get(prepare(tx, get));
    }

    public Result[] get(Transaction tx, List<Get> gets) throws IOException {
        List<Get> prepared = new ArrayList<>(gets.size());
        for (Get get : gets) {
            prepared.add(prepare(tx, get));
        }
        return table.get(prepared);
    }

    public boolean exists(Transaction tx, Get get) throws IOException {
        return !get(tx, get).isEmpty();
    }

    public ResultScanner getScanner(Transaction tx, Scan scan) throws IOException {
        return table.getScanner(prepare(tx, scan));
    }

    /**
     * A put that is committed the moment it lands (index population at a fence, Phoenix's markPutAsCommitted):
     * every cell at {@code version} plus its commit cell. No commit-table entry, no TM round trip.
     */
    public static Put markCommitted(Put put, long version, long commitTs) {
        Put committed = TentativeWrites.fromPut(put, version);
        byte[] commitValue = OnDiskLayout.encodeCommitTimestamp(commitTs);
        List<Cell> dataCells = new ArrayList<>();
        committed.getFamilyCellMap().values().forEach(dataCells::addAll);
        for (Cell cell : dataCells) {
            committed.addColumn(CellUtil.cloneFamily(cell), OnDiskLayout.commitQualifier(cell.getQualifierArray(),
                    cell.getQualifierOffset(), cell.getQualifierLength()), version, commitValue);
        }
        return committed;
    }

    Get prepare(Transaction tx, Get get) throws IOException {
        verifyObserver();
        refuseIfExpired(tx);
        Snapshot snapshot = tx.snapshot();
        Get prepared = SnapshotTimeRange.apply(new Get(get), snapshot, name);
        prepared.setAttribute(SnapshotAttributes.SNAPSHOT, SnapshotCodec.encode(snapshot));
        nameCommitTable(prepared);
        return prepared;
    }

    Scan prepare(Transaction tx, Scan scan) throws IOException {
        verifyObserver();
        refuseIfExpired(tx);
        Snapshot snapshot = tx.snapshot();
        Scan prepared = SnapshotTimeRange.apply(new Scan(scan), snapshot, name);
        prepared.setAttribute(SnapshotAttributes.SNAPSHOT, SnapshotCodec.encode(snapshot));
        nameCommitTable(prepared);
        return prepared;
    }

    /** An expired transaction's snapshot may have been garbage-collected: it must not read on. */
    private static void refuseIfExpired(Transaction tx) throws IOException {
        if (tx.isExpired()) {
            throw new SnapshotTooOldException("Snapshot too old: transaction " + tx.txId() + " outlived its lease at"
                    + " the transaction manager (its client did not renew it within phoenix.txn.tm.transaction.lease"
                    + ".ms), so versions it reads may have been garbage-collected. Roll it back and retry; raise"
                    + " phoenix.txn.tm.transaction.lease.ms for transactions that pause that long.");
        }
    }

    private void nameCommitTable(OperationWithAttributes op) {
        if (commitTable != null) {
            op.setAttribute(SnapshotAttributes.COMMIT_TABLE, commitTable);
        }
    }

    /**
     * Sends tentative writes. A region server refuses one whose row holds a fast-path commit newer than the
     * transaction's start: that refusal is thrown as itself, so the caller sees the conflict and rolls back.
     */
    private void send(Put tentative) throws IOException {
        try {
            table.put(tentative);
        } catch (IOException e) {
            throw FastPathFailures.conflictOr(e);
        }
    }

    private void send(List<Put> tentative) throws IOException {
        try {
            table.put(tentative);
        } catch (IOException e) {
            throw FastPathFailures.conflictOr(e);
        }
    }

    private void record(Transaction tx, Put tentative) {
        if (!tx.isRunning()) {
            throw new IllegalStateException("Transaction " + tx.txId() + " is " + tx.status() + "; begin a new one");
        }
        nameCommitTable(tentative); // every tentative write passes here before it is sent
        if (tx.isReplay()) {
            tentative.setAttribute(SnapshotAttributes.CONFLICTS_SINCE, Bytes.toBytes(tx.conflictsSince()));
        }
        WriteSet writes = tx.writeSet();
        byte[] row = tentative.getRow();
        for (Map.Entry<byte[], List<Cell>> family : tentative.getFamilyCellMap().entrySet()) {
            for (Cell cell : family.getValue()) {
                writes.addCell(name, new WrittenCell(row, family.getKey(), CellUtil.cloneQualifier(cell),
                        cell.getTimestamp()));
            }
        }
        for (List<Cell> cells : tentative.getFamilyCellMap().values()) {
            if (!cells.isEmpty() && OnDiskLayout.isFamilyDeleteMarker(cells.get(0))) {
                tx.noteRowDelete(name, row);
                break;
            }
        }
        if (mode.detectsConflicts()) {
            writes.addRow(WriteSetHashing.rowId(nameBytes, row));
        }
        writes.addTable(tableId());
    }

    private long tableId() {
        if (!tableIdKnown) {
            tableId = WriteSetHashing.tableId(nameBytes);
            tableIdKnown = true;
        }
        return tableId;
    }

    private List<byte[]> families() throws IOException {
        List<byte[]> f = families;
        if (f == null) {
            ColumnFamilyDescriptor[] cfs = table.getDescriptor().getColumnFamilies();
            f = new ArrayList<>(cfs.length);
            for (ColumnFamilyDescriptor cf : cfs) {
                f.add(cf.getName());
            }
            families = f;
        }
        return f;
    }

    private void verifyObserver() throws IOException {
        ObserverCheck.verify(table);
    }

    @Override
    public void close() throws IOException {
        table.close();
    }

    @Override
    public String toString() {
        return "TransactionalTable{" + name + ", " + mode + "}";
    }

    static String describe(byte[] row) {
        return Bytes.toStringBinary(row);
    }
}
