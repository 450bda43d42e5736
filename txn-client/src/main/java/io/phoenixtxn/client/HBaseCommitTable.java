package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.protobuf.CodedInputStream;
import org.apache.hbase.thirdparty.com.google.protobuf.CodedOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The commit table in HBase, byte-compatible with Apache Omid 1.1's {@code OMID_COMMIT_TABLE}: row key = bucket
 * byte ({@code txId & 0x0F}) + 8-byte big-endian transaction id; family {@code F}; qualifier {@code C} = varint of
 * (commitTs - txId); qualifier {@code IT} = invalid marker (int 1); cell version = transaction id. An invalid
 * marker wins over a commit value, so a late commit write can never resurrect an invalidated transaction.
 * Qualifier {@code R} (ours, ignored by Omid) = the recovery record. Readers and the cleaner reach this layout only
 * through {@link CommitTable}.
 */
public final class HBaseCommitTable implements CommitTable {
    public static final String DEFAULT_NAME = io.phoenixtxn.tm.TxnSettings.COMMIT_TABLE.defaultValue();
    public static final byte[] FAMILY = bytes("F");
    public static final byte[] LOW_WATERMARK_FAMILY = bytes("LWF");
    public static final byte[] COMMIT_QUALIFIER = bytes("C");
    public static final byte[] INVALID_QUALIFIER = bytes("IT");
    /** Our addition (ignored by Omid): where the transaction's cells are, for crash recovery. */
    public static final byte[] RECOVERY_QUALIFIER = bytes("R");
    public static final byte[] INVALID_VALUE = Bytes.toBytes(1);
    /** Row keys start with {@code txId & 0x0F}. */
    private static final int BUCKETS = 16;
    private static final int ROW_KEY_LENGTH = 1 + Long.BYTES;
    private static final Logger LOG = LoggerFactory.getLogger(HBaseCommitTable.class);

    private final Connection connection;
    private final TableName name;
    /** Bound of each commit-table operation, retries included; 0 = the connection's default. */
    private final int operationTimeoutMs;

    public HBaseCommitTable(Connection connection, TableName name) {
        this(connection, name, 0);
    }

    /**
     * @param operationTimeoutMs bound of each operation, retries included: a commit point must not land long after
     *                           its client gave up on it (see TxnClientConfig#commitPointTimeoutMs)
     */
    public HBaseCommitTable(Connection connection, TableName name, long operationTimeoutMs) {
        this.connection = connection;
        this.name = name;
        this.operationTimeoutMs = (int) Math.min(Integer.MAX_VALUE, operationTimeoutMs);
    }

    private Table table() throws IOException {
        if (operationTimeoutMs <= 0) {
            return connection.getTable(name);
        }
        return connection.getTableBuilder(name, null).setOperationTimeout(operationTimeoutMs).build();
    }

    public TableName name() {
        return name;
    }

    public static byte[] rowKey(long txId) {
        return rowKey((int) (txId & 0x0F), txId);
    }

    private static byte[] rowKey(int bucket, long txId) {
        byte[] key = new byte[ROW_KEY_LENGTH];
        key[0] = (byte) bucket;
        Bytes.putLong(key, 1, txId);
        return key;
    }

    public static long txIdOfRowKey(byte[] key) {
        return Bytes.toLong(key, 1);
    }

