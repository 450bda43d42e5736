package io.phoenixtxn.stack;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StackTraceFilterTest {
    private static String filtered(java.util.function.Consumer<PrintStream> writer) {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        StackTraceFilter filter = new StackTraceFilter(new PrintStream(sink, true, StandardCharsets.UTF_8));
        PrintStream err = new PrintStream(filter, true, StandardCharsets.UTF_8);
        writer.accept(err);
        filter.close();
        return sink.toString(StandardCharsets.UTF_8);
    }

    @Test
    void anErrorIsItsOneLineAndTheTraceGoes() {
        SQLException e = new SQLException("ERROR 601 (42P00): Syntax error", new IllegalStateException("inner"));
        String out = filtered(err -> {
            err.println("Error: ERROR 601 (42P00): Syntax error (state=42P00,code=601)");
            e.printStackTrace(err);
            err.println("1 row selected");
        });
        assertEquals("Error: ERROR 601 (42P00): Syntax error (state=42P00,code=601)\n1 row selected\n", out);
    }

    @Test
    void otherLinesPassInOrderIncludingTheLastOneWithoutANewline() {
        String out = filtered(err -> {
            err.println("a");
            err.println("java.sql.SQLException: not followed by frames");
            err.print("last");
        });
        assertEquals("a\njava.sql.SQLException: not followed by frames\nlast\n", out);
    }

    @Test
    void recognizesFramesOnly() {
        assertTrue(StackTraceFilter.isTraceLine("\tat org.apache.X.y(X.java:1)"));
        assertTrue(StackTraceFilter.isTraceLine("\t... 12 more"));
        assertTrue(StackTraceFilter.isTraceLine("Caused by: java.io.IOException: x"));
        assertFalse(StackTraceFilter.isTraceLine("at the prompt"));
        assertFalse(StackTraceFilter.isTraceLine("Error: ERROR 601"));
    }
}
