package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

import java.io.IOException;

/**
 * The table-level switch of the fast path: the table descriptor attribute {@code phoenix.txn.fastpath}. The fast path is
 * opt-in: region servers refuse every fast-path write with {@link FastPathAbortedException.Reason#FENCED} unless the
 * attribute is exactly "true", because fast-path writes maintain no index and a table (a Phoenix table above all) may
 * have indexes the region server knows nothing of. A table about to get an index disables it before its index fence
 * is drawn ({@code PhoenixTxnContext.commitDDLFence}; design.md sec. 4.4).
 * {@link Admin#modifyTable} reopens every region of the table before it returns, so once {@link #disable} returns,
 * no region serves a fast-path write any more, and every one it served before drew its version below any timestamp
 * the TM issues afterwards (the index fence among them).
 */
public final class FastPathSwitch {
    /** Descriptor attribute; "true" enables the fast path. Absent or anything else: disabled. */
    public static final String ATTRIBUTE = io.phoenixtxn.tm.TxnSettings.FASTPATH_TABLE_ATTRIBUTE.key();

    private FastPathSwitch() {
    }

    /** Disables the fast path on every region of {@code table}; returns once they all refuse it. Idempotent. */
    public static void disable(Admin admin, TableName table) throws IOException {
        set(admin, table, false);
    }

    /**
     * Enables it (the table has no index, and none is being built). Idempotent. HBase-level: it cannot see Phoenix's
     * metadata, so a Phoenix table's fast path is turned on with {@code io.phoenixtxn.phoenix.PhoenixFastPath.enable},
     * which refuses a table with an index.
     */
    public static void enable(Admin admin, TableName table) throws IOException {
        set(admin, table, true);
    }

    public static boolean isEnabled(TableDescriptor descriptor) {
        return "true".equals(descriptor.getValue(ATTRIBUTE));
    }

    private static void set(Admin admin, TableName table, boolean enabled) throws IOException {
        TableDescriptor current = admin.getDescriptor(table);
        if (isEnabled(current) == enabled) {
            return;
        }
        TableDescriptorBuilder changed = TableDescriptorBuilder.newBuilder(current);
        if (enabled) {
            changed.setValue(ATTRIBUTE, "true");
        } else {
            changed.removeValue(ATTRIBUTE);
        }
        admin.modifyTable(changed.build());
    }
}
