package io.phoenixtxn.it.index;

import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.schema.PMetaData;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableKey;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Fault hook for Phoenix's client metadata cache: evicts one entry the way its size bound does (Guava's
 * {@code Cache.invalidate} of that key alone, leaving every other entry, including the data table that lists an
 * evicted index). Phoenix has no API for it ({@code removeTable} also fixes the parent's index list), hence the
 * reflection into {@code PMetaDataImpl.metaData.tables}.
 */
final class MetadataCacheFaults {
    private MetadataCacheFaults() {
    }

    static void evict(Connection connection, String tableName) throws Exception {
        PMetaData cache = connection.unwrap(PhoenixConnection.class).getQueryServices().getMetaDataCache();
        Object inner = field(cache, "metaData");
        Object tables = field(inner, "tables");
        PTableKey key = new PTableKey(null, tableName);
        ((org.apache.phoenix.thirdparty.com.google.common.cache.Cache<?, ?>) tables).invalidate(key);
        if (isCached(connection, tableName)) {
            throw new IllegalStateException(tableName + " is still cached after the eviction");
        }
    }

    /** Whether the connection's service caches {@code tableName} as an entry of its own (no server call). */
    static boolean isCached(Connection connection, String tableName) throws SQLException {
        for (PTable t : connection.unwrap(PhoenixConnection.class).getQueryServices().getMetaDataCache()) {
            if (t.getName().getString().equals(tableName)) {
                return true;
            }
        }
        return false;
    }

    /** The index names {@code tableName}'s cached entry lists, or null when it is not cached. */
    static java.util.List<String> cachedIndexesOf(Connection connection, String tableName) throws SQLException {
        for (PTable t : connection.unwrap(PhoenixConnection.class).getQueryServices().getMetaDataCache()) {
            if (t.getName().getString().equals(tableName)) {
                java.util.List<String> names = new java.util.ArrayList<>();
                for (PTable index : t.getIndexes()) {
                    names.add(index.getName().getString());
                }
                return names;
            }
        }
        return null;
    }

    private static Object field(Object owner, String name) throws ReflectiveOperationException {
        Field f = owner.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(owner);
    }
}
