package io.phoenixtxn.history.workload;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Where a client gets a connection: any JDBC URL (a chaos run against a cluster), or a test's own factory (the
 * minicluster's two Phoenix connection services). Each client thread holds its own connection.
 */
@FunctionalInterface
public interface ConnectionSource {
    Connection open() throws SQLException;

    /**
     * A JDBC URL with properties; {@code phoenix.transactions.enabled=true} is added unless the properties say
     * otherwise (Phoenix reads it on the client to allow transactional tables).
     */
    static ConnectionSource jdbc(String url, Properties properties) {
        Properties props = new Properties();
        props.putAll(properties);
        props.putIfAbsent("phoenix.transactions.enabled", "true");
        return new ConnectionSource() {
            @Override
            public Connection open() throws SQLException {
                return DriverManager.getConnection(url, props);
            }

            @Override
            public String toString() {
                return url;
            }
        };
    }
}
