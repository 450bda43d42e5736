package io.phoenixtxn.it;

import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Captures, while open, the stack traces logged anywhere in this JVM (root logger): how a test learns why a
 * MapReduce job of the local runner failed, which the job's status does not say.
 */
public final class LogCapture extends AppenderSkeleton implements AutoCloseable {
    private final List<String> traces = new CopyOnWriteArrayList<>();

    private LogCapture() {
    }

    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        Logger.getRootLogger().addAppender(capture);
        return capture;
    }

    /** Whether a logged stack trace contains {@code text}. */
    public boolean traceContains(String text) {
        return traces.stream().anyMatch(trace -> trace.contains(text));
    }

    public List<String> traces() {
        return List.copyOf(traces);
    }

    @Override
    protected void append(LoggingEvent event) {
        String[] trace = event.getThrowableStrRep();
        if (trace != null) {
            traces.add(String.join("\n", trace));
        }
    }

    @Override
    public void close() {
        Logger.getRootLogger().removeAppender(this);
    }

    @Override
    public boolean requiresLayout() {
        return false;
    }
}
