package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.Decision;
import dev.zaelimiter.Unavailable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code on-unavailable} tag is {@code block} or {@code allow}, as the docs say, for every decision. */
class OnUnavailableTagTests {

    private static Decision decision(Decision.Outcome outcome, Unavailable policy) {
        return new Decision("user-1", "api", outcome, List.of(), Duration.ZERO, policy);
    }

    @Test
    void aDecisionThatNamesNoPolicyIsTaggedWithTheOneThatApplied() {
        assertThat(MicrometerRateLimiterListener.policy(decision(Decision.Outcome.ADMITTED, null)))
                .isEqualTo("block");
        assertThat(MicrometerRateLimiterListener.policy(decision(Decision.Outcome.DEGRADED, null)))
                .isEqualTo("allow");
        assertThat(MicrometerRateLimiterListener.policy(decision(Decision.Outcome.REFUSED, Unavailable.ALLOW)))
                .isEqualTo("allow");
    }
}
