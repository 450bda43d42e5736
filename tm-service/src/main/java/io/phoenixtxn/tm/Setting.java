package io.phoenixtxn.tm;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One configuration key of phoenix-txn, declared once in {@link TxnSettings}: its name, default, bounds, the
 * components that read it and its one-paragraph documentation (the README's configuration table is generated from
 * these). {@link #get} reads it from any key lookup (a Hadoop {@code Configuration} as {@code conf::get},
 * {@code Properties::getProperty}, {@code System::getProperty}); a bad value fails with an
 * {@link IllegalArgumentException} naming the key, the value and what is allowed.
 *
 * <p>Invariant: a setting's default is within its own bounds (checked at declaration), so an absent key never fails.
 *
 * @param <T> {@code Long} for numbers, {@code String} for texts and choices, {@code Boolean} for flags
 */
public final class Setting<T> {
    /** Which process reads a key: the README's "read by" column. */
    public enum Reader {
        TM("TM"), CLIENT("client"), RS("RS"), LAUNCHER("launcher");

        private final String label;

        Reader(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** Parses a non-blank raw value (already trimmed) of {@code key}; fails naming the key. */
    @FunctionalInterface
    private interface Parser<T> {
        T parse(String key, String raw);
    }

    private final TxnSettings.Group group;
    private final String key;
    private final String where;
    private final Supplier<T> dflt;
    private final String shownDefault;
    private final long min;
    private final long max;
    private final List<Reader> readers;
    private final String doc;
    private final Parser<T> parser;

    private Setting(TxnSettings.Group group, String key, String where, Supplier<T> dflt, String shownDefault,
                    long min, long max, List<Reader> readers, String doc, Parser<T> parser) {
        this.group = group;
        this.key = key;
        this.where = where;
        this.dflt = dflt;
        this.shownDefault = shownDefault;
        this.min = min;
        this.max = max;
        this.readers = readers;
        this.doc = doc;
        this.parser = parser;
    }

    /** A whole number in {@code [min, max]}. */
    static Setting<Long> number(TxnSettings.Group group, String key, long dflt, long min, long max, String doc,
                                Reader... readers) {
        if (dflt < min || dflt > max) {
            throw new IllegalStateException(key + ": default " + dflt + " outside [" + min + ", " + max + "]");
        }
        return new Setting<>(group, key, null, () -> dflt, Long.toString(dflt), min, max, List.of(readers), doc,
                (k, raw) -> {
                    long value;
                    try {
                        value = Long.parseLong(raw);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(k + "='" + raw + "' is not a number; use a whole number"
                                + " in [" + min + ", " + max + "], or remove it to use the default " + dflt, e);
                    }
                    return ConfigValues.checkRange(k, value, min, max);
                });
    }

    /** Free text (a host, a path, a table name); blank counts as absent. {@code dflt} may be null (unset). */
    static Setting<String> text(TxnSettings.Group group, String key, String dflt, String doc, Reader... readers) {
        return new Setting<>(group, key, null, () -> dflt, dflt == null ? "unset" : "`" + dflt + "`", 0, 0,
                List.of(readers), doc, (k, raw) -> raw);
    }

    /** {@code true} or {@code false}, any case. */
    static Setting<Boolean> flag(TxnSettings.Group group, String key, boolean dflt, String doc, Reader... readers) {
        return new Setting<>(group, key, null, () -> dflt, "`" + dflt + "`", 0, 0, List.of(readers), doc,
                (k, raw) -> {
                    if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
                        return Boolean.parseBoolean(raw);
                    }
                    throw new IllegalArgumentException(k + "='" + raw + "' is not true or false");
                });
    }

    /** One of {@code choices} (any case); answers it in lower case. */
    static Setting<String> choice(TxnSettings.Group group, String key, String dflt, List<String> choices,
                                  String doc, Reader... readers) {
        if (!choices.contains(dflt)) {
            throw new IllegalStateException(key + ": default " + dflt + " is not one of " + choices);
        }
        return new Setting<>(group, key, null, () -> dflt, "`" + dflt + "`", 0, 0, List.of(readers), doc,
                (k, raw) -> {
                    String value = raw.toLowerCase(Locale.ROOT);
                    if (!choices.contains(value)) {
                        throw new IllegalArgumentException(k + "='" + raw + "' is not one of "
                                + String.join(", ", choices));
                    }
                    return value;
                });
    }

    /** The same setting whose default is computed when read (e.g. from the number of cores), shown as {@code text}. */
    Setting<T> computedDefault(Supplier<T> computed, String text) {
        return new Setting<>(group, key, where, computed, text, min, max, readers, doc, parser);
    }

    /** The same setting with its default shown as {@code text} in the README (e.g. "HBase's quorum"). */
    Setting<T> shownAs(String text) {
        return new Setting<>(group, key, where, dflt, text, min, max, readers, doc, parser);
    }

    /** The same setting, read from somewhere other than hbase-site.xml (a JVM system property, a table attribute). */
    Setting<T> readFrom(String channel) {
        return new Setting<>(group, key, channel, dflt, shownDefault, min, max, readers, doc, parser);
    }

    /** The value {@code lookup} gives this key (trimmed), or the default when it gives null or blank. */
    public T get(Function<String, String> lookup) {
        String raw = lookup.apply(key);
        if (raw == null || raw.isBlank()) {
            return dflt.get();
        }
        return parser.parse(key, raw.trim());
    }

    /** Checks a value set in code (a {@code with*} method) against this setting's bounds. */
    public long check(long value) {
        return ConfigValues.checkRange(key, value, min, max);
    }

    public String key() {
        return key;
    }

    public T defaultValue() {
        return dflt.get();
    }

    public long min() {
        return min;
    }

    public long max() {
        return max;
    }

    public List<Reader> readers() {
        return readers;
    }

    public String doc() {
        return doc;
    }

    TxnSettings.Group group() {
        return group;
    }

    /** One row of the README's configuration table. */
    String tableRow() {
        String keyCell = "`" + key + "`" + (where == null ? "" : " (" + where + ")");
        String readBy = readers.stream().map(Reader::toString).collect(Collectors.joining(", "));
        return "| " + keyCell + " | " + shownDefault + " | " + readBy + " | " + doc + " |";
    }

    @Override
    public String toString() {
        return key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Setting<?> other && other.key.equals(key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key);
    }
}
