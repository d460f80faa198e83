package dev.zaelimiter.docs;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The examples of {@code docs/concurrency-waiting-and-pauses.md}. */
class FlowControlDocsExamplesTest {

    private final MutableClock clock = MutableClock.start();

    @Test
    void concurrencyLimit() {
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        // tag::concurrencyLimit[]
        limiter.admin().setResourceDefaults("render", List.of(
                Limit.concurrency("inflight", 2, Duration.ofMinutes(2)),   // at most 2 renders at once
                Limit.perMinute("rpm", 60)));

        Lease first = limiter.acquire("tenant-1", "render", Map.of("rpm", 1L));
        Lease second = limiter.acquire("tenant-1", "render", Map.of("rpm", 1L));
        assertThatThrownBy(() -> limiter.acquire("tenant-1", "render", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);          // both slots taken

        first.close();                                                    // gives its slot back
        limiter.acquire("tenant-1", "render", Map.of("rpm", 1L)).close();

        second.extend();                                                  // still working: keep the slot
        // end::concurrencyLimit[]
        assertThat(limiter.available("tenant-1", "render")).containsEntry("inflight", 1L);
    }

    @Test
    void abandonedSlot() {
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("render", List.of(Limit.concurrency("inflight", 1,
                Duration.ofMinutes(2))));
        // tag::abandonedSlot[]
        limiter.acquire("tenant-1", "render", Map.of());                 // the process dies before close()
        clock.advance(Duration.ofMinutes(2));                             // the lease timeout passes
        limiter.acquire("tenant-1", "render", Map.of()).close();         // the slot came back by itself
        // end::abandonedSlot[]
    }

    @Test
    void waiting() {
        // tag::waiting[]
        RateLimiter limiter = RateLimiter.builder()
                .clock(clock)
                .sleeper(clock::advance)                 // tests: waiting advances the test clock
                .build();
        limiter.admin().setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));   // one every 10 s
        for (int i = 0; i < 6; i++) {
            limiter.acquire("user-1", "reports", Map.of("rpm", 1L));
        }

        AcquireRequest patient = AcquireRequest.of("user-1", "reports").consume("rpm", 1)
                .maxWait(Duration.ofSeconds(15));
        limiter.acquire(patient);                        // waits about 10 s, then is admitted

        AcquireRequest hasty = AcquireRequest.of("user-1", "reports").consume("rpm", 1)
                .maxWait(Duration.ofSeconds(5));
        assertThatThrownBy(() -> limiter.acquire(hasty)) // 10 s would not fit: refused at once
                .isInstanceOf(RateLimitExceededException.class);
        // end::waiting[]
    }

    @Test
    void waitingPriority() {
        List<Duration> slept = new ArrayList<>();
        RateLimiter limiter = RateLimiter.builder().clock(clock).sleeper(d -> {
            slept.add(d);
            clock.advance(d);
        }).build();
        // tag::waitingPriority[]
        limiter.admin().setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));   // one every 10 s
        for (int i = 0; i < 6; i++) {
            limiter.acquire("user-2", "reports", Map.of("rpm", 1L));
        }
        // priority 1 books its whole maxWait ahead: the next token, 10 s away
        limiter.acquire(AcquireRequest.of("user-2", "reports").consume("rpm", 1).priority(1)
                .maxWait(Duration.ofSeconds(15)));
        // priority 0 books at most 7.5 s ahead: the next free token is 10 s away, so it books nothing yet
        AcquireRequest background = AcquireRequest.of("user-2", "reports").consume("rpm", 1)
                .maxWait(Duration.ofSeconds(15));
        limiter.acquire(background);                      // looks again after 2.5 s, then books the token 7.5 s ahead
        // end::waitingPriority[]
        assertThat(slept).hasSize(3);
        assertThat(slept.get(0)).isEqualTo(Duration.ofSeconds(10));
        assertThat(slept.get(1)).as("plus jitter").isBetween(Duration.ofMillis(2500), Duration.ofMillis(2750));
        assertThat(slept.get(1).plus(slept.get(2))).as("the booked slot, exact").isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void budgetsTogether() {
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        // tag::budgetsTogether[]
        limiter.admin().setResourceDefaults("send", List.of(Limit.perDay("messages", 10_000)));
        limiter.admin().setResourceDefaults("inbox", List.of(Limit.perDay("messages", 20)));
        limiter.admin().setResourceDefaults("smtp", List.of(Limit.perSecond("messages", 100)));

        AcquireRequest email = AcquireRequest.of("tenant-1", "send").consume("messages", 1)
                .also("alice@example.com", "inbox", Map.of("messages", 1L))     // the recipient's budget
                .also("shared", "smtp", Map.of("messages", 1L));                // the provider's budget
        try (Lease lease = limiter.acquire(email)) {
            assertThat(lease.statuses()).extracting(LimitStatus::entityId)
                    .containsExactly("tenant-1", "alice@example.com", "shared");
        }
        // end::budgetsTogether[]
    }

    @Test
    void upstreamPause() {
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("openai", List.of(Limit.perMinute("rpm", 500)));
        // tag::upstreamPause[]
        // the provider answered 429 with "Retry-After: 20": stop every caller of every process for 20 s
        limiter.pauseFromRetryAfter("openai", "20");

        assertThatThrownBy(() -> limiter.acquire("user-1", "openai", Map.of("rpm", 1L)))
                .isInstanceOfSatisfying(ResourcePausedException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(20)));

        limiter.resume("openai");                                   // or let the 20 s pass
        limiter.acquire("user-1", "openai", Map.of("rpm", 1L)).close();
        // end::upstreamPause[]
    }
}
