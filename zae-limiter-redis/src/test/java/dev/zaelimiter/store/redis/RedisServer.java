package dev.zaelimiter.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis server for tests, started on a free port with no persistence: {@code redis-server} from the PATH when
 * there is one, otherwise the Linux binary inside {@code com.github.codemonstur:embedded-redis} (Redis 6.2), copied
 * to a temporary file. The tests of a JVM share one ({@link #get()}, stopped when the JVM exits); a test that stops
 * or kills its server starts its own ({@link #start()}, stopped by {@link #close()}). Every server is stopped by its
 * process id, also when the JVM exits.
 */
public final class RedisServer implements AutoCloseable {

    /** Overrides the {@code redis-server} executable. */
    public static final String BINARY_PROPERTY = "zae.redis.server";

    private static final String EMBEDDED_X86 = "/redis-server-6.2.6-v5-linux-amd64";
    private static final String EMBEDDED_ARM = "/redis-server-6.2.7-linux-arm64";

    private static RedisServer shared;
    private static Path extracted;

    private final Process process;
    private final int port;
    private final String binary;

    private RedisServer(Process process, int port, String binary) {
        this.process = process;
        this.port = port;
        this.binary = binary;
    }

    /** The server the tests of this JVM share, started on first call and stopped when the JVM exits. */
    public static synchronized RedisServer get() {
        if (shared == null) {
            shared = start();
        }
        return shared;
    }

    /** A new server of the caller's own: stop it with {@link #close()} (it also stops when the JVM exits). */
    public static RedisServer start() {
        return start(freePort());
    }

    /** A new server on {@code port} (to restart one where its clients expect it). */
    public static RedisServer start(int port) {
        return start(port, List.of(), null);
    }

    /**
     * A new server on {@code port} with {@code options} after the test defaults (such as
     * {@code --cluster-enabled yes}), its working directory {@code dir} (a temporary one of the caller's, or
     * {@code null}). A configuration file, as {@code redis-server --sentinel} needs, goes first in {@code options}.
     */
    public static RedisServer start(int port, List<String> options, Path dir) {
        String binary = binary();
        List<String> command = new ArrayList<>(List.of(binary));
        boolean configFile = !options.isEmpty() && !options.get(0).startsWith("--");
        if (configFile) {
            command.add(options.get(0));
        }
        command.addAll(List.of("--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--daemonize", "no", "--loglevel", "warning"));
        command.addAll(configFile ? options.subList(1, options.size()) : options);
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            if (dir != null) {
                builder.directory(dir.toFile());
            }
            Process process = builder.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process)));
            RedisServer server = new RedisServer(process, port, binary);
            server.awaitPing();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + binary, e);
        }
    }

    private void awaitPing() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(binary + " exited with " + process.exitValue() + " on port " + port);
            }
            try {
                if (command("PING").startsWith("+PONG")) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis-server", e);
            }
        }
        stop(process);
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING", last);
    }

    /** Sends one inline command and returns the first line of the answer. */
    public String command(String... words) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            StringBuilder request = new StringBuilder("*").append(words.length).append("\r\n");
            for (String word : words) {
                byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(word).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
                line.append((char) c);
            }
            return line.toString().trim();
        }
    }

    /** The text of {@code INFO section}. */
    public String info(String section) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(("INFO " + section + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder header = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
                header.append((char) c);
            }
            int length = Integer.parseInt(header.toString().trim().substring(1));
            return new String(in.readNBytes(length), StandardCharsets.UTF_8);
        }
    }

    /** {@code -Dzae.redis.server}, else {@code redis-server} on the PATH, else the binary from the jar. */
    static synchronized String binary() {
        String configured = System.getProperty(BINARY_PROPERTY);
        if (configured != null) {
            return configured;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(dir, "redis-server");
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        if (extracted == null) {
            extracted = extract();
        }
        return extracted.toString();
    }

    private static Path extract() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            throw new IllegalStateException("no redis-server on the PATH, and the embedded one is only used on"
                    + " Linux; install Redis or set -D" + BINARY_PROPERTY);
        }
        String resource = arch.contains("aarch64") || arch.contains("arm64") ? EMBEDDED_ARM : EMBEDDED_X86;
        try (InputStream in = RedisServer.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the class path: the test dependency"
                        + " com.github.codemonstur:embedded-redis is missing");
            }
            Path file = Files.createTempFile("redis-server-", "");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            file.toFile().setExecutable(true);
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("could not extract " + resource, e);
        }
    }

    /** A free port whose cluster bus port (10000 above) is free too. */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(30_000);
            if (free(port) && free(port + 10_000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair for a cluster node");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }

    private static void stop(Process process) {
        if (!process.isAlive()) {
            return;
        }
        ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroy);
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code redis://127.0.0.1:port}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** Stops the server. The shared one ({@link #get()}) is stopped when the JVM exits; closing it is an error. */
    @Override
    public void close() {
        synchronized (RedisServer.class) {
            if (this == shared) {
                throw new IllegalStateException("the shared redis-server stops when the JVM exits");
            }
        }
        stop(process);
    }
}
