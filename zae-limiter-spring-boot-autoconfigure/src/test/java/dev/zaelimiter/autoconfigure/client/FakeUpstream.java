package dev.zaelimiter.autoconfigure.client;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real local HTTP server (the JDK's) that answers each request with the next scripted answer, or 200 "ok" when
 * none is left, and counts the requests it got.
 */
final class FakeUpstream implements AutoCloseable {

    record Reply(int status, Map<String, String> headers, String body) {
    }

    private final HttpServer server;
    private final Queue<Reply> script = new ConcurrentLinkedQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final Queue<String> traces = new ConcurrentLinkedQueue<>();

    FakeUpstream() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            traces.add(String.valueOf(exchange.getRequestHeaders().getFirst("X-Trace")));
            exchange.getRequestBody().readAllBytes();
            Reply reply = script.poll();
            if (reply == null) {
                reply = new Reply(200, Map.of(), "ok");
            }
            reply.headers().forEach(exchange.getResponseHeaders()::add);
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
    }

    /** Answers the next request with {@code status}, {@code headers} and a short body. */
    FakeUpstream then(int status, Map<String, String> headers) {
        script.add(new Reply(status, headers, status == 200 ? "ok" : "{\"error\":\"slow down\"}"));
        return this;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The {@code X-Trace} header of each request received, {@code "null"} when it had none. */
    java.util.List<String> traces() {
        return java.util.List.copyOf(traces);
    }

    int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
