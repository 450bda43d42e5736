package io.phoenixtxn.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The last lines of a role's log and console, for errors that say why a role failed. */
public final class Diagnostics {
    static final int LINES = 25;

    private Diagnostics() {
    }

    public static String tails(ClusterPaths paths, Role role) {
        return tail(paths.log(role)) + tail(paths.out(role));
    }

    static String tail(Path file) {
        if (!Files.exists(file)) {
            return "(no " + file + ")\n";
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            List<String> last = lines.subList(Math.max(0, lines.size() - LINES), lines.size());
            return "---- last lines of " + file + ":\n" + String.join("\n", last) + "\n";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")\n";
        }
    }
}
