package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

import java.io.IOException;

/** Creates the commit table when it does not exist (Omid needs a separate tool for this; we do it on first use). */
public final class CommitTableAdmin {
    private CommitTableAdmin() {
    }

    /**
     * Ensures the table exists. {@code regions > 1} pre-splits on the bucket byte so concurrent commits spread over
     * the even buckets that transaction ids use.
     */
    public static void ensureExists(Admin admin, TableName name, int regions) throws IOException {
        if (admin.tableExists(name)) {
            return;
        }
        TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(name)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(HBaseCommitTable.FAMILY).setMaxVersions(1)
                        .setInMemory(true).build())
                .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(HBaseCommitTable.LOW_WATERMARK_FAMILY)
                        .setMaxVersions(1).setInMemory(true).build());
        try {
            if (regions > 1) {
                byte[][] splits = new byte[Math.min(regions, 16) - 1][];
                for (int i = 0; i < splits.length; i++) {
                    splits[i] = new byte[] {(byte) ((i + 1) * 16 / (splits.length + 1))};
                }
                admin.createTable(table.build(), splits);
            } else {
                admin.createTable(table.build());
            }
        } catch (TableExistsException raced) {
            // another client created it first: fine
        }
    }
}
