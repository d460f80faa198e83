package dev.zaelimiter.contract;

import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Upstream pauses: shared through the store, ended by time or by resume, for a resource or one entity on it. */
public abstract class PauseContract extends StoreContractSupport {

    @BeforeEach
    void limits() {
        admin.setResourceDefaults("openai", List.of(Limit.perMinute("rpm", 100)));
    }

    @Test
    void aPauseStopsEveryLimiterSharingTheStoreUntilItEnds() {
        RateLimiter other = newLimiter(store);
        Instant until = limiter.pause("openai", Duration.ofSeconds(30));
        assertThat(until).isEqualTo(clock.instant().plusSeconds(30));

        assertThatThrownBy(() -> other.acquire("user-1", "openai", consume("rpm", 1)))
                .isInstanceOfSatisfying(ResourcePausedException.class, e -> {
                    assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(e.pausedUntil()).isEqualTo(until);
                    assertThat(e.resource()).isEqualTo("openai");
                    assertThat(e.violations()).as("a handler reading violations sees the pause")
                            .singleElement().satisfies(status -> {
                                assertThat(status.limitName()).isEqualTo(ResourcePausedException.PAUSE);
                                assertThat(status.entityId()).isEqualTo("user-1");
                                assertThat(status.retryAfter()).isEqualTo(Duration.ofSeconds(30));
                            });
                })
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(other.checkAvailability("user-1", "openai", consume("rpm", 1))).satisfies(availability -> {
            assertThat(availability.allowed()).isFalse();
            assertThat(availability.statuses()).extracting(LimitStatus::limitName)
                    .containsExactly(ResourcePausedException.PAUSE);
        });
        assertThat(limiter.available("user-1", "openai")).as("nothing was consumed").containsEntry("rpm", 100L);

        clock.advance(Duration.ofSeconds(30));
        other.acquire("user-1", "openai", consume("rpm", 1));
    }

    @Test
    void anEntityPauseLeavesOtherEntitiesAlone() {
        limiter.pause("user-1", "openai", Duration.ofMinutes(1));
        assertThatThrownBy(() -> limiter.acquire("user-1", "openai", consume("rpm", 1)))
                .isInstanceOf(ResourcePausedException.class);
        limiter.acquire("user-2", "openai", consume("rpm", 1));
        assertThat(limiter.inspect("user-1", "openai").pausedUntil()).isEqualTo(clock.instant().plusSeconds(60));
        assertThat(limiter.inspect("user-2", "openai").pausedUntil()).isNull();
    }

    @Test
    void resumeEndsAPauseEarly() {
        limiter.pause("openai", Duration.ofHours(1));
        limiter.pause("user-1", "openai", Duration.ofHours(1));
        limiter.resume("openai");
        limiter.acquire("user-2", "openai", consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire("user-1", "openai", consume("rpm", 1)))
                .isInstanceOf(ResourcePausedException.class);
        limiter.resume("user-1", "openai");
        limiter.acquire("user-1", "openai", consume("rpm", 1));
    }

    @Test
    void anUpstreamRetryAfterInSecondsOrAsADatePauses() {
        assertThat(limiter.pauseFromRetryAfter("openai", "20")).contains(clock.instant().plusSeconds(20));
        clock.advance(Duration.ofSeconds(20));
        limiter.acquire("user-1", "openai", consume("rpm", 1));

        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(clock.instant().plusSeconds(90)
                .atOffset(ZoneOffset.UTC));
        assertThat(limiter.pauseFromRetryAfter("user-1", "openai", date)).contains(clock.instant().plusSeconds(90));
        assertThatThrownBy(() -> limiter.acquire("user-1", "openai", consume("rpm", 1)))
                .isInstanceOfSatisfying(ResourcePausedException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(90)));

        assertThat(limiter.pauseFromRetryAfter("openai", "0")).isEmpty();
        assertThatThrownBy(() -> limiter.pauseFromRetryAfter("openai", "soon"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("HTTP date");
        assertThatThrownBy(() -> limiter.pause("openai", Duration.ZERO)).isInstanceOf(ValidationException.class);
    }
}
