package io.phoenixtxn.history.cli;

import io.phoenixtxn.history.HistoryBuilder;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.record.HistoryFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.phoenixtxn.history.HistoryBuilder.append;
import static io.phoenixtxn.history.HistoryBuilder.r;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line's verdicts and exit statuses on recorded history files. */
class HistoryMainTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void aHistoryWithACycleExitsOneAndPrintsTheCycle() throws Exception {
        HistoryBuilder h = new HistoryBuilder();
        h.invoke(0, Names.TXN, append(1, 1), r(2));
        h.invoke(1, Names.TXN, append(2, 1), r(1));
        h.ok(0, append(1, 1), r(2, 1));
        h.ok(1, append(2, 1), r(1, 1));
        h.finalRead(r(1, 1), r(2, 1));
        assertEquals(HistoryMain.INVALID, run("check", write(h)));
        assertTrue(out().contains("INVALID") && out().contains("G1C") && out().contains("-wr->"), out());
    }

    @Test
    void aValidHistoryExitsZero() throws Exception {
        HistoryBuilder h = new HistoryBuilder();
        h.txn(0, r(1), append(1, 1));
        h.finalRead(r(1, 1));
        assertEquals(HistoryMain.VALID, run("check", write(h)));
        assertTrue(out().startsWith("list-append:") && out().contains("VALID"), out());
    }

    @Test
    void aBankHistoryIsRecognisedByItsTransfers() throws Exception {
        HistoryBuilder h = new HistoryBuilder();
        h.invoke(-1, Names.SETUP, new Mop(Names.WRITE, 0, 10L), new Mop(Names.WRITE, 1, 10L));
        h.ok(-1, new Mop(Names.WRITE, 0, 10L), new Mop(Names.WRITE, 1, 10L));
        h.invoke(0, Names.TRANSFER, new Mop(Names.TRANSFER, 1, List.of(0L, 1L, 5L)));
        h.ok(0, new Mop(Names.TRANSFER, 1, List.of(0L, 1L, 5L)));
        h.finalRead(Mop.read(0, 5L), Mop.read(1, 10L), new Mop(Names.LEDGER, 0, List.of(1L)));
        assertEquals(HistoryMain.INVALID, run("check", write(h)));
        assertTrue(out().startsWith("bank:") && out().contains("LEDGER_MISMATCH") && out().contains("WRONG_TOTAL"),
                out());
    }

    @Test
    void staleReadsCanBeExemptedPerFunction() throws Exception {
        HistoryBuilder h = new HistoryBuilder();
        h.txn(0, r(1), append(1, 1));
        h.read(1, r(1));
        h.finalRead(r(1, 1));
        String file = write(h);
        assertEquals(HistoryMain.INVALID, run("check", file));
        out.reset();
        assertEquals(HistoryMain.VALID, run("check", "--realtime-exempt", Names.READ, file));
    }

    @Test
    void errorsExitTwoAndSayWhy() throws Exception {
        assertEquals(HistoryMain.ERROR, run());
        assertEquals(HistoryMain.ERROR, run("check"));
        assertTrue(err().contains("one history file"), err());
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "{\"index\":0,\"type\":\"ok\"}\n");
        assertEquals(HistoryMain.ERROR, run("check", bad.toString()));
        assertTrue(err().contains("line 1"), err());
        assertEquals(HistoryMain.ERROR, run("run", "--workload", "list-append"));
        assertTrue(err().contains("--url"), err());
    }

    private String write(HistoryBuilder h) throws Exception {
        Path file = Files.createTempFile(dir, "history", ".jsonl");
        HistoryFile.write(h.build(), file);
        return file.toString();
    }

    private int run(String... args) {
        return HistoryMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
