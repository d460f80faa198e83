package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimiter;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

import java.io.IOException;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Limits the calls of a {@code RestClient} or {@code RestTemplate} to one {@link OutboundTarget}. Before each request
 * it acquires the target's amounts (waiting up to its {@code maxWait}; a refusal, including an upstream pause in
 * force, is thrown as the limiter throws it and the request is not sent). A response whose status pauses
 * ({@code 429}, {@code 503}) has its lease rolled back; when it carries a usable {@code Retry-After} the interceptor
 * pauses the resource (or the entity on it) through the store for every process, and then either waits for the pause
 * and sends the request once more, when the pause fits in {@code maxWait}, or throws
 * {@link UpstreamRateLimitedException}; without one (missing, unreadable, zero or past) the response is returned as
 * it came. Any other response closes the lease (adjusted from the target's {@code adjustFrom} headers); an I/O
 * failure rolls it back. Thread-safe.
 *
 * <p>Register it <em>last</em> among the client's interceptors: its retry executes the rest of the chain again, and
 * Spring runs the interceptors registered after it only for the first attempt, so a header they add would be missing
 * from the retry. Interceptors registered before it run once, and what they set on the request is sent both times.
 */
public class RateLimitingClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

    private final RateLimiter limiter;
    private final OutboundTarget target;

    public RateLimitingClientHttpRequestInterceptor(RateLimiter limiter, OutboundTarget target) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.target = Objects.requireNonNull(target, "target");
    }

    public OutboundTarget target() {
        return target;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        String entityId = OutboundCalls.entityId(target, request.getAttributes());
        return exchange(request, body, execution, entityId, true);
    }

    private ClientHttpResponse exchange(HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
            String entityId, boolean mayRetry) throws IOException {
        Lease lease = limiter.acquire(OutboundCalls.request(target, entityId, target.maxWait()));
        ClientHttpResponse response = send(request, body, execution, lease);
        int status;
        try {
            status = response.getStatusCode().value();
        } catch (IOException | RuntimeException e) {
            response.close();
            giveBack(lease, e);
            throw e;
        }
        if (!OutboundCalls.pausing(target, status)) {
            try {
                OutboundCalls.adjust(target, lease, response.getHeaders());
                lease.close();
            } catch (RuntimeException e) {
                response.close();
                throw e;
            }
            return response;
        }
        // the pause goes first, so that a waiter woken by the rollback does not call the upstream that just refused
        Optional<Instant> until;
        try {
            until = OutboundCalls.pause(limiter, target, entityId, response.getHeaders());
        } catch (RuntimeException e) {
            response.close();
            giveBack(lease, e);
            throw e;
        }
        try {
            lease.rollback();
        } catch (RuntimeException e) {
            response.close();
            throw e;
        }
        if (until.isEmpty()) {
            return response;
        }
        response.close();
        if (!mayRetry || !OutboundCalls.mayRetry(target, until.get(), limiter.clock().instant())) {
            throw new UpstreamRateLimitedException(target.name(), target.resource(), entityId, status, until.get());
        }
        // the acquire waits for the pause to end (within maxWait), then the request goes once more
        return exchange(request, body, execution, entityId, false);
    }

    private static ClientHttpResponse send(HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
            Lease lease) throws IOException {
        try {
            return execution.execute(request, body);
        } catch (IOException | RuntimeException | Error e) {
            giveBack(lease, e);
            throw e;
        }
    }

    private static void giveBack(Lease lease, Throwable failure) {
        try {
            lease.rollback();
        } catch (RuntimeException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }
}
