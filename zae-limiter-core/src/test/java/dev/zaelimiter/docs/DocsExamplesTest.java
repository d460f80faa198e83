package dev.zaelimiter.docs;

import dev.zaelimiter.Attempt;
import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.Availability;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.Lease;
import dev.zaelimiter.LeaseClosedException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.UnknownLimitException;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Every Java example of the user guide in {@code docs/}. The code between {@code // tag::NAME[]} and
 * {@code // end::NAME[]} is what the page shows under {@code <!-- example: NAME -->}; {@link DocsSnippetsTest} checks
 * that the two stay identical.
 */
@DisplayName("docs examples")
class DocsExamplesTest {

    /** A store whose backend is down: every call fails with {@link StoreUnavailableException}. */
    static LimiterStore unreachableStore() {
        return (LimiterStore) Proxy.newProxyInstance(LimiterStore.class.getClassLoader(),
                new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close":
                            return null;
                        case "toString":
                            return "unreachable store";
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            throw new StoreUnavailableException("store unreachable",
                                    new IOException("connection refused"));
                    }
                });
    }

    @Nested
    @DisplayName("concepts.md")
    class Concepts {

        @Test
        void quickstart() {
            // tag::quickstart[]
            MutableClock clock = MutableClock.start();          // any java.time.Clock; this one is for tests
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 5)));

            for (int i = 0; i < 5; i++) {
                limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            }
            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);          // the 6th call

            clock.advance(Duration.ofSeconds(12));                            // 5 per minute: one every 12 s
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            // end::quickstart[]
        }

        @Test
        void lazyRefill() {
            // tag::lazyRefill[]
            MutableClock clock = MutableClock.start();
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 5)));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 5L)).close();    // empty now

            clock.advance(Duration.ofSeconds(6));                             // half a token: 500 milli-tokens
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 0L);
            clock.advance(Duration.ofSeconds(6));                             // the two halves make one token
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 1L);
            clock.advance(Duration.ofHours(1));                               // never above capacity
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 5L);
            // end::lazyRefill[]
        }

        @Test
        void clockBackwards() {
            // tag::clockBackwards[]
            MutableClock clock = MutableClock.start();
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 5)));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 5L)).close();

            clock.advance(Duration.ofSeconds(-30));                           // the clock steps back
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 0L);
            clock.advance(Duration.ofSeconds(42));                            // 12 s after the last write
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 1L);
            // end::clockBackwards[]
        }

        @Test
        void configurationLevels() {
            // tag::configurationLevels[]
            RateLimiter limiter = RateLimiter.builder().build();
            RateLimiterAdmin admin = limiter.admin();
            admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 100)));
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 1_000)));
            admin.setLimits("user-1", "_default_", List.of(Limit.perMinute("rpm", 50)));
            admin.setLimits("user-1", "gpt-4", List.of(Limit.perMinute("tpm", 5_000)));

            // user-1 on gpt-4: its own level for gpt-4 supplies everything; no rpm is merged in
            assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("tpm", 5_000L));
            // user-1 elsewhere: its _default_ level
            assertThat(limiter.available("user-1", "claude")).isEqualTo(Map.of("rpm", 50L));
            // anyone else on gpt-4: the resource defaults; anywhere else: the system defaults
            assertThat(limiter.available("user-2", "gpt-4")).isEqualTo(Map.of("rpm", 10L, "tpm", 1_000L));
            assertThat(limiter.available("user-2", "claude")).isEqualTo(Map.of("rpm", 100L));

            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(UnknownLimitException.class);               // user-1 has no rpm on gpt-4
            // end::configurationLevels[]
        }

        @Test
        void perCallLimits() {
            // tag::perCallLimits[]
            RateLimiter limiter = RateLimiter.builder().build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10)));

            AcquireRequest request = AcquireRequest.of("batch-7", "gpt-4")
                    .consume("rpm", 1)
                    .limits(List.of(Limit.perMinute("rpm", 1_000)));       // this call only
            try (Lease lease = limiter.acquire(request)) {
                assertThat(lease.statuses()).singleElement()
                        .satisfies(status -> assertThat(status.capacity()).isEqualTo(1_000));
            }
            // end::perCallLimits[]
        }

        @Test
        void badInput() {
            // tag::badInput[]
            RateLimiter limiter = RateLimiter.builder().build();

            assertThatThrownBy(() -> limiter.acquire("user#1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("entityId"));
            assertThatThrownBy(() -> Limit.perMinute("rpm", 0))
                    .isInstanceOf(ValidationException.class);
            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(NoLimitsConfiguredException.class);         // no level defines limits
            // end::badInput[]
        }

        @Test
        void unavailable() {
            // tag::unavailable[]
            LimiterStore store = unreachableStore();       // a store whose backend is down

            RateLimiter strict = RateLimiter.builder().store(store).build();                 // BLOCK by default
            assertThatThrownBy(() -> strict.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class);

            RateLimiter lenient = RateLimiter.builder().store(store).onUnavailable(Unavailable.ALLOW).build();
            try (Lease lease = lenient.acquire("user-1", "gpt-4", Map.of("rpm", 1L))) {
                assertThat(lease.degraded()).isTrue();     // admitted, nothing recorded
            }
            assertThatThrownBy(() -> lenient.acquire("user 1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(ValidationException.class);                 // bad input still fails
            // end::unavailable[]
        }

        @Test
        void policyPerCall() {
            SwitchableStore store = new SwitchableStore();
            MutableClock clock = MutableClock.start();
            // tag::policyPerCall[]
            RateLimiter limiter = RateLimiter.builder().store(store).clock(clock)
                    .onUnavailable(Unavailable.ALLOW)              // reads fail open
                    .build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
            AcquireRequest login = AcquireRequest.of("user-1", "api").consume("rpm", 1)
                    .onUnavailable(Unavailable.BLOCK);             // a login fails closed
            AcquireRequest read = AcquireRequest.of("user-1", "api").consume("rpm", 1);

            store.down();
            assertThatThrownBy(() -> limiter.acquire(login)).isInstanceOf(StoreUnavailableException.class);
            try (Lease lease = limiter.acquire(read)) {
                assertThat(lease.degraded()).isTrue();
                assertThat(lease.onUnavailable()).isEqualTo(Unavailable.ALLOW);
            }

            store.up();
            Instant hour = UsageGranularity.HOUR.periodStart(clock.instant());
            assertThat(limiter.admin().usage("user-1", UsageGranularity.HOUR, hour, hour.plus(Duration.ofHours(1))))
                    .extracting(Usage::admitted, Usage::consumed, Usage::degraded)
                    .containsExactly(tuple(1L, 0L, 1L));           // counted, marked degraded, never debited
            // end::policyPerCall[]
        }

        @Test
        void circuitBreaker() {
            SwitchableStore store = new SwitchableStore();
            MutableClock clock = MutableClock.start();
            // tag::circuitBreaker[]
            RateLimiter limiter = RateLimiter.builder().store(store).clock(clock)
                    .onUnavailable(Unavailable.ALLOW)
                    .circuitBreaker(5, Duration.ofSeconds(2))  // the defaults; noCircuitBreaker() turns it off
                    .build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 100)));

            store.down();                                  // every store call fails from now on
            for (int i = 0; i < 5; i++) {
                limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();   // degraded, after a store call
            }
            CircuitBreaker breaker = limiter.circuitBreaker();
            assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);   // a burst is not an outage
            clock.advance(Duration.ofSeconds(2));          // still failing a whole cool-down later:
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
            try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))) {
                assertThat(lease.degraded()).isTrue();     // at once: the store is not called
            }
            assertThat(breaker.skippedCalls()).isEqualTo(1);

            store.up();
            clock.advance(Duration.ofSeconds(2));          // the cool-down is over: the next call probes the store
            try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))) {
                assertThat(lease.degraded()).isFalse();
            }
            assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
            // end::circuitBreaker[]
        }
    }

    @Nested
    @DisplayName("limits-and-leases.md")
    class LimitsAndLeases {

        @Test
        void limitFactories() {
            // tag::limitFactories[]
            Limit rps = Limit.perSecond("rps", 10);                            // capacity 10, 10 per second
            Limit tpm = Limit.perMinute("tpm", 10_000).withBurst(20_000);      // capacity 20 000, 10 000 per minute
            Limit jobs = Limit.custom("jobs", 5, 1, Duration.ofSeconds(30));   // capacity 5, 1 every 30 s
            Limit cost = Limit.perDay("cost", 1_000).soft();                   // metered, never rejects

            assertThat(rps.capacity()).isEqualTo(10);
            assertThat(tpm.capacity()).isEqualTo(20_000);
            assertThat(tpm.refillAmount()).isEqualTo(10_000);
            assertThat(jobs.refillPeriod()).isEqualTo(Duration.ofSeconds(30));
            assertThat(cost.isSoft()).isTrue();
            assertThatThrownBy(() -> Limit.custom("jobs", 5, 0, Duration.ofSeconds(30)))
                    .isInstanceOf(ValidationException.class);
            // end::limitFactories[]
        }

        @Test
        void burst() {
            // tag::burst[]
            MutableClock clock = MutableClock.start();
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("search", List.of(Limit.perMinute("rpm", 60).withBurst(100)));

            limiter.acquire("user-1", "search", Map.of("rpm", 100L)).close();  // a whole burst at once
            assertThatThrownBy(() -> limiter.acquire("user-1", "search", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);
            clock.advance(Duration.ofSeconds(1));                              // then 60 per minute again
            limiter.acquire("user-1", "search", Map.of("rpm", 1L)).close();
            // end::burst[]
        }

        @Test
        void severalLimits() {
            // tag::severalLimits[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 1_000)));

            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 800L)).close();
            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 800L)))
                    .isInstanceOf(RateLimitExceededException.class);          // tpm lacks 600 tokens
            // rpm had room, but the rejected call took nothing from it either
            assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 9L, "tpm", 200L));
            // end::severalLimits[]
        }

        @Test
        void adjust() {
            // tag::adjust[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 10_000)));

            try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 500L))) {
                int used = 320;                    // what the model reported, against 500 estimated
                lease.adjust("tpm", used - 500);   // gives 180 back
            }
            assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 9L, "tpm", 9_680L));
            // end::adjust[]
        }

        @Test
        void adjustIntoDebt() {
            // tag::adjustIntoDebt[]
            MutableClock clock = MutableClock.start();
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 10_000)));

            try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("tpm", 9_000L))) {
                lease.adjust("tpm", 3_000);        // longer answer than estimated: never rejected
            }
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", -2_000L);
            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("tpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);

            clock.advance(Duration.ofSeconds(15));                             // refill climbs out of debt
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", 500L);
            // end::adjustIntoDebt[]
        }

        @Test
        void rollback() {
            // tag::rollback[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 10_000)));

            Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 500L));
            lease.adjust("tpm", 100);
            lease.rollback();                      // returns 1 rpm and 600 tpm, and closes the lease
            assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 10L, "tpm", 10_000L));
            // end::rollback[]
        }

        @Test
        void rollbackAfterARefund() {
            // tag::rollbackAfterARefund[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 10_000)));

            Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("tpm", 500L));
            lease.adjust("tpm", -800);             // gives back more than it took: the bucket stops at its capacity
            lease.rollback();                      // the lease holds nothing: gives nothing back, takes nothing
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", 10_000L);
            // end::rollbackAfterARefund[]
        }

        @Test
        void exactlyOnce() {
            // tag::exactlyOnce[]
            RateLimiter limiter = RateLimiter.builder().build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 10_000)));

            Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("tpm", 500L));
            lease.rollback();
            assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
            assertThatThrownBy(() -> lease.adjust("tpm", 10)).isInstanceOf(LeaseClosedException.class);
            lease.close();                         // closing again is harmless

            Lease kept = limiter.acquire("user-1", "gpt-4", Map.of("tpm", 500L));
            kept.close();
            assertThatThrownBy(kept::rollback).isInstanceOf(LeaseClosedException.class);
            // end::exactlyOnce[]
        }

        @Test
        void call() throws Exception {
            // tag::call[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 10_000)));
            AcquireRequest request = AcquireRequest.of("user-1", "gpt-4").consume("rpm", 1).consume("tpm", 500);

            String answer = limiter.call(request, () -> "a reply");
            assertThat(answer).isEqualTo("a reply");

            assertThatThrownBy(() -> limiter.call(request, () -> {
                throw new IOException("model timed out");
            })).isInstanceOf(IOException.class);
            // only the successful call is still counted
            assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 9L, "tpm", 9_500L));
            // end::call[]
        }

        @Test
        void checkAvailability() {
            // tag::checkAvailability[]
            MutableClock clock = MutableClock.start();
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10)));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 10L)).close();

            Availability now = limiter.checkAvailability("user-1", "gpt-4", Map.of("rpm", 1L));
            assertThat(now.allowed()).isFalse();
            assertThat(now.retryAfter()).isEqualTo(Duration.ofSeconds(6));    // 10 per minute

            clock.advance(now.retryAfter());
            assertThat(limiter.checkAvailability("user-1", "gpt-4", Map.of("rpm", 1L)).allowed()).isTrue();
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 1L);   // nothing consumed
            // end::checkAvailability[]
        }

        @Test
        void tryAcquire() {
            // tag::tryAcquire[]
            MutableClock clock = MutableClock.start();
            RateLimiter limiter = RateLimiter.builder().clock(clock).build();
            limiter.admin().setResourceDefaults("search", List.of(Limit.perSecond("rps", 2)));

            for (int call = 1; call <= 3; call++) {
                Attempt attempt = limiter.tryAcquire("user-1", "search", Map.of("rps", 1L));
                if (!attempt.admitted()) {                                   // the 3rd call: answered, not raised
                    assertThat(call).isEqualTo(3);
                    assertThat(attempt.retryAfter()).isEqualTo(Duration.ofMillis(500));
                    assertThat(attempt.statuses().get(0).exceeded()).isTrue();
                    assertThatThrownBy(attempt::lease).isSameAs(attempt.refusal());  // what acquire raises
                    continue;
                }
                try (Lease lease = attempt.lease()) {                        // the lease itself
                    assertThat(lease).isSameAs(attempt);
                }
            }
            clock.advance(Duration.ofMillis(500));
            assertThat(limiter.tryAcquire("user-1", "search", Map.of("rps", 1L)).admitted()).isTrue();
            // end::tryAcquire[]
        }

        @Test
        void rejection() {
            // tag::rejection[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 1_000)));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 1_000L)).close();

            RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                    () -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 500L)));

            assertThat(e.statuses()).extracting(LimitStatus::limitName).containsExactly("rpm", "tpm");
            assertThat(e.passed()).extracting(LimitStatus::limitName).containsExactly("rpm");
            LimitStatus tpm = e.violations().get(0);
            assertThat(tpm.limitName()).isEqualTo("tpm");
            assertThat(tpm.available()).isEqualTo(0);
            assertThat(tpm.requested()).isEqualTo(500);
            assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30));     // 500 tokens at 1 000 per minute

            Map<String, Object> body = e.toMap();                             // ready for a JSON encoder
            assertThat(body).containsEntry("error", "rate_limit_exceeded")
                    .containsEntry("retry_after_ms", 30_000L)
                    .containsKeys("message", "violations", "passed");
            assertThat(tpm.toMap()).containsEntry("limit", "tpm").containsEntry("soft", false);
            // end::rejection[]
        }

        @Test
        void unsatisfiable() {
            // tag::unsatisfiable[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 1_000)));

            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("tpm", 5_000L)))
                    .isInstanceOfSatisfying(UnsatisfiableRequestException.class, e -> {
                        assertThat(e.limitName()).isEqualTo("tpm");
                        assertThat(e.capacity()).isEqualTo(1_000);
                        assertThat(e.requested()).isEqualTo(5_000);
                    });
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", 1_000L);
            // end::unsatisfiable[]
        }
    }

    @Nested
    @DisplayName("hierarchy-and-cascade.md")
    class HierarchyAndCascade {

        @Test
        void entities() {
            // tag::entities[]
            RateLimiter limiter = RateLimiter.builder().build();
            RateLimiterAdmin admin = limiter.admin();

            admin.createEntity(Entity.of("org-acme").withName("Acme Corp"));
            admin.createEntity(Entity.of("user-alice").withParent("org-acme").withCascade(true));
            admin.createEntity(Entity.of("user-bob").withParent("org-acme"));        // no cascade

            assertThat(admin.getEntity("user-alice")).get()
                    .satisfies(alice -> assertThat(alice.parentId()).isEqualTo("org-acme"));
            assertThat(admin.children("org-acme")).extracting(Entity::id).containsExactly("user-alice", "user-bob");
            assertThatThrownBy(() -> admin.createEntity("org-acme")).isInstanceOf(EntityExistsException.class);
            assertThatThrownBy(() -> admin.deleteEntity("org-acme"))
                    .isInstanceOf(ValidationException.class);                 // it still has children
            // end::entities[]
        }

        @Test
        void cascade() {
            // tag::cascade[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.createEntity("org-acme");
            admin.createEntity(Entity.of("user-alice").withParent("org-acme").withCascade(true));
            admin.createEntity(Entity.of("user-bob").withParent("org-acme").withCascade(true));
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 600)));      // per user
            admin.setLimits("org-acme", "gpt-4", List.of(Limit.perMinute("tpm", 1_000)));  // the whole org

            limiter.acquire("user-alice", "gpt-4", Map.of("tpm", 600L)).close();
            assertThat(limiter.available("org-acme", "gpt-4")).containsEntry("tpm", 400L);

            RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                    () -> limiter.acquire("user-bob", "gpt-4", Map.of("tpm", 500L)));
            assertThat(e.statuses()).extracting(LimitStatus::entityId).containsExactly("user-bob", "org-acme");
            assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly("org-acme");
            assertThat(limiter.available("user-bob", "gpt-4")).containsEntry("tpm", 600L);   // not debited
            // end::cascade[]
        }

        @Test
        void parentFallsBack() {
            // tag::parentFallsBack[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.createEntity("org-acme");                                     // no limits of its own
            admin.createEntity(Entity.of("user-alice").withParent("org-acme").withCascade(true));
            admin.createEntity(Entity.of("user-bob").withParent("org-acme").withCascade(true));
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 5)));

            for (int i = 0; i < 5; i++) {
                limiter.acquire("user-alice", "gpt-4", Map.of("rpm", 1L)).close();
            }
            // the org also got 5 per minute, now shared by all its children
            assertThatThrownBy(() -> limiter.acquire("user-bob", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);
            // end::parentFallsBack[]
        }

        @Test
        void cascadePolicy() {
            // tag::cascadePolicy[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.createEntity("org-acme");
            admin.createEntity(Entity.of("user-alice").withParent("org-acme").withCascade(true));
            admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 100)));
            admin.setResourceCascade("budget", false);                          // budgets are per user

            limiter.acquire("user-alice", "gpt-4", Map.of("rpm", 1L)).close();  // cascades: creation flag
            limiter.acquire("user-alice", "budget", Map.of("rpm", 1L)).close(); // does not: resource policy
            assertThat(limiter.available("org-acme", "gpt-4")).containsEntry("rpm", 99L);
            assertThat(limiter.available("org-acme", "budget")).containsEntry("rpm", 100L);

            admin.setEntityCascade("user-alice", "budget", true);               // the entity's policy wins
            limiter.acquire("user-alice", "budget", Map.of("rpm", 1L)).close();
            assertThat(limiter.available("org-acme", "budget")).containsEntry("rpm", 99L);
            // end::cascadePolicy[]
        }

        @Test
        void setParent() {
            // tag::setParent[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.createEntity("org-north");
            admin.createEntity("org-south");
            admin.createEntity(Entity.of("user-bob").withParent("org-north").withCascade(true));
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 1_000)));

            Lease before = limiter.acquire("user-bob", "gpt-4", Map.of("tpm", 300L));
            admin.setParent("user-bob", "org-south");
            limiter.acquire("user-bob", "gpt-4", Map.of("tpm", 200L)).close();   // debits org-south
            before.adjust("tpm", 100);               // lands on org-north, where this lease took its tokens
            before.close();

            assertThat(limiter.available("org-north", "gpt-4")).containsEntry("tpm", 600L);
            assertThat(limiter.available("org-south", "gpt-4")).containsEntry("tpm", 800L);
            assertThatThrownBy(() -> admin.setParent("org-south", "user-bob"))
                    .isInstanceOf(ValidationException.class);                 // user-bob is a child, not a root
            // end::setParent[]
        }
    }

    @Nested
    @DisplayName("soft-limits-and-bypass.md")
    class SoftLimitsAndBypass {

        @Test
        void softLimit() {
            // tag::softLimit[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 500), Limit.perMinute("tpm", 1_000).soft()));

            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 800L)).close();
            try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 800L))) {
                assertThat(lease.overdrawn()).containsExactly("tpm");          // admitted, and in debt
            }
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", -600L);
            // end::softLimit[]
        }

        @Test
        void softInRejection() {
            // tag::softInRejection[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4",
                    List.of(Limit.perMinute("rpm", 1), Limit.perMinute("tpm", 1_000).soft()));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 800L)).close();

            RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                    () -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 800L)));
            assertThat(e.violations()).extracting(LimitStatus::limitName).containsExactly("rpm");
            assertThat(e.passed()).singleElement().satisfies(tpm -> {
                assertThat(tpm.limitName()).isEqualTo("tpm");
                assertThat(tpm.soft()).isTrue();
            });
            assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(1));      // from rpm alone
            // end::softInRejection[]
        }

        @Test
        void softTravels() {
            // tag::softTravels[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 1_000).soft()));
            admin.setLimits("user-1", "gpt-4", List.of(Limit.perMinute("tpm", 1_000)));   // hard for user-1

            limiter.acquire("user-1", "gpt-4", Map.of("tpm", 800L)).close();
            assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("tpm", 800L)))
                    .isInstanceOf(RateLimitExceededException.class);

            limiter.acquire("user-2", "gpt-4", Map.of("tpm", 800L)).close();
            limiter.acquire("user-2", "gpt-4", Map.of("tpm", 800L)).close();   // soft for everyone else
            // end::softTravels[]
        }

        @Test
        void softOverCapacity() {
            // tag::softOverCapacity[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 1_000).soft()));

            try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("tpm", 5_000L))) {
                assertThat(lease.overdrawn()).containsExactly("tpm");
            }
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", -4_000L);
            // end::softOverCapacity[]
        }

        @Test
        void disabledWalk() {
            // tag::disabledWalk[]
            RateLimiter limiter = RateLimiter.builder().build();
            RateLimiterAdmin admin = limiter.admin();
            admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
            Map<String, Long> one = Map.of("rpm", 1L);

            admin.setResourceDisabled("res-a", DisabledMode.BYPASS);
            assertThat(limiter.acquire("user-1", "res-a", one).bypassed()).isTrue();

            admin.setResourceDisabled("res-b", DisabledMode.DISABLED);
            admin.setEntityDisabled("user-1", "res-b", DisabledMode.BYPASS);       // a carve-out
            assertThat(limiter.acquire("user-1", "res-b", one).bypassed()).isTrue();

            admin.setResourceDisabled("res-c", DisabledMode.BYPASS);
            admin.setEntityDisabled("user-1", "res-c", DisabledMode.DISABLED);
            assertThatThrownBy(() -> limiter.acquire("user-1", "res-c", one))
                    .isInstanceOf(ResourceDisabledException.class);

            admin.setResourceDisabled("res-d", DisabledMode.BYPASS);
            admin.setEntityDisabled("user-1", "res-d", DisabledMode.ENABLED);
            assertThat(limiter.acquire("user-1", "res-d", one).bypassed()).isFalse();

            admin.setEntityDisabled("user-2", "_default_", DisabledMode.DISABLED);  // every resource...
            admin.setEntityDisabled("user-2", "res-e", DisabledMode.ENABLED);       // ...but this one
            assertThatThrownBy(() -> limiter.acquire("user-2", "res-a", one))
                    .isInstanceOf(ResourceDisabledException.class);
            assertThat(limiter.acquire("user-2", "res-e", one).bypassed()).isFalse();
            // end::disabledWalk[]
        }

        @Test
        void bypass() {
            // tag::bypass[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 2)));
            admin.setEntityDisabled("vip-1", "gpt-4", DisabledMode.BYPASS);

            for (int i = 0; i < 10; i++) {
                try (Lease lease = limiter.acquire("vip-1", "gpt-4", Map.of("rpm", 1L))) {
                    assertThat(lease.bypassed()).isTrue();
                }
            }
            assertThat(limiter.available("vip-1", "gpt-4")).containsEntry("rpm", 2L);   // nothing debited
            assertThat(limiter.checkAvailability("vip-1", "gpt-4", Map.of("rpm", 2L)).bypassed()).isTrue();

            admin.clearEntityDisabled("vip-1", "gpt-4");          // enforced again, with the balance it had
            limiter.acquire("vip-1", "gpt-4", Map.of("rpm", 2L)).close();
            assertThatThrownBy(() -> limiter.acquire("vip-1", "gpt-4", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);
            // end::bypass[]
        }

        @Test
        void bypassedChildDebitsParent() {
            // tag::bypassedChildDebitsParent[]
            RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
            RateLimiterAdmin admin = limiter.admin();
            admin.createEntity("org-acme");
            admin.createEntity(Entity.of("vip-1").withParent("org-acme").withCascade(true));
            admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10)));
            admin.setLimits("org-acme", "gpt-4", List.of(Limit.perMinute("rpm", 3)));
            admin.setEntityDisabled("vip-1", "_default_", DisabledMode.BYPASS);

            for (int i = 0; i < 3; i++) {
                try (Lease lease = limiter.acquire("vip-1", "gpt-4", Map.of("rpm", 1L))) {
                    assertThat(lease.bypassed()).isTrue();
                }
            }
            assertThat(limiter.available("org-acme", "gpt-4")).containsEntry("rpm", 0L);
            RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                    () -> limiter.acquire("vip-1", "gpt-4", Map.of("rpm", 1L)));
            assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly("org-acme");
            // end::bypassedChildDebitsParent[]
        }
    }
}
