package io.phoenixtxn.tm;

import io.netty.handler.ssl.SslContext;

import java.io.File;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * Parses hbase-site.xml-style configuration values for every config class of phoenix-txn; every failure names the
 * key, the bad value and what would be accepted.
 */
public final class ConfigValues {
    private ConfigValues() {
    }

    public static String string(Function<String, String> lookup, String key, String dflt) {
        String raw = lookup.apply(key);
        return raw == null || raw.isBlank() ? dflt : raw.trim();
    }

    public static long number(Function<String, String> lookup, String key, long dflt, long min, long max) {
        String raw = lookup.apply(key);
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        long value;
        try {
            value = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "='" + raw + "' is not a number; remove it to use the default "
                    + dflt, e);
        }
        return checkRange(key, value, min, max);
    }

    public static long checkRange(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + "=" + value + " is out of range; use a value in [" + min
                    + ", " + max + "]");
        }
        return value;
    }

    public static boolean bool(Function<String, String> lookup, String key, boolean dflt) {
        String raw = string(lookup, key, null);
        if (raw == null) {
            return dflt;
        }
        if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(raw);
        }
        throw new IllegalArgumentException(key + "='" + raw + "' is not true or false");
    }

    /** An existing, readable file named by {@code key}. */
    public static File readableFile(String key, String path) {
        File file = new File(path);
        if (!file.isFile() || !file.canRead()) {
            throw new IllegalArgumentException(key + "=" + path + " is not a readable file");
        }
        return file;
    }

    /** Builds an SslContext, turning the checked SSLException into a configuration error naming the keys. */
    public static SslContext tls(String keys, SslBuild build) {
        try {
            return build.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("Cannot set up TLS from " + keys + ": " + e.getMessage()
                    + "; use PEM files (X.509 certificate chain, unencrypted PKCS#8 private key)", e);
        }
    }

    @FunctionalInterface
    public interface SslBuild {
        SslContext build() throws SSLException;
    }

    /** Default I/O threads: a few are enough, the work per frame is tiny. */
    public static int defaultThreads(int cap) {
        return Math.max(1, Math.min(cap, Runtime.getRuntime().availableProcessors()));
    }
}
