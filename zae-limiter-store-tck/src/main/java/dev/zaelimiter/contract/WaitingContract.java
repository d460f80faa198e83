package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.ClockSleeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waiting for capacity within maxWait: booked ahead where the store books ({@link #booksAhead()}), re-checked
 * against the store otherwise, and never booking what it will not use.
 */
public abstract class WaitingContract extends StoreContractSupport {

    private final List<Duration> slept = new ArrayList<>();
    private RateLimiter patient;

    @BeforeEach
    void patientLimiter() {
        patient = RateLimiter.builder().store(store).clock(clock).sleeper(d -> {
            slept.add(d);
            clock.advance(d);
        }).build();
        admin.setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));
        admin.setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1, Duration.ofSeconds(30))));
    }

    @Test
    void waitsForTheRefillWhenItFits() {
        for (int i = 0; i < 6; i++) {
            limiter.acquire("user-1", "reports", consume("rpm", 1));
        }
        patient.acquire(AcquireRequest.of("user-1", "reports").consume("rpm", 1).maxWait(Duration.ofSeconds(15)));
        // a default-priority waiter books at most half its maxWait ahead: it may look once before it books
        assertThat(slept.stream().reduce(Duration.ZERO, Duration::plus))
                .isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11));
    }

    @Test
    void aWaitLongerThanMaxWaitFailsAtOnceAndConsumesNothing() {
        for (int i = 0; i < 5; i++) {
            limiter.acquire("user-1", "reports", consume("rpm", 1));
        }
        assertThatThrownBy(() -> patient.acquire(AcquireRequest.of("user-1", "reports").consume("rpm", 3)
                .maxWait(Duration.ofSeconds(15)))).isInstanceOf(RateLimitExceededException.class);
        assertThat(slept).isEmpty();
        assertThat(limiter.available("user-1", "reports")).containsEntry("rpm", 1L);
    }

    @Test
    void aSlotWaiterIsAdmittedOnceTheSlotExpires() {
        limiter.acquire("user-1", "jobs", Map.of());
        Lease lease = patient.acquire(AcquireRequest.of("user-1", "jobs").maxWait(Duration.ofMinutes(1)));
        long waited = slept.stream().mapToLong(Duration::toMillis).sum();
        assertThat(waited).as("re-checked until the abandoned slot expired").isBetween(30_000L, 30_250L);
        lease.close();
    }

    @Test
    void aLargeRequestThatBookedFirstIsServedFirst() throws Exception {
        if (!booksAhead()) {
            return;
        }
        ClockSleeper sleeper = new ClockSleeper(clock);
        RateLimiter gated = RateLimiter.builder().store(store).clock(clock).sleeper(sleeper).build();
        for (int i = 0; i < 6; i++) {
            limiter.acquire("user-1", "reports", consume("rpm", 1));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Lease> large = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "reports").consume("rpm", 5).maxWait(Duration.ofMinutes(2))), pool);
            assertThat(sleeper.nextSleep()).as("the large request books the next 5 tokens, 50 s ahead")
                    .isEqualTo(Duration.ofSeconds(50));
            CompletableFuture<Lease> small = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "reports").consume("rpm", 1).maxWait(Duration.ofMinutes(2))), pool);
            assertThat(sleeper.nextSleep()).as("the small one books the token after them")
                    .isEqualTo(Duration.ofSeconds(60));

            clock.advance(Duration.ofSeconds(50));
            assertThat(large.get(30, TimeUnit.SECONDS)).isNotNull();
            assertThat(small).isNotDone();
            clock.advance(Duration.ofSeconds(10));
            assertThat(small.get(30, TimeUnit.SECONDS)).isNotNull();
        } finally {
            clock.advance(Duration.ofHours(1));
            pool.shutdownNow();
        }
    }

    /** Without booking (a store that keeps the interface's default), waiters re-check and small ones pass first. */
    @Test
    void aSmallRequestThatFitsNowDoesNotWaitBehindALargeOneThatDoesNot() throws Exception {
        if (booksAhead()) {
            return;
        }
        ClockSleeper sleeper = new ClockSleeper(clock);
        RateLimiter gated = RateLimiter.builder().store(store).clock(clock).sleeper(sleeper).build();
        for (int i = 0; i < 6; i++) {
            limiter.acquire("user-1", "reports", consume("rpm", 1));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Lease> large = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "reports").consume("rpm", 5).maxWait(Duration.ofMinutes(2))), pool);
            assertThat(sleeper.nextSleep()).as("the large request waits some 50 s for its tokens")
                    .isBetween(Duration.ofSeconds(50), Duration.ofSeconds(51));

            clock.advance(Duration.ofSeconds(10));      // one token back: enough for a small request only
            Lease small = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest.of("user-1", "reports")
                    .consume("rpm", 1).maxWait(Duration.ofMinutes(2))), pool).get(30, TimeUnit.SECONDS);

            assertThat(small.statuses()).singleElement().satisfies(s -> assertThat(s.available()).isZero());
            assertThat(large).isNotDone();
            clock.advance(Duration.ofSeconds(50));
            assertThat(large.get(30, TimeUnit.SECONDS).statuses()).singleElement()
                    .satisfies(s -> assertThat(s.available()).isZero());
        } finally {
            clock.advance(Duration.ofHours(1));
            pool.shutdownNow();
        }
    }
}
