package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.Lease;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

import java.time.Instant;
import java.util.Objects;

/**
 * The {@code WebClient} counterpart of {@link RateLimitingClientHttpRequestInterceptor}, with the same behaviour, on a
 * {@link ReactiveRateLimiter}: the acquire happens when the exchange is subscribed to, waiting (for capacity or for
 * an upstream pause, to retry once) is a delay rather than a parked thread, and store calls go where the
 * {@link ReactiveRateLimiter} sends them. A cancelled exchange rolls its lease back. Only a request without a body,
 * or one marked with {@link #REPLAYABLE_BODY} (a body inserter that writes the same body again when re-subscribed,
 * such as {@code bodyValue}), is retried after a pause: the filter cannot tell a one-shot body publisher from a
 * replayable one, so any other request gets {@link UpstreamRateLimitedException}. Thread-safe.
 */
public class RateLimitingExchangeFilterFunction implements ExchangeFilterFunction {

    /**
     * The request attribute that, set to {@code true}, says the request's body can be written again, so that the
     * request may be retried after an upstream pause: {@code .attribute(REPLAYABLE_BODY, true)}.
     */
    public static final String REPLAYABLE_BODY = RateLimitingExchangeFilterFunction.class.getName() + ".replayableBody";

    private final ReactiveRateLimiter limiter;
    private final OutboundTarget target;

    public RateLimitingExchangeFilterFunction(ReactiveRateLimiter limiter, OutboundTarget target) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.target = Objects.requireNonNull(target, "target");
    }

    public OutboundTarget target() {
        return target;
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        return Mono.defer(() -> {
            String entityId = OutboundCalls.entityId(target, request.attributes());
            boolean replayable = request.body() == BodyInserters.empty()
                    || Boolean.TRUE.equals(request.attributes().get(REPLAYABLE_BODY));
            return attempt(request, next, entityId, replayable);
        });
    }

    private Mono<ClientResponse> attempt(ClientRequest request, ExchangeFunction next, String entityId,
            boolean mayRetry) {
        return limiter.acquire(OutboundCalls.request(target, entityId, target.maxWait()))
                .flatMap(lease -> next.exchange(request)
                        .onErrorResume(failure -> limiter.rollback(lease).onErrorResume(e -> Mono.empty())
                                .then(Mono.error(failure)))
                        .doOnCancel(() -> limiter.rollback(lease).onErrorResume(e -> Mono.empty()).subscribe())
                        .flatMap(response -> answered(request, next, entityId, mayRetry, lease, response)));
    }

    private Mono<ClientResponse> answered(ClientRequest request, ExchangeFunction next, String entityId,
            boolean mayRetry, Lease lease, ClientResponse response) {
        int status = response.statusCode().value();
        HttpHeaders headers = response.headers().asHttpHeaders();
        if (!OutboundCalls.pausing(target, status)) {
            return limiter.call(() -> {
                OutboundCalls.adjust(target, lease, headers);
                lease.close();
                return response;
            }).onErrorResume(failure -> response.releaseBody().then(Mono.error(failure)));
        }
        // the pause goes first, so that a waiter woken by the rollback does not call the upstream that just refused
        return limiter.call(() -> OutboundCalls.pause(limiter.limiter(), target, entityId, headers))
                .onErrorResume(failure -> limiter.rollback(lease).onErrorResume(e -> Mono.empty())
                        .then(response.releaseBody()).then(Mono.error(failure)))
                .flatMap(until -> limiter.rollback(lease)
                        .onErrorResume(failure -> response.releaseBody().then(Mono.error(failure)))
                        .thenReturn(until))
                .flatMap(until -> {
                    if (until.isEmpty()) {
                        return Mono.just(response);
                    }
                    Instant now = limiter.limiter().clock().instant();
                    Mono<ClientResponse> afterPause = mayRetry && OutboundCalls.mayRetry(target, until.get(), now)
                            ? attempt(request, next, entityId, false)
                            : Mono.error(new UpstreamRateLimitedException(target.name(), target.resource(),
                                    entityId, status, until.get()));
                    return response.releaseBody().then(afterPause);
                });
    }
}
