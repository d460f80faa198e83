package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Waiting for capacity, re-checked against the store: within maxWait, and never booking what it will not use. */
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
        assertThat(slept).singleElement()
                .satisfies(d -> assertThat(d).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11)));
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
}
