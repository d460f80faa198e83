package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Names;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Store contract: every user string and list that ends up in a stored item has a documented maximum, checked before
 * anything is written, the same on every store; anything at the maximum is stored and read back whole (on DynamoDB:
 * within its 400 KB item). Too big is a {@link ValidationException} naming the field, never a store error.
 */
public abstract class SizeLimitsContract extends StoreContractSupport {

    protected static final String LONG_ID = "u".repeat(256);
    protected static final String LONG_RESOURCE = "r" + "/abcdefg".repeat(31) + "/abcdefg".substring(0, 7);

    // ---- display names

    @Test
    void aDisplayNameAtTheMaximumIsStoredWhole() {
        String name = "n".repeat(Names.MAX_DISPLAY_NAME);
        admin.createEntity(Entity.of("user-1").withName(name));
        assertThat(admin.getEntity("user-1")).get().extracting(Entity::name).isEqualTo(name);

        String wide = "\uD83D\uDE00".repeat(Names.MAX_DISPLAY_NAME / 2);
        admin.updateEntity(Entity.of("user-1").withName(wide));
        assertThat(admin.getEntity("user-1")).get().extracting(Entity::name).isEqualTo(wide);
    }

    @Test
    void aDisplayNameTooLongForAnItemIsAValidationErrorAndWritesNothing() {
        String huge = "n".repeat(450_000);
        assertThatThrownBy(() -> admin.createEntity(new Entity("user-1", huge, null, false)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("name");
                    assertThat(e.getMessage()).contains(String.valueOf(Names.MAX_DISPLAY_NAME))
                            .hasSizeLessThan(1_000);
                });
        assertThatThrownBy(() -> Entity.of("user-1").withName("n".repeat(Names.MAX_DISPLAY_NAME + 1)))
                .isInstanceOf(ValidationException.class);
        assertThat(admin.getEntity("user-1")).isEmpty();

        admin.createEntity(Entity.of("user-1").withName("first"));
        assertThatThrownBy(() -> admin.updateEntity(Entity.of("user-1").withName(huge)))
                .isInstanceOf(ValidationException.class);
        assertThat(admin.getEntity("user-1")).get().extracting(Entity::name).isEqualTo("first");
    }

    @Test
    void aDisplayNameWithAnUnpairedSurrogateIsRefused() {
        assertThatThrownBy(() -> Entity.of("user-1").withName("bad \uD83D name"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("name"));
    }

    // ---- identifiers at their maximum

    @Test
    void identifiersAtTheirMaximumAreStoredWhole() {
        assertThat(LONG_RESOURCE).hasSize(256);
        String limitName = "l" + "x".repeat(63);
        String child = "c" + LONG_ID.substring(1);
        admin.createEntity(Entity.of(LONG_ID).withName("n".repeat(Names.MAX_DISPLAY_NAME)));
        admin.createEntity(Entity.of(child).withParent(LONG_ID).withCascade(true));
        admin.setLimits(LONG_ID, LONG_RESOURCE, List.of(Limit.perMinute(limitName, 10)));
        admin.setLimits(child, LONG_RESOURCE, List.of(Limit.perMinute(limitName, 5)));

        Lease lease = limiter.acquire(child, LONG_RESOURCE, Map.of(limitName, 1L));

        assertThat(lease.statuses()).extracting(s -> s.entityId().length()).containsExactly(256, 256);
        assertThat(limiter.available(child, LONG_RESOURCE)).containsEntry(limitName, 4L);
        assertThat(limiter.available(LONG_ID, LONG_RESOURCE)).containsEntry(limitName, 9L);
        assertThat(admin.children(LONG_ID)).singleElement().extracting(Entity::id).isEqualTo(child);
    }

    // ---- limit lists and schedules

    /** A cron whose canonical form is about as long as one gets: lists with no runs to shorten. */
    private static String longCron() {
        return list(0, 59) + " " + list(0, 23) + " " + list(1, 31) + " " + list(1, 12) + " 0,1,3,4,6";
    }

    private static String list(int from, int to) {
        return IntStream.rangeClosed(from, to).filter(v -> (v - from) % 3 != 2).mapToObj(String::valueOf)
                .collect(Collectors.joining(","));
    }

    /** {@code count} limits with 64-character names, each with the most schedule entries, all long crons. */
    protected static List<Limit> widest(int count) {
        ZoneId zone = ZoneId.of("America/Argentina/ComodRivadavia");
        List<ScheduleEntry> entries = new ArrayList<>();
        for (int i = 0; i < Limit.MAX_SCHEDULE_ENTRIES; i++) {
            entries.add(ScheduleEntry.absolute(longCron(), zone, Limit.MAX_TOKENS, Limit.MAX_TOKENS,
                    Duration.ofDays(365)));
        }
        List<Limit> limits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            limits.add(Limit.custom(String.format("limit%059d", i), Limit.MAX_TOKENS, Limit.MAX_TOKENS,
                    Duration.ofDays(365)).withSchedule(entries).soft());
        }
        return limits;
    }

