package io.phoenixtxn.history.record;

import io.phoenixtxn.history.Event;

/**
 * Where a {@link Recorder} sends each event as it records it, under its lock and before the call returns: a history
 * file written event by event ({@link HistoryFile#appender}) survives its JVM being killed with everything recorded
 * up to the kill. A sink that cannot take an event throws (unchecked): a history that silently lost an event would
 * be checked as if it were whole.
 */
@FunctionalInterface
public interface EventSink {
    EventSink NONE = event -> { };

    void accept(Event event);
}
