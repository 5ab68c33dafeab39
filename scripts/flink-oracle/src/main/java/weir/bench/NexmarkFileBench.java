package weir.bench;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Runs {@code sql/nexmark/qN.sql} on Flink over a JSON-lines events file written by
 * {@code weir bench nexmark --write-file}: the script as written, with only the {@code datagen}
 * table's WITH clause swapped for {@code 'connector' = 'filesystem', 'format' = 'json'} and every
 * other sink for {@code blackhole} (and a bare {@code dateTime} quoted); a local MiniCluster at parallelism 1. The INSERTs run
 * {@code runs} times in one JVM (a warm JVM: the last run is measured) and each run prints one
 * line {@code run N: wall S s, cpu S s} (the JVM's process CPU time over the run).
 *
 * <p>Usage: {@code NexmarkFileBench QUERY.sql EVENTS.json [RUNS [MORE.json ...]]} (default 2
 * runs): RUNS runs over EVENTS.json, then one run over each further file ({@code ALTER TABLE
 * datagen SET ('path' = ...)}, same JVM, same planner) — for the cost per event at steady state,
 * the difference between two files' runs. Paths in the script (q13's side input) resolve against
 * the working directory (the checkout's root). A {@code filesystem} sink (q10) writes into a fresh
 * temporary directory per run, removed after the run; q13's side input is read with
 * {@link SideInputFileFactory} ({@code filesystem} is no lookup source in Flink).
 */
public final class NexmarkFileBench {
    private static final Pattern DATAGEN_WITH = Pattern.compile(
            "(CREATE TABLE datagen\\b.*?\\)\\s*WITH\\s*\\()(.*?)(\\);)", Pattern.DOTALL);
    private static final Pattern SINK_WITH = Pattern.compile(
            "(CREATE TABLE (?!datagen\\b)\\w+\\s*\\(.*?\\)\\s*WITH\\s*\\()(.*?)(\\);)", Pattern.DOTALL);

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: NexmarkFileBench QUERY.sql EVENTS.json [RUNS]");
            System.exit(2);
        }
        Path query = Path.of(args[0]);
        String events = Path.of(args[1]).toAbsolutePath().toString();
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        List<String> files = new ArrayList<>();
        for (int r = 0; r < runs; r++) files.add(events);
        for (int i = 3; i < args.length; i++) files.add(Path.of(args[i]).toAbsolutePath().toString());
        Path sinkDir = Files.createTempDirectory("flink-bench-sink-");
        String sql = Files.readString(query, StandardCharsets.UTF_8);
        Matcher m = DATAGEN_WITH.matcher(sql);
        if (!m.find()) throw new IllegalArgumentException(query + " has no CREATE TABLE datagen ... WITH (...)");
        sql = sql.substring(0, m.start(2))
                + "'connector' = 'filesystem', 'path' = '" + events + "', 'format' = 'json'"
                + sql.substring(m.end(2));
        // Every sink becomes a blackhole, but a filesystem sink (q10) writes into sinkDir; the side
        // input (q13) is read by weir-side-input from its file.
        StringBuilder out = new StringBuilder();
        Matcher s = SINK_WITH.matcher(sql);
        int last = 0;
        List<String> fileSinks = new ArrayList<>();
        while (s.find()) {
            String with = s.group(2);
            out.append(sql, last, s.start(2));
            Matcher name = Pattern.compile("CREATE TABLE (\\w+)").matcher(s.group(1));
            name.find();
            if (with.contains("side_input")) {
                Matcher p = Pattern.compile("'path'\\s*=\\s*'([^']*)'").matcher(with);
                if (!p.find()) throw new IllegalArgumentException(query + ": the side input has no 'path'");
                out.append("'connector' = 'weir-side-input', 'path' = '")
                        .append(Path.of(p.group(1)).toAbsolutePath()).append("'");
            } else if (with.matches("(?s).*'connector'\\s*=\\s*'filesystem'.*")) {
                fileSinks.add(name.group(1));
                out.append(with.replaceAll("'path'\\s*=\\s*'[^']*'", "'path' = '" + sinkDir + "/run'"));
            } else {
                out.append("'connector' = 'blackhole'");
            }
            last = s.end(2);
        }
        out.append(sql.substring(last));
        // Weir reads a bare `dateTime` (some sinks declare one, some queries qualify it: B.dateTime);
        // Flink's parser needs it quoted (DATETIME is a reserved word there).
        sql = out.toString().replaceAll("(?<![`\\w])dateTime(?![`\\w])", "`dateTime`");

        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        List<String> inserts = new ArrayList<>();
        for (String stmt : splitStatements(sql)) {
            if (stmt.regionMatches(true, 0, "INSERT", 0, 6)) inserts.add(stmt);
            else tEnv.executeSql(stmt);
        }
        try {
            measure(tEnv, inserts, files, events, fileSinks, sinkDir);
        } finally {
            deleteUnder(sinkDir);
            Files.deleteIfExists(sinkDir);
        }
        System.exit(0);
    }

    private static void measure(StreamTableEnvironment tEnv, List<String> inserts, List<String> files,
            String events, List<String> fileSinks, Path sinkDir) throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        String current = events;
        for (int r = 1; r <= files.size(); r++) {
            String file = files.get(r - 1);
            if (!file.equals(current)) {
                tEnv.executeSql("ALTER TABLE datagen SET ('path' = '" + file + "')");
                current = file;
            }
            for (String t : fileSinks) {
                tEnv.executeSql("ALTER TABLE " + t + " SET ('path' = '" + sinkDir + "/run" + r + "')");
            }
            StatementSet set = tEnv.createStatementSet();
            for (String i : inserts) set.addInsertSql(i);
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            set.execute().await();
            double wall = (System.nanoTime() - t0) / 1e9;
            double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
            long written = fileSinks.isEmpty() ? -1 : bytesUnder(sinkDir);
            deleteUnder(sinkDir);
            System.out.printf("run %d: wall %.3f s, cpu %.3f s, file %s%s%n", r, wall, cpu, file,
                    written < 0 ? "" : ", sink bytes " + written);
        }
    }

    private static long bytesUnder(Path dir) throws java.io.IOException {
        try (var w = Files.walk(dir)) {
            return w.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Removes everything under {@code dir} (not dir itself). */
    private static void deleteUnder(Path dir) throws java.io.IOException {
        try (var w = Files.walk(dir)) {
            for (Path p : w.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) Files.delete(p);
            }
        }
    }

    /** Statements of a script: split at `;` outside quotes, `--` comments dropped. */
    static List<String> splitStatements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (String line : sql.split("\n", -1)) {
            String l = quoted ? line : line.replaceAll("^\\s*--.*$", "");
            for (int i = 0; i < l.length(); i++) {
                char c = l.charAt(i);
                if (c == '\'') quoted = !quoted;
                if (c == ';' && !quoted) {
                    if (!cur.toString().isBlank()) out.add(cur.toString().strip());
                    cur.setLength(0);
                } else cur.append(c);
            }
            cur.append('\n');
        }
        if (!cur.toString().isBlank()) out.add(cur.toString().strip());
        return out;
    }
}
