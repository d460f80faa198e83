package dev.zaelimiter.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy in front of an HTTP/1.1 server that holds every chunk it relays for a fixed delay each way, as a
 * network round trip would, and times each exchange. It frames requests and responses by {@code Content-Length}
 * (chunked bodies are refused), so that it knows when a request's last byte went to the server and when the
 * response's first byte came back: the server's own time. {@link #totals()} are cumulative; a caller on one thread
 * takes them before and after a call and subtracts.
 *
 * <p>Each connection has a reader and a writer thread per direction; a writer sends a chunk when its delay is up, so
 * the delay is added once per direction, not per chunk.
 */
final class DelayingProxy implements AutoCloseable {

    /**
     * What the proxy has seen so far. {@code wireNanos}: time during which at least one exchange was open at the
     * proxy (from the first byte of a request read from the client to the last byte of its response written back);
     * {@code serverNanos}: time during which at least one request was with the server (from its last byte written to
     * the server to its response's first byte read back). Bytes are headers and bodies; body bytes alone too.
     */
    record Totals(long exchanges, long requestBytes, long requestBodyBytes, long responseBytes,
            long responseBodyBytes, long wireNanos, long serverNanos, long relayedToServer, long relayedToClient) {

        Totals minus(Totals o) {
            return new Totals(exchanges - o.exchanges, requestBytes - o.requestBytes,
                    requestBodyBytes - o.requestBodyBytes, responseBytes - o.responseBytes,
                    responseBodyBytes - o.responseBodyBytes, wireNanos - o.wireNanos, serverNanos - o.serverNanos,
                    relayedToServer - o.relayedToServer, relayedToClient - o.relayedToClient);
        }
    }

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final long delayNanos;
    private final Thread acceptor;
    private final List<Socket> sockets = new ArrayList<>();
    private final Set<Long> threadIds = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private final Map<String, Long> operations = new TreeMap<>();
    private long exchanges;
    private long requestBytes;
    private long requestBodyBytes;
    private long responseBytes;
    private long responseBodyBytes;
    private long relayedToServer;
    private long relayedToClient;
    private int open;
    private long openSince;
    private long wireNanos;
    private int atServer;
    private long atServerSince;
    private long serverNanos;

    /** A proxy on a free local port that relays to {@code target} with {@code delayMicros} each way. */
    DelayingProxy(URI target, long delayMicros) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.delayNanos = delayMicros * 1000;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        threadIds.add(acceptor.getId());
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    long delayMicros() {
        return delayNanos / 1000;
    }

    /** Whether {@code id} is one of the proxy's threads. */
    boolean isProxyThread(long id) {
        return threadIds.contains(id);
    }

    /** Requests so far per operation, as their {@code X-Amz-Target} header names it. */
    synchronized Map<String, Long> operations() {
        return new TreeMap<>(operations);
    }

    synchronized Totals totals() {
        long now = System.nanoTime();
        return new Totals(exchanges, requestBytes, requestBodyBytes, responseBytes, responseBodyBytes,
                wireNanos + (open > 0 ? now - openSince : 0), serverNanos + (atServer > 0 ? now - atServerSince : 0),
                relayedToServer, relayedToClient);
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(server);
                }
                Connection c = new Connection();
                pipe(client, server, true, c);
                pipe(server, client, false, c);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("proxy: " + e);
                }
            }
        }
    }

    /** The state of one connection's current exchange. */
    private static final class Connection {
        boolean exchangeOpen;
        boolean atServer;
    }

    private record Chunk(byte[] bytes, long due, boolean ends) {
    }

    private void pipe(Socket from, Socket to, boolean toServer, Connection c) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        String name = toServer ? "proxy-up" : "proxy-down";
        Thread reader = new Thread(() -> {
            Framer framer = new Framer(toServer);
            byte[] buffer = new byte[16 * 1024];
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    long now = System.nanoTime();
                    byte[] bytes = Arrays.copyOf(buffer, n);
                    int ends = framer.feed(bytes);
                    read(c, toServer, now, n, framer);
                    queue.put(new Chunk(bytes, now + delayNanos, ends > 0));
                }
            } catch (IOException | InterruptedException e) {
                // the connection closed
            } catch (IllegalStateException e) {
                System.err.println("proxy: " + e.getMessage());
            }
            try {
                queue.put(new Chunk(null, 0, false));
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, name + "-read");
        Thread writer = new Thread(() -> {
            try {
                for (Chunk chunk = queue.take(); chunk.bytes() != null; chunk = queue.take()) {
                    for (long wait; (wait = chunk.due() - System.nanoTime()) > 0; ) {
                        LockSupport.parkNanos(wait);
                    }
                    // accounted before the peer can see the last byte: the server may answer before write()
                    // returns, and the client's next totals must include the exchange
                    written(c, toServer, System.nanoTime(), chunk.bytes().length, chunk.ends());
                    out.write(chunk.bytes());
                    out.flush();
                }
                to.shutdownOutput();
            } catch (IOException | InterruptedException e) {
                // the connection closed
            }
        }, name + "-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        threadIds.add(reader.getId());
        threadIds.add(writer.getId());
        reader.start();
        writer.start();
    }

    private synchronized void read(Connection c, boolean fromClient, long now, int n, Framer framer) {
        if (fromClient) {
            requestBytes += n;
            requestBodyBytes += framer.bodyBytesOfLastFeed;
            for (String operation = framer.operations.poll(); operation != null; operation = framer.operations.poll()) {
                this.operations.merge(operation, 1L, Long::sum);
            }
            if (!c.exchangeOpen) {
                c.exchangeOpen = true;
                exchanges++;
                if (open++ == 0) {
                    openSince = now;
                }
            }
        } else {
            responseBytes += n;
            responseBodyBytes += framer.bodyBytesOfLastFeed;
            if (c.atServer) {
                c.atServer = false;
                if (--atServer == 0) {
                    serverNanos += now - atServerSince;
                }
            }
        }
    }

    private synchronized void written(Connection c, boolean toServer, long now, int n, boolean ends) {
        if (toServer) {
            relayedToServer += n;
            if (ends && !c.atServer) {
                c.atServer = true;
                if (atServer++ == 0) {
                    atServerSince = now;
                }
            }
        } else {
            relayedToClient += n;
            if (ends && c.exchangeOpen) {
                c.exchangeOpen = false;
                if (--open == 0) {
                    wireNanos += now - openSince;
                }
            }
        }
    }

    /**
     * Finds the ends of HTTP/1.1 messages in a byte stream by their {@code Content-Length}. A request's or
     * response's end is where its body ends.
     */
    static final class Framer {
        private final boolean requests;
        private final StringBuilder head = new StringBuilder();
        private long bodyLeft = -1;
        /** The operations of the requests whose headers have been read, for the caller to take. */
        final Queue<String> operations = new ArrayDeque<>();
        long bodyBytesOfLastFeed;

        Framer(boolean requests) {
            this.requests = requests;
        }

        /** How many messages end in {@code bytes}. */
        int feed(byte[] bytes) {
            int ends = 0;
            bodyBytesOfLastFeed = 0;
            int i = 0;
            while (i < bytes.length) {
                if (bodyLeft < 0) {
                    head.append((char) (bytes[i++] & 0xff));
                    int len = head.length();
                    if (len >= 4 && head.charAt(len - 1) == '\n' && head.charAt(len - 2) == '\r'
                            && head.charAt(len - 3) == '\n' && head.charAt(len - 4) == '\r') {
                        bodyLeft = contentLength(head.toString());
                        head.setLength(0);
                        if (bodyLeft == 0) {
                            bodyLeft = -1;
                            ends++;
                        }
                    }
                } else {
                    int take = (int) Math.min(bodyLeft, bytes.length - i);
                    i += take;
                    bodyLeft -= take;
                    bodyBytesOfLastFeed += take;
                    if (bodyLeft == 0) {
                        bodyLeft = -1;
                        ends++;
                    }
                }
            }
            return ends;
        }

        private long contentLength(String header) {
            long length = 0;
            for (String line : header.split("\r\n")) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("x-amz-target:")) {
                    String target = line.substring("x-amz-target:".length()).trim();
                    operations.add(target.substring(target.indexOf('.') + 1));
                } else if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(line.substring("content-length:".length()).trim());
                } else if (lower.startsWith("transfer-encoding:")) {
                    throw new IllegalStateException("chunked " + (requests ? "request" : "response")
                            + " not supported: " + header.lines().findFirst().orElse(""));
                }
            }
            return length;
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }
}
