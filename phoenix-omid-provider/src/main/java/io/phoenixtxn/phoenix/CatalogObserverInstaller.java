package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * Puts {@link CatalogProviderObserver} on SYSTEM.CATALOG: a modifyTable of the catalog that adds it and keeps
 * everything else (Phoenix's own coprocessors included; Phoenix's connection set-up starts from the descriptor as it
 * is, so it keeps ours too). Run inside Phoenix's {@code ALTER TABLE ... SET TRANSACTIONAL=true}, before its catalog
 * write ({@link AlterSwitches}): {@link Admin#modifyTable} returns once every catalog region reopened with the
 * observer, so the write that follows passes through it. Each such ALTER reads the catalog's descriptor (one master
 * call; the observer is found again if someone removed it); a cluster that never makes a table transactional this way
 * is never touched. Like every transactional table's observer, the class must be on every master's and region
 * server's classpath (docs/deployment.md): a region server that cannot load a table coprocessor aborts.
 */
final class CatalogObserverInstaller {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogObserverInstaller.class);
    static final String OBSERVER = CatalogProviderObserver.class.getName();

    /** What installing needs of HBase; a seam for tests. */
    interface Catalog {
        TableName name();

        TableDescriptor descriptor() throws IOException;

        void modify(TableDescriptor descriptor) throws IOException;
    }

    private CatalogObserverInstaller() {
    }

    /** Makes sure the catalog runs the observer; returns whether this call installed it. */
    static boolean ensure(Catalog catalog, int priority) throws IOException {
        synchronized (CatalogObserverInstaller.class) { // two ALTERs of one JVM install it once
            TableDescriptor current = catalog.descriptor();
            if (current.hasCoprocessor(OBSERVER)) {
                return false;
            }
            catalog.modify(TableDescriptorBuilder.newBuilder(current)
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(OBSERVER).setPriority(priority).build())
                    .build());
            LOG.info("Installed {} on {}: Phoenix's ALTER TABLE ... SET TRANSACTIONAL=true leaves the indexes of the"
                    + " table without a transaction provider, which the observer adds as the catalog is written",
                    OBSERVER, catalog.name());
            return true;
        }
    }

    /** The catalog through an HBase Admin. */
    static Catalog of(org.apache.hadoop.hbase.client.Connection connection, TableName catalog) {
        return new Catalog() {
            @Override
            public TableName name() {
                return catalog;
            }

            @Override
            public TableDescriptor descriptor() throws IOException {
                try (Admin admin = connection.getAdmin()) {
                    return admin.getDescriptor(catalog);
                }
            }

            @Override
            public void modify(TableDescriptor descriptor) throws IOException {
                try (Admin admin = connection.getAdmin()) {
                    admin.modifyTable(descriptor);
                }
            }
        };
    }
}
