package io.phoenixtxn.coprocessor;

import io.phoenixtxn.client.OnDiskLayout;
import org.apache.hadoop.hbase.util.Bytes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;

/**
 * A read that names columns must also fetch what decides their visibility: each column's commit cells, and the
 * family-delete marker (with its commit cell) of each named family. Otherwise a row deleted by a family delete
 * would still show its named columns (Phoenix's COUNT(*) reads only the empty key value column). The filter hides
 * these extra cells again, so callers see exactly the columns they asked for.
 */
final class ReadColumns {
    private ReadColumns() {
    }

    /** Adds the visibility columns in place; families read whole are left alone. */
    static void widen(Map<byte[], NavigableSet<byte[]>> familyMap) {
        for (Map.Entry<byte[], NavigableSet<byte[]>> family : familyMap.entrySet()) {
            NavigableSet<byte[]> qualifiers = family.getValue();
            if (qualifiers == null || qualifiers.isEmpty()) {
                continue;
            }
            List<byte[]> extra = new ArrayList<>(qualifiers.size() + 2);
            for (byte[] qualifier : qualifiers) {
                if (!OnDiskLayout.isCommitQualifier(qualifier, 0, qualifier.length)) {
                    extra.add(OnDiskLayout.commitQualifier(qualifier));
                }
            }
            extra.add(OnDiskLayout.FAMILY_DELETE_QUALIFIER);
            extra.add(OnDiskLayout.commitQualifier(OnDiskLayout.FAMILY_DELETE_QUALIFIER));
            for (byte[] q : extra) {
                if (!qualifiers.contains(q)) {
                    qualifiers.add(q);
                }
            }
        }
    }

    static String describe(byte[] qualifier) {
        return Bytes.toStringBinary(qualifier);
    }
}
