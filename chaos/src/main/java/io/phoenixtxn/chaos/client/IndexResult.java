package io.phoenixtxn.chaos.client;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;

/**
 * What the index client did ({@link IndexDdl}), as properties: per step ({@code create}, {@code check1},
 * {@code check2}, {@code drop}) its start and end on the run's clock, its error, and for checks the rows compared and
 * any difference found. Written to a temporary file and renamed, so the driver never reads half of it.
 */
public final class IndexResult {
    private final Properties values = new Properties();

    void put(String name, Object value) {
        values.setProperty(name, String.valueOf(value));
    }

    public String get(String name) {
        return values.getProperty(name);
    }

    /** A run-clock time recorded under {@code name}, or {@code otherwise}. */
    public long time(String name, long otherwise) {
        String v = values.getProperty(name);
        return v == null ? otherwise : Long.parseLong(v);
    }

    void write(Path file) throws IOException {
        StringWriter text = new StringWriter();
        values.store(text, "index fault of the chaos driver");
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text.toString(), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }

    public static IndexResult read(Path file) throws IOException {
        IndexResult r = new IndexResult();
        r.values.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        return r;
    }
}
