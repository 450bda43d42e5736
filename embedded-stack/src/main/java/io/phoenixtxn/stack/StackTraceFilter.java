package io.phoenixtxn.stack;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The console of {@code --sql FILE}: sqlline runs a script given with {@code -f} before it counts as started, and
 * until then it prints every error's Java stack trace whatever {@code --verbose} says. This stream passes everything
 * but those traces: a trace's lines ({@code "\tat "}, {@code "\t... n more"}, {@code "Caused by: "},
 * {@code "\tSuppressed: "}) and the exception line just before its first frame, which repeats sqlline's one-line
 * {@code Error:} message. Line-buffered: one line is held back until the next shows whether a trace starts, and
 * the last one until {@link #close}.
 */
final class StackTraceFilter extends OutputStream {
    private final PrintStream out;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    /** The last complete line, held back: it is a trace's exception line if the next one is a frame. */
    private String held;

    StackTraceFilter(PrintStream out) {
        this.out = out;
    }

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            lineEnded(line.toString(StandardCharsets.UTF_8));
            line.reset();
        } else {
            line.write(b);
        }
    }

    private void lineEnded(String text) {
        if (isTraceLine(text)) {
            held = null; // the exception line before the first frame
            return;
        }
        release();
        held = text;
    }

    static boolean isTraceLine(String text) {
        return text.startsWith("\tat ") || text.startsWith("\t... ") || text.startsWith("Caused by: ")
                || text.startsWith("\tSuppressed: ") || text.startsWith("\t\tat ") || text.startsWith("\t\t... ");
    }

    private void release() {
        if (held != null) {
            out.println(held);
            held = null;
        }
    }

    /** Flushes what was passed on; the held line waits for the next (a trace's exception line is not known yet). */
    @Override
    public synchronized void flush() {
        out.flush();
    }

    @Override
    public synchronized void close() {
        if (line.size() > 0) {
            lineEnded(line.toString(StandardCharsets.UTF_8));
            line.reset();
        }
        release();
        out.flush();
    }
}
