package io.phoenixtxn.phoenix;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Not a driver of its own: a {@code java.sql.Driver} service entry whose class initialisation takes Phoenix's OMID
 * slot ({@link ProviderSlot}). DriverManager initialises every service-listed driver before it opens the first
 * connection, so a client with our jar on its classpath never reaches another provider. Accepts no URL.
 */
public final class PhoenixTxnDriverHook implements Driver {
    static {
        ProviderSlot.install();
    }

    @Override
    public Connection connect(String url, Properties info) {
        return null;
    }

    @Override
    public boolean acceptsURL(String url) {
        return false;
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 0;
    }

    @Override
    public int getMinorVersion() {
        return 1;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("phoenix-txn's driver hook does not log through java.util.logging");
    }
}
