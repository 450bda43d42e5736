package io.phoenixtxn.client;

import io.phoenixtxn.snapshot.TimestampLayout;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.protobuf.CodedInputStream;
import org.apache.hbase.thirdparty.com.google.protobuf.CodedOutputStream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The commit table in HBase, byte-compatible with Apache Omid 1.1's {@code OMID_COMMIT_TABLE}: row key = bucket
 * byte ({@code txId & 0x0F}) + 8-byte big-endian transaction id; family {@code F}; qualifier {@code C} = varint of
 * (commitTs - txId); qualifier {@code IT} = invalid marker (int 1); cell version = transaction id. An invalid
 * marker wins over a commit value, so a late commit write can never resurrect an invalidated transaction.
 */
public final class HBaseCommitTable implements CommitTable {
    public static final String DEFAULT_NAME = "OMID_COMMIT_TABLE";
    public static final byte[] FAMILY = bytes("F");
    public static final byte[] LOW_WATERMARK_FAMILY = bytes("LWF");
    public static final byte[] COMMIT_QUALIFIER = bytes("C");
    public static final byte[] INVALID_QUALIFIER = bytes("IT");
    /** Our addition (ignored by Omid): where the transaction's cells are, for crash recovery. */
    public static final byte[] RECOVERY_QUALIFIER = bytes("R");
    public static final byte[] INVALID_VALUE = Bytes.toBytes(1);

    private final Connection connection;
    private final TableName name;

    public HBaseCommitTable(Connection connection, TableName name) {
        this.connection = connection;
        this.name = name;
    }

    public TableName name() {
        return name;
    }

    public static byte[] rowKey(long txId) {
        byte[] key = new byte[9];
        key[0] = (byte) (txId & 0x0F);
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
        try (Table table = connection.getTable(name)) {
            return table.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(FAMILY, INVALID_QUALIFIER)
                    .build(put)).isSuccess();
        }
    }

    @Override
    public Entry lookup(long txId) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        Get get = new Get(rowKey(txId)).addColumn(FAMILY, COMMIT_QUALIFIER).addColumn(FAMILY, INVALID_QUALIFIER);
        Result result;
        try (Table table = connection.getTable(name)) {
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
        try (Table table = connection.getTable(name)) {
            return table.get(new Get(rowKey(txId)).addColumn(FAMILY, RECOVERY_QUALIFIER))
                    .getValue(FAMILY, RECOVERY_QUALIFIER);
        }
    }

    @Override
    public boolean tryInvalidate(long txId) throws IOException {
        txId = TimestampLayout.txIdOf(txId);
        byte[] row = rowKey(txId);
        Put put = new Put(row, txId).addColumn(FAMILY, INVALID_QUALIFIER, INVALID_VALUE);
        try (Table table = connection.getTable(name)) {
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
        try (Table table = connection.getTable(name)) {
            table.delete(new Delete(rowKey(txId), txId));
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
