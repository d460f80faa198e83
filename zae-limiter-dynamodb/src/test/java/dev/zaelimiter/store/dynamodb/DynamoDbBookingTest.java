package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waiters of two processes booking one bucket on DynamoDB: consecutive slots in the order they ask, one
 * {@code UpdateItem} per booking, and no local refusal of a booking the store would make.
 */
class DynamoDbBookingTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final MutableClock clock = MutableClock.start();
    private final String namespace = "booking" + NAMESPACES.incrementAndGet();
    private final List<Duration> slept = new ArrayList<>();

    /** One process: its own store (what it knows of buckets), counting its requests, on the shared namespace. */
    private RateLimiter process(RequestCounter counter) {
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock).namespace(namespace)
                .client(Dynalite.get().client(counter)).build();
        return RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .sleeper(d -> {
                    slept.add(d);
                    clock.advance(d);
                }).build();
    }

    /**
     * {@code process} admits {@code request}, the clock then set back to where it was: the next call asks while this
     * one still waits for its slot (a waiter writes nothing while it waits).
     */
    private void admittedAsked(RateLimiter process, AcquireRequest request) {
        Instant asked = clock.instant();
        try (Lease lease = process.acquire(request)) {
            clock.set(asked);
        }
    }

    private static AcquireRequest waiter(Duration maxWait) {
        return AcquireRequest.of("user-1", "reports").consume("rpm", 1).priority(1).maxWait(maxWait);
    }

    @Test
    void aProcessThatSawTheBucketDrainedBooksTheNextSlotWithOneUpdateItem() {
        RequestCounter counter = new RequestCounter();
        RateLimiter a = process(counter);
        a.admin().setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));   // one every 10 s
        for (int i = 0; i < 6; i++) {
            a.acquire("user-1", "reports", Map.of("rpm", 1L)).close();
        }
        counter.reset();

        admittedAsked(a, waiter(Duration.ofSeconds(15)));

        assertThat(slept).as("booked, not refused locally").containsExactly(Duration.ofSeconds(10));
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 1L));
    }

    @Test
    void aWaitBeyondTheFillTimeIsBookedOnceItHasShrunkToIt() {
        RequestCounter counter = new RequestCounter();
        RateLimiter a = process(counter);
        a.admin().setResourceDefaults("reports", List.of(Limit.custom("rpm", 1, 1, Duration.ofSeconds(10))));
        a.acquire("user-1", "reports", Map.of("rpm", 1L)).adjust("rpm", 1);     // a token in debt: 20 s

        a.acquire(waiter(Duration.ofSeconds(30))).close();

        // not booked beyond the 10 s the limit takes to fill: it looks again after 10 s (plus jitter), then books
        assertThat(slept).hasSize(2);
        assertThat(slept.get(0)).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11));
        assertThat(slept.get(0).plus(slept.get(1))).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void aWaiterAsksTheStoreRatherThanGiveUpOnWhatItsProcessLastSaw() {
        RequestCounter counterA = new RequestCounter();
        RequestCounter counterB = new RequestCounter();
        RateLimiter a = process(counterA);
        RateLimiter b = process(counterB);
        a.admin().setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));
        Lease all = a.acquire("user-1", "reports", Map.of("rpm", 6L));
        assertThatThrownBy(() -> b.acquire("user-1", "reports", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);           // b has seen the bucket drained
        all.rollback();                                                    // a gives the tokens back
        counterB.reset();

        b.acquire(waiter(Duration.ofSeconds(5))).close();                 // the next token, 10 s away, would not fit

        assertThat(slept).as("admitted at once").isEmpty();
        assertThat(counterB.snapshot()).as("asked the store").containsKey("UpdateItem");
    }

    @Test
    void waitersOfTwoProcessesBookConsecutiveSlotsInTurnAtOneUpdateItemEach() {
        RequestCounter counterA = new RequestCounter();
        RequestCounter counterB = new RequestCounter();
        RateLimiter a = process(counterA);
        RateLimiter b = process(counterB);
        a.admin().setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));
        for (int i = 0; i < 6; i++) {
            a.acquire("user-1", "reports", Map.of("rpm", 1L)).close();
        }
        admittedAsked(b, waiter(Duration.ofMinutes(1)));       // b learns the bucket (its first guess is "full")
        counterA.reset();
        counterB.reset();

        for (int i = 0; i < 5; i++) {
            admittedAsked(i % 2 == 0 ? a : b, waiter(Duration.ofMinutes(1)));
        }

        assertThat(slept).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(30),
                Duration.ofSeconds(40), Duration.ofSeconds(50), Duration.ofSeconds(60));
        assertThat(counterA.total() + counterB.total()).as("requests for five bookings").isEqualTo(5);
        assertThatThrownBy(() -> a.acquire(waiter(Duration.ofSeconds(65)))).as("the next slot is 70 s ahead")
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(slept).hasSize(6);
    }
}
