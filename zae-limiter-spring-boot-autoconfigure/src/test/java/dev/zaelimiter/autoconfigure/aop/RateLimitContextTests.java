package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The thread-bound stack of leases behind {@link RateLimitContext}. */
class RateLimitContextTests {

    private final RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();

    {
        limiter.admin().setResourceDefaults("chat", List.of(Limit.perMinute("rpm", 100)));
        limiter.admin().setResourceDefaults("models", List.of(Limit.perMinute("rpm", 100)));
    }

    private Lease lease(String resource) {
        return limiter.acquire("user-1", resource, Map.of("rpm", 1L));
    }

    @AfterEach
    void nothingLeftOnTheThread() {
        assertThat(RateLimitContext.currentLease()).isEmpty();
    }

    @Test
    void emptyOutsideAnyScope() {
        assertThat(RateLimitContext.currentLease()).isEmpty();
        assertThat(RateLimitContext.currentLease("chat")).isEmpty();
    }

    @Test
    void scopesNestAndRestore() {
        Lease outer = lease("chat");
        Lease inner = lease("models");
        try (RateLimitContext.Scope a = RateLimitContext.open("chat", outer)) {
            assertThat(RateLimitContext.currentLease()).containsSame(outer);
            try (RateLimitContext.Scope b = RateLimitContext.open("models", inner)) {
                assertThat(RateLimitContext.currentLease()).containsSame(inner);
                assertThat(RateLimitContext.currentLease("chat")).containsSame(outer);
                assertThat(RateLimitContext.currentLease("models")).containsSame(inner);
                assertThat(RateLimitContext.currentLease("other")).isEmpty();
            }
            assertThat(RateLimitContext.currentLease()).containsSame(outer);
            assertThat(RateLimitContext.currentLease("models")).isEmpty();
        }
    }

    @Test
    void closingAnOuterScopeDiscardsInnerScopesLeftOpen() {
        RateLimitContext.Scope outer = RateLimitContext.open("chat", lease("chat"));
        RateLimitContext.Scope inner = RateLimitContext.open("models", lease("models"));
        outer.close();
        assertThat(RateLimitContext.currentLease()).isEmpty();
        inner.close();                                  // already discarded: nothing happens
        outer.close();                                  // closing twice: nothing happens
        assertThat(RateLimitContext.currentLease()).isEmpty();
    }

    @Test
    void otherThreadsDoNotSeeTheLeaseNorCloseTheScope() throws Exception {
        Lease lease = lease("chat");
        try (RateLimitContext.Scope scope = RateLimitContext.open("chat", lease)) {
            AtomicReference<Throwable> closing = new AtomicReference<>();
            boolean seen = CompletableFuture.supplyAsync(() -> {
                try {
                    scope.close();
                } catch (IllegalStateException e) {
                    closing.set(e);
                }
                return RateLimitContext.currentLease().isPresent();
            }).get();
            assertThat(seen).isFalse();
            assertThat(closing.get()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot be closed on");
            assertThat(RateLimitContext.currentLease()).containsSame(lease);
        }
    }

    @Test
    void nullsAreRefused() {
        assertThatThrownBy(() -> RateLimitContext.open(null, lease("chat"))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RateLimitContext.open("chat", null)).isInstanceOf(NullPointerException.class);
    }
}
