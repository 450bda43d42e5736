package io.phoenixtxn.history.record;

import io.phoenixtxn.history.Event;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.OpType;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Histories on disk as JSON lines, one event per line, so a history can be appended, grepped, cut and read by other
 * tools:
 *
 * <pre>{"index":4,"type":"ok","process":1,"f":"txn","time":812345,"value":[["r",3,[1,2]],["append",3,9]]}
 * {"index":5,"type":"info","process":2,"f":"txn","time":913000,"value":[["append",4,10]],"error":"..."}</pre>
 *
 * A micro-op is {@code [f, key, value]} with value null, an integer or a list of integers. Reading checks every
 * line and names the line of the first error.
 *
 * <p>A history can also be written as it is recorded ({@link #appender}): each event is one {@code write} of its
 * whole line, so a JVM killed with -9 leaves every event recorded before the kill, and at most its last line torn.
 * {@link #readWritten} reads such a file: a torn last line (no newline) is dropped, which loses nothing a checker
 * may rely on: a lost invocation had not started its operation, and a lost completion leaves its operation in
 * flight, that is unknown.
 */
public final class HistoryFile {
    private HistoryFile() {
    }

    public static void write(History history, Path file) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Event e : history.events()) {
                w.write(line(e));
                w.write('\n');
            }
        }
    }

    public static History read(Path file) throws IOException {
        return read(file, false).history();
    }

    /** A history read from a file its writer may have left with a torn last line. */
    public record Partial(History history, boolean tornTail) {
    }

    /** Reads a history written by an {@link #appender} whose JVM may have died: a torn last line is dropped. */
    public static Partial readWritten(Path file) throws IOException {
        return read(file, true);
    }

    /** Writes events as they come, appending to {@code file} (created if absent); one flushed write per event. */
    public static Appender appender(Path file) throws IOException {
        return new Appender(Files.newOutputStream(file, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.WRITE));
    }

    /** An {@link EventSink} writing one line per event straight to the file (no buffer a kill could lose). */
    public static final class Appender implements EventSink, Closeable {
        private final OutputStream out;

        private Appender(OutputStream out) {
            this.out = out;
        }

        @Override
        public synchronized void accept(Event event) {
            try {
                out.write((line(event) + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write history event " + event.index(), e);
            }
        }

        @Override
        public synchronized void close() throws IOException {
            out.close();
        }
    }

    private static Partial read(Path file, boolean tolerateTornTail) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        boolean torn = false;
        if (tolerateTornTail && !text.isEmpty() && !text.endsWith("\n")) {
            text = text.substring(0, text.lastIndexOf('\n') + 1);
            torn = true;
        }
        List<Event> events = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new java.io.StringReader(text))) {
            String line;
            int number = 0;
            while ((line = r.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    events.add(event(line));
                } catch (RuntimeException e) {
                    throw new IOException(file + " line " + number + ": " + e.getMessage(), e);
                }
            }
        }
        try {
            return new Partial(History.of(events), torn);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": not a well-formed history: " + e.getMessage(), e);
        }
    }

    static String line(Event e) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("index", e.index());
        map.put("type", e.type().wireName());
        map.put("process", e.process());
        map.put("f", e.f());
        map.put("time", e.time());
        List<Object> mops = new ArrayList<>();
        for (Mop m : e.value()) {
            mops.add(java.util.Arrays.asList(m.f(), m.key(), m.value()));
        }
        map.put("value", mops);
        if (e.error() != null) {
            map.put("error", e.error());
        }
        return Json.write(map);
    }

    /** One line of a history file as an event (a tool following a file as it grows reads it line by line). */
    public static Event parseEvent(String line) {
        return event(line);
    }

    @SuppressWarnings("unchecked")
    static Event event(String line) {
        Object parsed = Json.parse(line);
        if (!(parsed instanceof Map)) {
            throw new IllegalArgumentException("an event is a JSON object");
        }
        Map<String, Object> map = (Map<String, Object>) parsed;
        List<Mop> value = new ArrayList<>();
        Object rawValue = map.get("value");
        if (rawValue != null) {
            for (Object m : (List<Object>) rawValue) {
                List<Object> triple = (List<Object>) m;
                if (triple.size() != 3) {
                    throw new IllegalArgumentException("a micro-op is [f, key, value], got " + triple);
                }
                value.add(new Mop((String) triple.get(0), (Long) triple.get(1), triple.get(2)));
            }
        }
        return new Event(Math.toIntExact(number(map, "index")), OpType.fromWireName((String) require(map, "type")),
                Math.toIntExact(number(map, "process")), (String) require(map, "f"), number(map, "time"), value,
                (String) map.get("error"));
    }

    private static Object require(Map<String, Object> map, String key) {
        Object v = map.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing \"" + key + "\"");
        }
        return v;
    }

    private static long number(Map<String, Object> map, String key) {
        Object v = require(map, key);
        if (!(v instanceof Long)) {
            throw new IllegalArgumentException("\"" + key + "\" is not an integer: " + v);
        }
        return (Long) v;
    }
}
