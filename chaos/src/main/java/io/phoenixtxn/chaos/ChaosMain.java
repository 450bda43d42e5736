package io.phoenixtxn.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code bin/chaos}: a whole chaos run (issue 14) on a fresh multi-process cluster, then its report on standard
 * output and in {@code <out>/report.txt}. Exit status: 0 every check passed, 1 a check failed (anomalies, a fault
 * that did not behave, an unavailability target missed, a client that could not be checked), 2 bad usage or a run
 * that could not be set up.
 */
public final class ChaosMain {
    static final String HOME_PROPERTY = "phoenix.txn.home";

    private ChaosMain() {
    }

    public static void main(String[] args) {
        int status;
        try {
            status = run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("chaos: " + e.getMessage());
            System.err.println(ChaosOptions.USAGE);
            status = 2;
        } catch (Exception e) {
            System.err.println("chaos: the run could not be carried out: " + e);
            e.printStackTrace(System.err);
            status = 2;
        }
        System.out.flush();
        System.err.flush();
        System.exit(status); // HBase's and Curator's clients leave non-daemon threads behind
    }

    static int run(String[] args) throws Exception {
        Path root = Path.of(System.getProperty(HOME_PROPERTY, ".")).toAbsolutePath().normalize();
        ChaosOptions options = ChaosOptions.parse(args, root);
        ChaosReport report = new ChaosRun(options, root, System.out).run();
        String text = report.render();
        System.out.println();
        System.out.print(text);
        write(options.out().resolve("report.txt"), text);
        System.out.println("report: " + options.out().resolve("report.txt") + "; histories, client logs and the"
                + " nemesis log: " + options.out());
        return report.passed() ? 0 : 1;
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
