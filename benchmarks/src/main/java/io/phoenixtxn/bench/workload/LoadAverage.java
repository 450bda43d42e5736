package io.phoenixtxn.bench.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load averages (1, 5, 15 min) as {@code /proc/loadavg} says, to print beside every figure. */
final class LoadAverage {
    private LoadAverage() {
    }

    static String now() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
