package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Lease;
import dev.zaelimiter.LeaseClosedException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.ReactiveRateLimitContext;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

/**
 * {@code @RateLimited} on methods returning {@link Mono} or {@link Flux}: nothing is acquired, and the method does not
 * run, until the returned publisher is subscribed to. Then the leases are acquired in declaration order (waiting up to
 * {@code maxWait} without blocking, see {@link ReactiveRateLimiter}), the method runs with them in
 * {@link RateLimitContext} (while it assembles its publisher) and in the Reactor context
 * ({@link ReactiveRateLimitContext}), and they end in reverse order: closed when the publisher completes, rolled back
 * when it fails with an exception the annotation names in {@code rollbackOn}, and on cancellation when
 * {@code rollbackOn} matches a {@link CancellationException} (as the default {@code Throwable} does). Each
 * subscription is a separate call. Loaded only when Reactor is on the classpath.
 */
final class ReactiveRateLimitedCalls {

    private static final Logger log = LoggerFactory.getLogger(ReactiveRateLimitedCalls.class);

    private final Supplier<RateLimiter> limiter;
    private final BeanFactory beanFactory;
    private volatile ReactiveRateLimiter reactive;

    /**
     * Calls that use the application's {@link ReactiveRateLimiter} bean, or else one over {@code limiter} that calls
     * the store inline when it is in memory and on the bounded-elastic scheduler otherwise.
     */
    ReactiveRateLimitedCalls(Supplier<RateLimiter> limiter, BeanFactory beanFactory) {
        this.limiter = limiter;
        this.beanFactory = beanFactory;
    }

    private ReactiveRateLimiter reactive() {
        ReactiveRateLimiter current = reactive;
        if (current == null) {
            current = beanFactory == null ? null
                    : beanFactory.getBeanProvider(ReactiveRateLimiter.class).getIfAvailable();
            if (current == null) {
                RateLimiter rateLimiter = limiter.get();
                current = ReactiveRateLimiter.of(rateLimiter, !(rateLimiter.store() instanceof InMemoryStore));
            }
            reactive = current;
        }
        return current;
    }

    /** Whether a method returning {@code type} is handled here. */
    static boolean handles(Class<?> type) {
        return type == Mono.class || type == Flux.class;
    }

    /** The publisher the caller gets for one call, with its entities and amounts evaluated already. */
    Object invoke(MethodInvocation invocation, RateLimitedMethod limited, String[] entities,
            Map<String, Long>[] amounts) {
        ReactiveRateLimiter reactive = reactive();
        RateLimitedMethod.Operation[] operations = limited.operations;
        Mono<Lease[]> acquired = acquireAll(reactive, operations, entities, amounts);
        if (limited.method.getReturnType() == Mono.class) {
            return Mono.usingWhen(acquired, leases -> Mono.from(proceed(invocation, operations, leases)),
                    leases -> end(reactive, operations, leases, null),
                    (leases, failure) -> end(reactive, operations, leases, failure),
                    leases -> end(reactive, operations, leases, new CancellationException("cancelled")));
        }
        return Flux.usingWhen(acquired, leases -> proceed(invocation, operations, leases),
                leases -> end(reactive, operations, leases, null),
                (leases, failure) -> end(reactive, operations, leases, failure),
                leases -> end(reactive, operations, leases, new CancellationException("cancelled")));
    }

    private static Mono<Lease[]> acquireAll(ReactiveRateLimiter reactive, RateLimitedMethod.Operation[] operations,
            String[] entities, Map<String, Long>[] amounts) {
        return Mono.defer(() -> {
            Lease[] leases = new Lease[operations.length];
            return Flux.range(0, operations.length)
                    .concatMap(i -> {
                        RateLimitedMethod.Operation operation = operations[i];
                        return reactive.acquire(operation.request(entities[i], amounts[i]))
                                .doOnNext(lease -> leases[i] = lease);
                    })
                    .then(Mono.fromSupplier(() -> leases))
                    .onErrorResume(rejected -> rollbackAcquired(reactive, leases, rejected).then(Mono.error(rejected)))
                    .doOnCancel(() -> rollbackAcquired(reactive, leases, null).subscribe());
        });
    }

    private static Publisher<?> proceed(MethodInvocation invocation, RateLimitedMethod.Operation[] operations,
            Lease[] leases) {
        RateLimitContext.Scope[] scopes = new RateLimitContext.Scope[leases.length];
        Object result;
        try {
            for (int i = 0; i < leases.length; i++) {
                scopes[i] = RateLimitContext.open(operations[i].resource, leases[i]);
            }
            // a clone per subscription: subscribing twice calls the method twice, each with its own leases
            MethodInvocation call = invocation instanceof ProxyMethodInvocation proxied
                    ? proxied.invocableClone() : invocation;
            result = call.proceed();
        } catch (Throwable failure) {
            return Mono.error(failure);
        } finally {
            for (int i = scopes.length - 1; i >= 0; i--) {
                if (scopes[i] != null) {
                    scopes[i].close();
                }
            }
        }
        if (result == null) {
            return Mono.empty();
        }
        Context leaseContext = Context.empty();
        for (int i = 0; i < leases.length; i++) {
            leaseContext = leaseContext.put(ReactiveRateLimitContext.key(operations[i].resource), leases[i]);
        }
        Context context = leaseContext;
        return result instanceof Mono<?> mono ? mono.contextWrite(c -> c.putAll(context.readOnly()))
                : Flux.from((Publisher<?>) result).contextWrite(c -> c.putAll(context.readOnly()));
    }

    /**
     * Ends the leases in reverse order: rolled back when {@code failure} matches their annotation, closed
     * otherwise. Never fails (the caller's signal must pass): a failure to end a lease is logged.
     */
    private static Mono<Void> end(ReactiveRateLimiter reactive, RateLimitedMethod.Operation[] operations,
            Lease[] leases, Throwable failure) {
        Mono<Void> all = failure != null && UpstreamPauses.any(operations)
                ? reactive.call(() -> {
                    UpstreamPauses.after(reactive.limiter(), operations, failure);
                    return null;
                })
                : Mono.empty();
        for (int i = leases.length - 1; i >= 0; i--) {
            RateLimitedMethod.Operation operation = operations[i];
            Lease lease = leases[i];
            boolean rollback = failure != null && operation.rollsBackOn(failure);
            all = all.then((rollback ? reactive.rollback(lease) : reactive.close(lease))
                    .onErrorResume(LeaseClosedException.class, alreadyEnded -> Mono.empty())
                    .onErrorResume(RuntimeException.class, e -> {
                        log.warn("could not end the lease of {}", operation.where, e);
                        return Mono.empty();
                    }));
        }
        return all;
    }

    private static Mono<Void> rollbackAcquired(ReactiveRateLimiter reactive, Lease[] leases, Throwable cause) {
        Mono<Void> all = Mono.empty();
        for (int i = leases.length - 1; i >= 0; i--) {
            if (leases[i] != null) {
                Lease lease = leases[i];
                all = all.then(reactive.rollback(lease).onErrorResume(RuntimeException.class, e -> {
                    if (cause != null && cause != e) {
                        cause.addSuppressed(e);
                    }
                    return Mono.empty();
                }));
            }
        }
        return all;
    }
}
