package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.math.BigInteger;
import java.util.List;

/**
 * The two instants a bucket item carries besides its state: its deadline (until when the fast path may trust the
 * stored state) and its time to live (when DynamoDB may delete an idle default-derived bucket).
 */
final class ItemTimes {

    private ItemTimes() {
    }

    /**
     * Until when the fast path may trust the stored state: the stamp's time to live, and the next instant any
     * limit's parameters change, resets, or ends a session.
     */
    static long deadline(List<Limit> limits, BucketState state, long now, long stampTtlMillis) {
        long deadline = now + stampTtlMillis;
        for (Limit limit : limits) {
            deadline = Math.min(deadline, Limits.nextChangeAfter(limit, now));
            deadline = Math.min(deadline, Limits.nextResetAfter(limit, now));
            LimitState s = state.limits().get(limit.name());
            if (s != null && s.inWindow() && limit.resetAfter().isPresent()) {
                deadline = Math.min(deadline, s.windowStartMillis() + limit.resetAfter().get().toMillis());
            }
        }
        return Math.max(deadline, now + 1);
    }

    /** When (epoch seconds) an idle default-derived bucket may expire: it is surely full again by then. */
    static long ttl(List<Limit> limits, long deadline, long now) {
        return BucketMath.saturatedAdd(deadline, BucketLife.idleHorizon(limits, now)) / 1000 + 1;
    }

    /** The later of {@code deadline} and the instant every dripping limit of {@code state} is full again. */
    static long fullAgain(List<Limit> limits, BucketState state, long deadline) {
        long until = deadline;
        long at = state.lastRefillMillis();
        for (Limit limit : limits) {
            Limits.Parameters p = Limits.parametersAt(limit, at);
            LimitState s = state.limits().get(limit.name());
            if (s != null && p.drips() && !limit.isConcurrency() && s.balanceMilli() < p.capacityMilli()) {
                BigInteger lacking = BigInteger.valueOf(p.capacityMilli())
                        .subtract(BigInteger.valueOf(s.balanceMilli()));
                until = Math.max(until, BucketMath.saturatedAdd(at, creditMillis(lacking, p)));
            }
        }
        return until;
    }

    /** Milliseconds a dripping limit takes to credit {@code milli} milli-tokens, saturating far in the future. */
    static long creditMillis(BigInteger milli, Limits.Parameters p) {
        if (milli.signum() <= 0) {
            return 0;
        }
        BigInteger[] qr = milli.multiply(BigInteger.valueOf(p.refillPeriodMillis()))
                .divideAndRemainder(BigInteger.valueOf(p.refillAmountMilli()));
        BigInteger millis = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return millis.bitLength() < 62 ? millis.longValue() : Long.MAX_VALUE / 4;
    }
}