    @Test
    void theWidestLevelAllowedIsStoredWholeAndItsBucketWorks() {
        List<Limit> limits = widest(Limit.MAX_LIMITS_PER_LEVEL);
        assertThat(limits.get(0).name()).hasSize(64);
        admin.setLimits(LONG_ID, LONG_RESOURCE, limits);
        assertThat(admin.getLimits(LONG_ID, LONG_RESOURCE)).isEqualTo(limits);

        Map<String, Long> all = new HashMap<>();
        limits.forEach(l -> all.put(l.name(), Limit.MAX_TOKENS));
        Lease lease = limiter.acquire(AcquireRequest.of(LONG_ID, LONG_RESOURCE).consume(all));
        assertThat(lease.statuses()).hasSize(Limit.MAX_LIMITS_PER_LEVEL);
        assertThat(limiter.available(LONG_ID, LONG_RESOURCE)).hasSize(Limit.MAX_LIMITS_PER_LEVEL)
                .containsValue(0L);
    }

    @Test
    void moreLimitsThanALevelHoldsAreRefusedAndWriteNothing() {
        List<Limit> tooMany = new ArrayList<>();
        for (int i = 0; i <= Limit.MAX_LIMITS_PER_LEVEL; i++) {
            tooMany.add(Limit.perMinute("l" + i, 10));
        }
        assertThatThrownBy(() -> admin.setResourceDefaults("api", tooMany))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("limits");
                    assertThat(e.getMessage()).contains(String.valueOf(Limit.MAX_LIMITS_PER_LEVEL));
                });
        assertThatThrownBy(() -> admin.setSystemDefaults(tooMany)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> admin.setLimits("user-1", "api", tooMany)).isInstanceOf(ValidationException.class);
        assertThat(admin.getResourceDefaults("api")).isEmpty();
        assertThat(admin.getSystemDefaults()).isEmpty();

        admin.setResourceDefaults("api", List.of(Limit.perMinute("l0", 10)));
        assertThatThrownBy(() -> limiter.acquire(AcquireRequest.of("user-1", "api").consume("l0", 1).limits(tooMany)))
                .isInstanceOf(ValidationException.class);
        assertThat(limiter.available("user-1", "api")).containsEntry("l0", 10L);
    }

    @Test
    void moreScheduleEntriesThanALimitHoldsAreRefused() {
        List<ScheduleEntry> entries = new ArrayList<>();
        for (int i = 0; i <= Limit.MAX_SCHEDULE_ENTRIES; i++) {
            entries.add(ScheduleEntry.scaled("* " + (i % 24) + " * * *", 0.5));
        }
        assertThatThrownBy(() -> Limit.perMinute("rpm", 10).withSchedule(entries))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("limit rpm schedule");
                    assertThat(e.getMessage()).contains(String.valueOf(Limit.MAX_SCHEDULE_ENTRIES));
                });
        assertThat(Limit.perMinute("rpm", 10).withSchedule(entries.subList(0, Limit.MAX_SCHEDULE_ENTRIES))
                .schedule()).hasSize(Limit.MAX_SCHEDULE_ENTRIES);
    }
}
