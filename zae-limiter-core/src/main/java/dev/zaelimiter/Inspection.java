package dev.zaelimiter;

import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.resolution.ConfigResolver;
import dev.zaelimiter.internal.resolution.Resolution;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LimiterStore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What {@link RateLimiter#inspect} answers: the configuration in force and every limit's state, read only. */
final class Inspection {

    private Inspection() {
    }

    /** The view of {@code entityId} on {@code resource} at the clock's instant; writes nothing. */
    static BucketView inspect(LimiterStore store, Clock clock, String entityId, String resource) {
        String id = Identifiers.entityId("entityId", entityId);
        String res = Identifiers.resource("resource", resource);
        ConfigSnapshot snapshot = store.loadConfig(id, res);
        Resolution resolution = ConfigResolver.resolve(snapshot, null);
        long now = clock.millis();
        BucketDebit debit = new BucketDebit(new BucketKey(id, res), resolution.limits(), Map.of(), false,
                resolution.source().isDefault());
        BucketState state = resolution.limits().isEmpty() ? null : store.peek(List.of(debit), now).get(0).state();
        List<LimitView> views = new ArrayList<>();
        for (Limit limit : resolution.limits()) {
            Limits.Parameters p = Limits.parametersAt(limit, now);
            var limitState = state.limits().get(limit.name());
            long available = Math.floorDiv(state.balanceMilli(limit.name()), Limits.MILLI);
            long reset = Limits.nextResetAfter(limit, now);
            String window = null;
            for (ScheduleEntry entry : limit.schedule()) {
                if (entry.pattern().matches(Instant.ofEpochMilli(now), entry.zone())) {
                    window = entry.cron();
                    break;
                }
            }
            if (reset == Limits.NEVER && limitState != null && limitState.inWindow()
                    && limit.resetAfter().isPresent()) {            // a session kept from an earlier session quota
                reset = limitState.windowStartMillis() + limit.resetAfter().orElseThrow().toMillis();
            }
            views.add(new LimitView(limit.name(), p.capacityMilli() / Limits.MILLI, available,
                    p.refillAmountMilli() / Limits.MILLI, p.drips() ? Duration.ofMillis(p.refillPeriodMillis()) : null,
                    limit.isSoft(), limit.isSoft() && available < 0, window,
                    reset == Limits.NEVER ? null : Instant.ofEpochMilli(reset),
                    limitState == null ? 0 : limitState.consumedMilli() / Limits.MILLI));
        }
        long paused = RequestPlanner.pausedUntil(snapshot);
        return new BucketView(id, res, snapshot.entity(), resolution.source().name(), resolution.disabled(),
                resolution.parentId(), paused > now ? Instant.ofEpochMilli(paused) : null, views);
    }
}