    @Override
    public boolean tryCommit(long txId, long commitTs, byte[] recoveryRecord) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        byte[] row = rowKey(txId);
        Put put = new Put(row, txId).addColumn(FAMILY, COMMIT_QUALIFIER, encodeCommitTimestamp(txId, commitTs));
        if (recoveryRecord != null) {
            put.addColumn(FAMILY, RECOVERY_QUALIFIER, recoveryRecord);
        }
        try (Table table = table()) {
            return table.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(FAMILY, INVALID_QUALIFIER)
                    .build(put)).isSuccess();
        }
    }

    @Override
    public Entry lookup(long txId) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        Get get = new Get(rowKey(txId)).addColumn(FAMILY, COMMIT_QUALIFIER).addColumn(FAMILY, INVALID_QUALIFIER);
        Result result;
        try (Table table = table()) {
            result = table.get(get);
        }
        if (result.containsColumn(FAMILY, INVALID_QUALIFIER)) {
            return Entry.INVALIDATED;
        }
        byte[] value = result.getValue(FAMILY, COMMIT_QUALIFIER);
        return value == null ? Entry.ABSENT : Entry.committed(decodeCommitTimestamp(txId, value));
    }

    @Override
    public byte[] recoveryRecord(long txId) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        try (Table table = table()) {
            return table.get(new Get(rowKey(txId)).addColumn(FAMILY, RECOVERY_QUALIFIER))
                    .getValue(FAMILY, RECOVERY_QUALIFIER);
        }
    }

    @Override
    public boolean tryInvalidate(long txId) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        byte[] row = rowKey(txId);
        Put put = new Put(row, txId).addColumn(FAMILY, INVALID_QUALIFIER, INVALID_VALUE);
        try (Table table = table()) {
            boolean invalidated = table.checkAndMutate(CheckAndMutate.newBuilder(row)
                    .ifNotExists(FAMILY, COMMIT_QUALIFIER).build(put)).isSuccess();
            // Lost the race only if a commit value is there now; anything else (the entry was deleted meanwhile)
            // would have let the put through, so success is authoritative.
            return invalidated;
        }
    }

    @Override
    public void delete(long txId) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        try (Table table = table()) {
            table.delete(new Delete(rowKey(txId), txId));
        }
    }

    /**
     * One range scan per bucket, {@code [bucket + 0, bucket + txIdBelow)}, one after the other: entries of younger
     * transactions are not even read, and entries stream from HBase however the stream is consumed.
     */
    @Override
    public Stream<CommittedEntry> committedBefore(long txIdBelow) throws IOException {
        if (txIdBelow <= 0) {
            return Stream.empty();
        }
        CommittedEntries entries = new CommittedEntries(table(), txIdBelow);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(entries,
                Spliterator.ORDERED | Spliterator.NONNULL), false).onClose(entries::close);
    }

    /** The committed entries below a bound, bucket by bucket, with at most one scanner open. */
    private final class CommittedEntries implements Iterator<CommittedEntry> {
        private final Table table;
        private final long txIdBelow;
        private int nextBucket;
        private ResultScanner scanner;
        private CommittedEntry next;

        CommittedEntries(Table table, long txIdBelow) {
            this.table = table;
            this.txIdBelow = txIdBelow;
        }

        @Override
        public boolean hasNext() {
            try {
                while (next == null) {
                    if (scanner == null) {
                        if (nextBucket == BUCKETS) {
                            return false;
                        }
                        int bucket = nextBucket++;
                        scanner = table.getScanner(new Scan().withStartRow(rowKey(bucket, 0))
                                .withStopRow(rowKey(bucket, txIdBelow)).addFamily(FAMILY));
                    }
                    Result row = scanner.next();
                    if (row == null) {
                        scanner.close();
                        scanner = null;
                    } else {
                        next = committedEntry(row);
                    }
                }
                return true;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot scan the commit table " + name, e);
            }
        }

        @Override
        public CommittedEntry next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            CommittedEntry entry = next;
            next = null;
            return entry;
        }

        void close() {
            if (scanner != null) {
                scanner.close();
            }
            try {
                table.close();
            } catch (IOException e) {
                LOG.debug("Closing the commit table {} after a scan", name, e);
            }
        }
    }

    /** The entry of a row, or null for a row that is not a committed entry. */
    private CommittedEntry committedEntry(Result row) {
        byte[] commit = row.getValue(FAMILY, COMMIT_QUALIFIER);
        if (row.getRow().length != ROW_KEY_LENGTH || commit == null || row.containsColumn(FAMILY, INVALID_QUALIFIER)) {
            return null;
        }
        long txId = txIdOfRowKey(row.getRow());
        try {
            return new CommittedEntry(txId, decodeCommitTimestamp(txId, commit),
                    row.getValue(FAMILY, RECOVERY_QUALIFIER));
        } catch (IOException e) {
            // Corrupt bytes in one entry must not hide the others; readers meet the same error on this one.
            LOG.warn("The commit-table entry of transaction {} in {} holds an unreadable commit timestamp; skipped",
                    txId, name, e);
            return null;
        }
    }

    static byte[] encodeCommitTimestamp(long txId, long commitTs) throws IOException {
        if (commitTs <= txId) {
            throw new IllegalArgumentException("Commit timestamp " + commitTs + " not after start " + txId);
        }
        long delta = commitTs - txId;
        byte[] out = new byte[CodedOutputStream.computeInt64SizeNoTag(delta)];
        CodedOutputStream stream = CodedOutputStream.newInstance(out);
        stream.writeInt64NoTag(delta);
        stream.flush();
        return out;
    }

    static long decodeCommitTimestamp(long txId, byte[] value) throws IOException {
        return txId + CodedInputStream.newInstance(value).readInt64();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
