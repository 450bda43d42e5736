package io.phoenixtxn.bench.index;

import io.phoenixtxn.stack.EmbeddedStack;
import org.apache.hadoop.conf.Configuration;
import org.apache.phoenix.jdbc.PhoenixConnection;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * What the index benchmarks need from a cluster: Phoenix connections, an HBase connection (flushes, region
 * metrics, the commit table) and the client's configuration. Either the embedded stack (one JVM) or a cluster
 * reached only by its JDBC URL, e.g. the processes of {@code bin/phoenix-txn-cluster}, so the client's own heap
 * can be measured apart from the servers'.
 */
interface BenchCluster {
    Connection connect() throws SQLException;

    org.apache.hadoop.hbase.client.Connection hbase() throws IOException;

    Configuration configuration();

    static BenchCluster embedded(EmbeddedStack stack) {
        return new BenchCluster() {
            @Override
            public Connection connect() throws SQLException {
                return stack.connect();
            }

            @Override
            public org.apache.hadoop.hbase.client.Connection hbase() throws IOException {
                return stack.hbase().getConnection();
            }

            @Override
            public Configuration configuration() {
                return stack.configuration();
            }
        };
    }

    /**
     * A cluster reached by its Phoenix JDBC URL. The HBase connection is the one Phoenix's client holds for that URL
     * (shared, never closed here), and the configuration is that client's.
     */
    static BenchCluster remote(String jdbcUrl) throws SQLException {
        Connection first = DriverManager.getConnection(jdbcUrl);
        PhoenixConnection phoenix = first.unwrap(PhoenixConnection.class);
        Configuration configuration = phoenix.getQueryServices().getConfiguration();
        org.apache.hadoop.hbase.client.Connection hbase;
        try {
            hbase = org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(configuration);
        } catch (IOException e) {
            throw new SQLException("no HBase connection for " + jdbcUrl + ": " + e, e);
        } finally {
            first.close();
        }
        return new BenchCluster() {
            @Override
            public Connection connect() throws SQLException {
                return DriverManager.getConnection(jdbcUrl);
            }

            @Override
            public org.apache.hadoop.hbase.client.Connection hbase() {
                return hbase;
            }

            @Override
            public Configuration configuration() {
                return configuration;
            }
        };
    }
}
