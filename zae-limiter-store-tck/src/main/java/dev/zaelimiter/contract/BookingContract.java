package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireInterruptedException;
import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Sleeper;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.LimiterStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Booking a future slot ({@link LimiterStore#tryAcquire(List, long, long)}): a dripping limit taken into debt that
 * its refill pays back within the horizon, the wait until then, nothing booked beyond it, never a quota or a slot,
 * and a booking given back exactly. A store that books nothing ({@link #booksAhead()} false: the interface's
 * default) must answer a booking as {@code tryAcquire}.
 */
public abstract class BookingContract extends StoreContractSupport {

    private static final String RESOURCE = "reports";
    private static final List<Limit> RPM = List.of(Limit.perMinute("rpm", 6));      // one token every 10 s

    private static BucketDebit debit(List<Limit> limits, String limit, long tokens) {
        return new BucketDebit(new BucketKey("user-1", RESOURCE), limits, Map.of(limit, tokens * LimitState.MILLI),
                false, true);
    }

    private AcquireResult book(BucketDebit debit, long horizonMillis) {
        return store.tryAcquire(List.of(debit), clock.millis(), horizonMillis);
    }

    private long balanceMilli(BucketDebit debit) {
        return store.peek(List.of(debit), clock.millis()).get(0).state().balanceMilli("rpm");
    }

    private void drain() {
        admin.setResourceDefaults(RESOURCE, RPM);
        for (int i = 0; i < 6; i++) {
            limiter.acquire("user-1", RESOURCE, consume("rpm", 1));
        }
    }

    @Test
    void aDrainedBucketBooksTheNextSlotsWithinTheHorizonAndNothingBeyond() {
        drain();
        BucketDebit one = debit(RPM, "rpm", 1);

        AcquireResult first = book(one, 10_000);
        if (!booksAhead()) {
            assertThat(first.admitted()).isFalse();
            assertThat(first.waitMillis()).isZero();
            return;
        }
        assertThat(first.admitted()).isTrue();
        assertThat(first.waitMillis()).isEqualTo(10_000);

        AcquireResult beyond = book(one, 19_999);
        assertThat(beyond.admitted()).as("the next slot comes in 20 s").isFalse();
        assertThat(beyond.waitMillis()).isZero();
        assertThat(balanceMilli(one)).as("a refusal books nothing").isEqualTo(-LimitState.MILLI);

        AcquireResult second = book(one, 20_000);
        assertThat(second.admitted()).isTrue();
        assertThat(second.waitMillis()).isEqualTo(20_000);

        clock.advance(Duration.ofSeconds(20));
        assertThat(balanceMilli(one)).as("both slots have come").isZero();
    }

    @Test
    void noBookingGoesFurtherAheadThanTheLimitTakesToFill() {
        drain();
        if (!booksAhead()) {
            return;
        }
        BucketDebit one = debit(RPM, "rpm", 1);
        long hour = Duration.ofHours(1).toMillis();
        for (int slot = 1; slot <= 6; slot++) {
            assertThat(book(one, hour).waitMillis()).isEqualTo(slot * 10_000L);
        }
        assertThat(book(one, hour).admitted()).as("70 s ahead: beyond the 60 s the limit takes to fill").isFalse();
        assertThat(one.bookingHorizon(clock.millis(), hour)).isEqualTo(60_000);
    }

    @Test
    void aBucketThatHoldsTheTokensAdmitsWithoutWaitAndNoHorizonBooksNothing() {
        admin.setResourceDefaults(RESOURCE, RPM);
        BucketDebit one = debit(RPM, "rpm", 1);

        AcquireResult now = book(one, 60_000);
        assertThat(now.admitted()).isTrue();
        assertThat(now.waitMillis()).isZero();

        BucketDebit rest = debit(RPM, "rpm", 5);
        assertThat(book(rest, 0).admitted()).isTrue();
        assertThat(book(one, 0).admitted()).as("a horizon of zero is tryAcquire").isFalse();
        assertThat(balanceMilli(one)).isZero();
    }

    @Test
    void aBookingGivenBackLeavesTheBucketAsIfItHadNeverBeenMade() {
        drain();
        BucketDebit one = debit(RPM, "rpm", 1);
        if (!booksAhead()) {
            return;
        }
        assertThat(book(one, 10_000).admitted()).isTrue();
        clock.advance(Duration.ofSeconds(4));

        store.apply(List.of(one.withAmounts(Map.of("rpm", -LimitState.MILLI))), clock.millis());

        assertThat(balanceMilli(one)).isEqualTo(400);
        clock.advance(Duration.ofSeconds(6));
        assertThat(balanceMilli(one)).isEqualTo(LimitState.MILLI);
    }

    @Test
    void aQuotaIsNeverTakenIntoDebt() {
        List<Limit> quota = List.of(Limit.fixedWindow("rpm", 2, Duration.ofMinutes(1)));
        admin.setResourceDefaults(RESOURCE, quota);
        BucketDebit one = debit(quota, "rpm", 1);
        assertThat(book(one, 0).admitted()).isTrue();
        assertThat(book(one, 0).admitted()).isTrue();

        AcquireResult booked = book(one, Duration.ofHours(1).toMillis());

        assertThat(booked.admitted()).as("the window's reset would forget a debt").isFalse();
        assertThat(balanceMilli(one)).isZero();
    }

    @Test
    void waitersOfTwoProcessesBookConsecutiveSlotsInTheOrderTheyAskWithOneRequestEach() {
        if (!booksAhead()) {
            return;                 // its waiters re-check, which needs a sleeper that moves the clock
        }
        drain();
        AtomicInteger requests = new AtomicInteger();
        LimiterStore counted = new ForwardingStore() {
            @Override
            protected LimiterStore delegate() {
                return store;
            }

            @Override
            public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
                requests.incrementAndGet();
                return super.tryAcquire(debits, now, horizonMillis);
            }

            @Override
            public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
                requests.incrementAndGet();
                return super.tryAcquire(debits, now);
            }

            @Override
            public void close() {
            }
        };
        List<Duration> slept = Collections.synchronizedList(new ArrayList<>());
        Sleeper sleeper = d -> {
            slept.add(d);
            clock.advance(d);
        };
        RateLimiter first = RateLimiter.builder().store(counted).clock(clock).sleeper(sleeper).build();
        RateLimiter second = RateLimiter.builder().store(counted).clock(clock).sleeper(sleeper).build();
        AcquireRequest patient = AcquireRequest.of("user-1", RESOURCE).consume("rpm", 1).priority(1)
                .maxWait(Duration.ofSeconds(25));
        requests.set(0);
        Instant asked = clock.instant();

        first.acquire(patient).close();
        clock.set(asked);               // the second asks while the first waits (nothing was written since)
        second.acquire(patient).close();

        assertThat(slept).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(20));
        assertThat(requests).as("one store request per admitted waiter").hasValue(2);
    }

    @Test
    void aBookedWaiterInterruptedBeforeItsSlotGivesTheBookingBack() {
        drain();
        if (!booksAhead()) {
            return;
        }
        RateLimiter interrupted = RateLimiter.builder().store(store).clock(clock).sleeper(d -> {
            throw new InterruptedException("stop");
        }).build();
        BucketDebit one = debit(RPM, "rpm", 1);

        assertThatThrownBy(() -> interrupted.acquire(AcquireRequest.of("user-1", RESOURCE).consume("rpm", 1)
                .priority(1).maxWait(Duration.ofSeconds(15)))).isInstanceOf(AcquireInterruptedException.class);

        assertThat(Thread.interrupted()).as("the interrupt flag is set").isTrue();
        assertThat(balanceMilli(one)).as("nothing stays booked").isZero();
        assertThat(book(one, 10_000).waitMillis()).as("the slot is free for the next waiter").isEqualTo(10_000);
    }
}
