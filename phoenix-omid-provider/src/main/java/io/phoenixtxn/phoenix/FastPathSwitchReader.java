package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;

import java.io.IOException;

/**
 * Reads a table's fast-path switch ({@code FastPathSwitch}, a table descriptor attribute) from the master. The seam
 * of {@link FastPathSwitchCache}: production reads through a bounded Admin ({@link BoundedAdminSwitchReader}), tests
 * inject readers that fail or hang. A reader may block or throw; the cache bounds the wait and treats both as
 * "unknown".
 */
@FunctionalInterface
interface FastPathSwitchReader {
    /** True if the table's descriptor has the fast path on. */
    boolean read(TableName table) throws IOException;
}
