package dev.zaelimiter;

import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ListenerTest {

    @Test
    void everyDecisionReachesTheListenerWithItsOutcome() {
        List<Decision> decisions = new ArrayList<>();
        RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).listener(decisions::add).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        limiter.admin().setEntityDisabled("vip", "api", DisabledMode.BYPASS);

        limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        limiter.acquire("vip", "api", Map.of("rpm", 1L));
        assertThatThrownBy(() -> limiter.acquire("user#1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(ValidationException.class);

        assertThat(decisions).extracting(Decision::outcome).containsExactly(Decision.Outcome.ADMITTED,
                Decision.Outcome.REFUSED, Decision.Outcome.BYPASSED);
        assertThat(decisions.get(1).statuses()).singleElement().satisfies(s -> assertThat(s.exceeded()).isTrue());
        assertThat(decisions).allSatisfy(d -> {
            assertThat(d.resource()).isEqualTo("api");
            assertThat(d.latency().isNegative()).isFalse();
        });
    }

    @Test
    void theWarningAboutAnUndebitedParentIsLoggedAtMostOnceAMinutePerParentAndResource() {
        MutableClock clock = MutableClock.start();
        List<String> reported = new ArrayList<>();
        UndebitedParents parents = new UndebitedParents(clock, new RateLimiterListener() {
            @Override
            public void onDecision(Decision decision) {
            }

            @Override
            public void onParentNotDebited(String entityId, String parentId, String resource) {
                reported.add(entityId);
            }
        });
        UndebitedParents.Skipped alice = new UndebitedParents.Skipped("alice", "org", "gpt-4");
        assertThat(parents.report(alice)).isTrue();
        assertThat(parents.report(new UndebitedParents.Skipped("bob", "org", "gpt-4"))).as("same parent").isFalse();
        assertThat(parents.report(new UndebitedParents.Skipped("bob", "org", "claude"))).isTrue();
        clock.advance(Duration.ofSeconds(59));
        assertThat(parents.report(alice)).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(parents.report(alice)).isTrue();
        assertThat(reported).as("the listener hears every one").containsExactly("alice", "bob", "bob", "alice",
                "alice");
    }

    @Test
    void aFailingListenerDoesNotBreakTheCall() {
        RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).listener(d -> {
            throw new IllegalStateException("metrics down");
        }).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).statuses()).hasSize(1);
    }
}
