package dev.zaelimiter;

import java.time.Duration;
import java.time.Instant;

/**
 * One limit of one bucket as it stands now, for operators.
 *
 * @param name          the limit
 * @param capacity      tokens the bucket holds at most right now (the active schedule window's, if any)
 * @param available     whole tokens available now (negative in debt)
 * @param refillAmount  tokens returned every {@code refillPeriod} right now; zero for a quota
 * @param refillPeriod  the refill period, or {@code null} for a quota
 * @param soft          whether the limit only meters
 * @param overdrawn     a soft limit in debt
 * @param activeWindow  the cron of the schedule entry in force, or {@code null} for the base values
 * @param nextReset     the next instant a quota's allowance comes back, or {@code null}
 * @param consumed      net tokens consumed over the bucket's life
 */
public record LimitView(String name, long capacity, long available, long refillAmount, Duration refillPeriod,
        boolean soft, boolean overdrawn, String activeWindow, Instant nextReset, long consumed) {
}
