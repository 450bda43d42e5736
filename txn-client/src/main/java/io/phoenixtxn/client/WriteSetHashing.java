package io.phoenixtxn.client;

import org.apache.hbase.thirdparty.com.google.common.hash.HashFunction;
import org.apache.hbase.thirdparty.com.google.common.hash.Hashing;

/**
 * 64-bit ids the TM sees instead of keys (as Apache Omid: murmur3_128 of table and row). Row-level conflicts, as
 * Phoenix needs. The table name is the HBase name as a string ("ns:table", or "table" in the default namespace),
 * which is also what Phoenix's physical table name gives for a fence.
 */
public final class WriteSetHashing {
    private static final HashFunction MURMUR = Hashing.murmur3_128();

    private WriteSetHashing() {
    }

    public static long rowId(byte[] tableName, byte[] row) {
        return MURMUR.newHasher().putBytes(tableName).putBytes(row).hash().asLong();
    }

    public static long tableId(byte[] tableName) {
        return MURMUR.hashBytes(tableName).asLong();
    }
}
