package io.phoenixtxn.history.record;

import io.phoenixtxn.history.Event;
import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.OpType;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
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
        List<Event> events = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
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
            return History.of(events);
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
