package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.util.Bytes;

/**
 * One column of a fast-path write: family, qualifier and value. An empty value deletes the column (a tombstone, as in
 * every transactional write); an empty qualifier with an empty value deletes the family (the family-delete marker).
 */
public record ColumnValue(byte[] family, byte[] qualifier, byte[] value) {

    /** True when this column value deletes (a tombstone or a family-delete marker). */
    public boolean isDelete() {
        return value.length == 0;
    }

    @Override
    public String toString() {
        return Bytes.toStringBinary(family) + ":" + Bytes.toStringBinary(qualifier) + "="
                + (isDelete() ? "(delete)" : Bytes.toStringBinary(value));
    }
}
