package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test server, dynalite ({@code zae-limiter-dynamodb/src/test/dynalite}), started with {@code node} on a free port.
 * The tests share one process per JVM ({@link #get()}, stopped when the JVM exits, and by itself when the JVM's pipe
 * to it closes); the benchmarks module starts its own ({@link #start()}, stopped by {@link #close()}). The build
 * installs dynalite with {@code npm ci}; when it has not (for example after {@code -DskipTests}), the first start
 * runs {@code npm ci} itself.
 */
public final class Dynalite implements AutoCloseable {

    /** Overrides where {@code server.js} and {@code node_modules} are looked for. */
    public static final String DIR_PROPERTY = "zae.dynalite.dir";

    private static Dynalite shared;

    private final Process process;
    private final int port;
    private final String version;

    private Dynalite(Process process, int port, String version) {
        this.process = process;
        this.port = port;
        this.version = version;
    }

    /** The server the tests of this JVM share, started on first call and stopped when the JVM exits. */
    public static synchronized Dynalite get() {
        if (shared == null) {
            shared = start();
        }
        return shared;
    }

    /** A new server of the caller's own: stop it with {@link #close()} (it also stops when the JVM exits). */
    public static Dynalite start() {
        Path dir = locate();
        if (!Files.isDirectory(dir.resolve("node_modules/dynalite"))) {
            install(dir);
        }
        try {
            Process process = new ProcessBuilder("node", "server.js").directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith("PORT ")) {
                process.destroyForcibly();
                throw new IllegalStateException("dynalite did not start: " + line);
            }
            int port = Integer.parseInt(line.substring(5).trim());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process)));
            return new Dynalite(process, port, version(dir));
        } catch (IOException e) {
            throw new IllegalStateException("could not start dynalite with 'node' from " + dir, e);
        }
    }

    private static void install(Path dir) {
        try {
            Process npm = new ProcessBuilder("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
                    .directory(dir.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            if (npm.waitFor() != 0) {
                throw new IllegalStateException("'npm ci' failed in " + dir);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run 'npm ci' in " + dir + " (Node.js 20 with npm is needed)",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing dynalite", e);
        }
    }

    /**
     * {@code -Dzae.dynalite.dir}, else {@code src/test/dynalite} seen from the working directory (a module or the
     * repository root), else from the folders above this class's jar or classes directory (the benchmark jar).
     */
    static Path locate() {
        List<Path> candidates = new ArrayList<>();
        String configured = System.getProperty(DIR_PROPERTY);
        if (configured != null) {
            candidates.add(Path.of(configured));
        }
        List<Path> roots = new ArrayList<>(List.of(Path.of("")));
        try {
            Path code = Path.of(Dynalite.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path p = code.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
                roots.add(p);
            }
        } catch (URISyntaxException | RuntimeException ignored) {
            // the working directory only
        }
        for (Path root : roots) {
            candidates.add(root.resolve("src/test/dynalite"));
            candidates.add(root.resolve("zae-limiter-dynamodb/src/test/dynalite"));
            candidates.add(root.resolve("../zae-limiter-dynamodb/src/test/dynalite"));
        }
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate.resolve("server.js"))) {
                return candidate.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("cannot find zae-limiter-dynamodb/src/test/dynalite from "
                + Path.of("").toAbsolutePath() + "; run from the repository root or set -D" + DIR_PROPERTY);
    }

    private static String version(Path dir) {
        try {
            String json = Files.readString(dir.resolve("node_modules/dynalite/package.json"));
            Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
            return m.find() ? m.group(1) : "?";
        } catch (IOException e) {
            return "?";
        }
    }

    private static void stop(Process process) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The installed dynalite version, from its {@code package.json}. */
    public String version() {
        return version;
    }

    public long pid() {
        return process.pid();
    }

    /** A new client for the server, with its own connection pool and the given interceptors. */
    public DynamoDbClient client(ExecutionInterceptor... interceptors) {
        return client(endpoint(), interceptors);
    }

    /** A new client for a server at {@code endpoint} (this one, or a proxy in front of it), as {@link #client}. */
    public static DynamoDbClient client(URI endpoint, ExecutionInterceptor... interceptors) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> {
                    for (ExecutionInterceptor interceptor : interceptors) {
                        c.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }

    /** Stops the server. The shared one ({@link #get()}) is stopped when the JVM exits; closing it is an error. */
    @Override
    public void close() {
        synchronized (Dynalite.class) {
            if (this == shared) {
                throw new IllegalStateException("the shared dynalite stops when the JVM exits");
            }
        }
        stop(process);
    }
}
