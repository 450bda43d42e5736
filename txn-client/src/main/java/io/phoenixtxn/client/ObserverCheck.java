package io.phoenixtxn.client;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;

import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refuses to read or write a table without a phoenix-txn region observer: there a transactional read would see
 * uncommitted data, and a fast-path write would be applied by HBase as the plain increment that carries it. Checked
 * once per table name and JVM.
 */
public final class ObserverCheck {
    private static final Set<TableName> VERIFIED_TABLES = ConcurrentHashMap.newKeySet();

    private ObserverCheck() {
    }

    public static void verify(Table table) throws IOException {
        TableName name = table.getName();
        if (VERIFIED_TABLES.contains(name)) {
            return;
        }
        TableDescriptor descriptor = table.getDescriptor();
        for (String observer : ObserverNames.ALL) {
            if (descriptor.hasCoprocessor(observer)) {
                VERIFIED_TABLES.add(name);
                return;
            }
        }
        throw new IOException("Table " + name + " has no phoenix-txn region observer, so a transactional read would"
                + " see uncommitted data. Create it as TRANSACTIONAL=true through Phoenix, or add coprocessor "
                + ObserverNames.SNAPSHOT_READ_OBSERVER + " to its descriptor. Coprocessors present: "
                + Arrays.toString(descriptor.getCoprocessorDescriptors().stream().map(c -> c.getClassName())
                .toArray()));
    }
}
