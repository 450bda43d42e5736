package io.phoenixtxn.chaos.client;

import io.phoenixtxn.history.Mop;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * What a client JVM wrote just before halting itself ({@link HaltSwitch}): the point, the transaction (id and commit
 * timestamp), when (nanoseconds after the run's origin, the clock of the histories) and the operation the halting
 * thread was running, so the driver can later check that exactly its writes are absent (halted after the TM's
 * decision) or present (after the commit point) in the final read.
 *
 * <p>Written to a temporary file and renamed into place: the driver never reads half a record.
 */
public record HaltRecord(HaltPoint point, long txId, long commitTs, long timeNanos, String function, List<Mop> value) {
    public HaltRecord {
        value = List.copyOf(value);
    }

    public void write(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("point", point.wireName());
        p.setProperty("txId", Long.toString(txId));
        p.setProperty("commitTs", Long.toString(commitTs));
        p.setProperty("timeNanos", Long.toString(timeNanos));
        p.setProperty("function", function);
        p.setProperty("value", encode(value));
        StringWriter text = new StringWriter();
        p.store(text, "client JVM halted by the chaos driver's halt switch");
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text.toString(), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }

    public static HaltRecord read(Path file) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        try {
            return new HaltRecord(HaltPoint.parse(p.getProperty("point")), Long.parseLong(p.getProperty("txId")),
                    Long.parseLong(p.getProperty("commitTs")), Long.parseLong(p.getProperty("timeNanos")),
                    p.getProperty("function"), decode(p.getProperty("value")));
        } catch (RuntimeException e) {
            throw new IOException(file + " is not a halt record: " + e.getMessage(), e);
        }
    }

    /** {@code f key value} per micro-op, ';' between them; a value is '-', a number or numbers joined by ','. */
    static String encode(List<Mop> mops) {
        List<String> parts = new ArrayList<>();
        for (Mop m : mops) {
            String v;
            if (m.value() == null) {
                v = "-";
            } else if (m.value() instanceof Long n) {
                v = Long.toString(n);
            } else {
                List<String> items = new ArrayList<>();
                m.list().forEach(x -> items.add(Long.toString(x)));
                v = "[" + String.join(",", items) + "]";
            }
            parts.add(m.f() + " " + m.key() + " " + v);
        }
        return String.join(";", parts);
    }

    static List<Mop> decode(String text) {
        List<Mop> mops = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return mops;
        }
        for (String part : text.split(";")) {
            String[] f = part.split(" ", 3);
            Object value;
            if (f[2].equals("-")) {
                value = null;
            } else if (f[2].startsWith("[")) {
                List<Long> list = new ArrayList<>();
                String inner = f[2].substring(1, f[2].length() - 1);
                if (!inner.isEmpty()) {
                    for (String x : inner.split(",")) {
                        list.add(Long.parseLong(x));
                    }
                }
                value = list;
            } else {
                value = Long.parseLong(f[2]);
            }
            mops.add(new Mop(f[0], Long.parseLong(f[1]), value));
        }
        return mops;
    }
}
